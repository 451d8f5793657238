"""The token-free phase: where a repository's own code (its pre-commit hooks) runs.

A hook runs as the operator's user, so it can read `/proc/PID/environ` of every process
of that user, its parents first: giving the hook itself a clean environment is not
enough. So with --host-checks install and upgrade run in two phases:

1. the checks phase, a child process started once every credential variable has been
   taken out of this process's environment and wiped from the block /proc shows of it
   (`take_credentials`). It clones, renders, runs the hosts' checks, records each
   verdict and pushes nothing: nothing in its process tree ever held the token.
2. once that child has exited and every process it left behind has been killed
   (`reap_leftovers`: this process is the reaper of its orphans, so a hook's daemon
   that detached comes back here), the push phase runs: the program as without
   --host-checks, which runs no repository code and reads the recorded verdicts
   (autofix.py). The key never goes back into its environment: all-repos gets it
   in-process (`key_in_settings`), so no program it starts (git) holds it. It works in
   fresh clones of its own, and its git reads the global configuration as it was
   before the checks phase and runs no hooks (`hookless_git`): a hook can write git
   configuration that would make git start a program of its choosing.

status, which needs no credential, drops them for good (`drop_credentials`). Each
also makes itself non-dumpable (`guard`): a non-root process of the same user can
then read neither its environment nor its memory. SECURITY.md says what a hook can
still reach.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

# prctl(2) options.
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
# Variables that carry a credential by their name: a token, a password, an API key, a
# program that hands one out, and git configuration given in the environment (it can
# carry an http.extraHeader). SSH_AUTH_SOCK stays: it names a socket any process of the
# user can already find and open, and the clones are fetched through it (SECURITY.md).
CREDENTIAL_NAME = re.compile(
    r"TOKEN|SECRET|PASSW|CREDENTIAL|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|ASKPASS|COOKIE"
    r"|^GIT_CONFIG_(PARAMETERS|COUNT|KEY_|VALUE_)",
    re.IGNORECASE,
)
# The hidden option that starts a program as the checks phase, recording into a folder.
PHASE_OPTION = "--host-checks-phase"
REAP_ROUNDS = 100  # kill-and-wait rounds before a process that keeps forking is reported


class Refused(Exception):
    """A setting that would let the token reach repository code: one line, exit 2."""


def settings_keys(config_file: str) -> tuple[set[str], list[str]]:
    """From an all-repos config: the environment variables it reads a key from
    (`api_key_env`), and the settings that hold a key inline (`api_key`)."""
    try:
        with open(config_file, encoding="utf-8") as handle:
            config = json.load(handle)
    except (OSError, ValueError):
        return set(), []  # all-repos reports an unreadable config itself
    names, inline = set(), []
    for part in ("source_settings", "push_settings"):
        settings = config.get(part) if isinstance(config, dict) else None
        if not isinstance(settings, dict):
            continue
        if isinstance(settings.get("api_key_env"), str):
            names.add(settings["api_key_env"])
        if settings.get("api_key"):
            inline.append(part)
    return names, inline


def take_credentials(named: set[str]) -> dict[str, str]:
    """Take every credential variable out of this process's environment, and wipe it
    from the block the kernel shows as /proc/PID/environ (removing a variable leaves its
    bytes there); return them, to give back once the checks phase is over."""
    taken = {
        name: value
        for name, value in os.environ.items()
        if name in named or CREDENTIAL_NAME.search(name)
    }
    _wipe_from_environ_block(taken)
    for name in taken:
        del os.environ[name]
    return taken


def _wipe_from_environ_block(names: dict[str, str]) -> None:
    """Overwrite the value of each of `names` in place in the C environment, which still
    points into the block the process started with."""
    libc = ctypes.CDLL(None)
    entries = ctypes.POINTER(ctypes.c_void_p).in_dll(libc, "environ")
    prefixes = tuple(f"{name}=".encode() for name in names)
    index = 0
    while entries[index]:
        address = entries[index]
        entry = ctypes.string_at(address)
        for prefix in prefixes:
            if entry.startswith(prefix):
                ctypes.memset(address + len(prefix), ord("x"), len(entry) - len(prefix))
        index += 1


def guard() -> None:
    """Make this process unreadable to its own user's processes, and the reaper of its
    orphaned descendants. Refused where the system cannot (not Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
    except (OSError, AttributeError):
        raise Refused(
            "--host-checks needs Linux: nowhere else can the fleet keep repository"
            " code from reading its environment"
        ) from None
    for option, value in ((PR_SET_DUMPABLE, 0), (PR_SET_CHILD_SUBREAPER, 1)):
        if prctl(option, value, 0, 0, 0) != 0:
            error = os.strerror(ctypes.get_errno())
            raise Refused(f"--host-checks: prctl({option}) failed: {error}")


def _children() -> list[int]:
    """The processes whose parent is this one, read from /proc."""
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as handle:
                stat = handle.read()
        except OSError:
            continue  # gone meanwhile
        if int(stat.rsplit(")", 1)[1].split()[1]) == me:
            found.append(int(entry))
    return found


def reap_leftovers() -> int:
    """Kill every process left under this one (the checks phase's daemons, reparented
    here by `guard`), until none is left; the number killed."""
    killed = 0
    for _ in range(REAP_ROUNDS):
        left = _children()
        if not left:
            return killed
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        for pid in left:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    raise Refused("processes of the checks phase keep starting; nothing pushed")


def run_checks_phase(
    module: str, argv: Sequence[str], config_file: str, folder: str, output: TextIO | None
) -> dict[str, str]:
    """Run `python -m MODULE ARGV` as the checks phase, recording into `folder`, its
    output to `output` (None: this process's); wait for it and kill what it left behind.
    Returns the credentials taken for it: none of them goes back into this process's
    environment, which every program the push phase starts inherits (`give_back`)."""
    taken = drop_credentials(config_file)
    _checks_phase(module, argv, folder, output)
    return taken


def drop_credentials(config_file: str) -> dict[str, str]:
    """Take the credentials out of this process's environment before any repository
    code runs, and make it the reaper of what that code leaves behind (`guard`); return
    them. status, which needs none, never gives them back."""
    named, inline = settings_keys(config_file)
    if inline:
        raise Refused(
            f"{config_file}: {', '.join(inline)} hold an api_key, which repository code run"
            " by --host-checks could read; give it by api_key_env instead"
        )
    guard()
    return take_credentials(named)


def _checks_phase(module: str, argv: Sequence[str], folder: str, output: TextIO | None) -> int:
    command = [sys.executable, "-m", module, *argv, PHASE_OPTION, folder]
    sys.stdout.flush()
    done = subprocess.run(
        command,
        stdin=subprocess.DEVNULL,
        stdout=output,
        stderr=output,
        start_new_session=True,
    )
    reap_leftovers()
    return done.returncode


def add_phase_arg(parser) -> None:
    """The hidden option the push phase starts the checks phase with."""
    parser.add_argument(PHASE_OPTION, metavar="FOLDER", help=argparse.SUPPRESS)


def _verdict_file(folder: str, repo: str) -> Path:
    return Path(folder) / (hashlib.sha256(repo.encode("utf-8")).hexdigest() + ".json")


def record_verdict(
    folder: str, repo: str, tree: str, base: str, failed: str, note: str, status: str
) -> None:
    """What the checks phase found in `repo`: the staged tree it checked, on which origin
    commit, and the failure (or ""), note and checks field (autofix._run_host_checks)."""
    verdict = {"tree": tree, "base": base, "failed": failed, "note": note, "checks": status}
    _verdict_file(folder, repo).write_text(json.dumps(verdict), encoding="utf-8")


def recorded_verdict(folder: str, repo: str, tree: str, base: str) -> tuple[str, str, str]:
    """(failure or "", note, checks field) for the push phase: a failure unless the
    checks phase passed this very tree on this very origin commit."""
    try:
        verdict = json.loads(_verdict_file(folder, repo).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return (
            "host checks did not run in the checks phase (see its log); nothing pushed",
            "",
            "failed",
        )
    if verdict.get("failed"):
        return str(verdict["failed"]), "", "failed"
    if (verdict.get("tree"), verdict.get("base")) != (tree, base):
        return (
            "the result differs from what the host checks passed (origin moved meanwhile?);"
            " nothing pushed, run again",
            "",
            "failed",
        )
    return "", str(verdict.get("note", "")), str(verdict.get("checks", ""))


# Of the credential variables taken for the checks phase, those the push phase's git
# may see again: configuration the operator gives git in the environment, and the
# programs git asks for a password. A value (a token) stays out of every child.
GIVEN_BACK = re.compile(r"^GIT_CONFIG_(PARAMETERS|COUNT|KEY_|VALUE_)|ASKPASS$")


def give_back(taken: dict[str, str]) -> None:
    """Put back into this process's environment the taken variables that are not a
    credential's value (GIVEN_BACK); the key reaches all-repos in-process (`key_in_settings`)."""
    os.environ.update({name: value for name, value in taken.items() if GIVEN_BACK.search(name)})


def key_in_settings(settings, taken: dict[str, str]):
    """all-repos push `settings` holding the key itself instead of the name of the
    variable all-repos would read it from at push time: the push module reads it in this
    process, and no program started here has it in its environment."""
    name = getattr(settings, "api_key_env", None)
    if not name or name not in taken or not hasattr(settings, "_replace"):
        return settings  # all-repos says what is missing when it pushes
    return settings._replace(api_key=taken[name], api_key_env=None)


def global_git_config() -> bytes:
    """The bytes of the operator's global git configuration, as git reads it (the XDG
    file, then ~/.gitconfig, or the file GIT_CONFIG_GLOBAL names), read before the checks
    phase: a hook can write those files, so the push phase's git reads this copy."""
    named = os.environ.get("GIT_CONFIG_GLOBAL")
    if named is not None:
        files = [named]
    else:
        home = os.path.expanduser("~")
        xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        files = [os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig")]
    read = []
    for name in files:
        with contextlib.suppress(OSError):
            read.append(Path(name).read_bytes())
    return b"\n".join(read)


def hookless_git(folder: str, global_config: bytes) -> dict[str, str]:
    """The push phase's git environment, in a `folder` made after the checks phase
    ended: the global configuration read before it (`global_git_config`), and settings
    given in the environment (they outrank every file) that keep git from running hooks
    or a file-system monitor, after any the operator gave there."""
    empty = Path(folder) / "no-hooks"
    empty.mkdir()
    copy = Path(folder) / "gitconfig"
    copy.write_bytes(global_config)
    settings = {"core.hooksPath": str(empty), "core.fsmonitor": "false"}
    try:
        given = int(os.environ.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        given = 0  # git refuses such a count itself
    env = {"GIT_CONFIG_GLOBAL": str(copy), "GIT_CONFIG_COUNT": str(given + len(settings))}
    for index, (key, value) in enumerate(settings.items(), start=given):
        env[f"GIT_CONFIG_KEY_{index}"], env[f"GIT_CONFIG_VALUE_{index}"] = key, value
    return env
