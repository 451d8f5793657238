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
   that detached comes back here), the credentials are given back and the push phase
   runs: the program as without --host-checks, which runs no repository code, reads
   the recorded verdicts (autofix.py) and runs git with no hooks (`hookless_git`).

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
) -> int:
    """Run `python -m MODULE ARGV` as the checks phase, recording into `folder`, its
    output to `output` (None: this process's); wait for it and kill what it left behind.
    Returns its exit code."""
    taken = drop_credentials(config_file)
    try:
        return _checks_phase(module, argv, folder, output)
    finally:
        os.environ.update(taken)  # for the push phase, which starts after it


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


def hookless_git(folder: str) -> dict[str, str]:
    """Configuration, given in the environment (it outranks every file), that keeps the
    push phase's git from running hooks or a file-system monitor: a hook of the checks
    phase may have written either into a file git reads (SECURITY.md says what else)."""
    empty = Path(folder) / "no-hooks"
    empty.mkdir(exist_ok=True)
    settings = {"core.hooksPath": str(empty), "core.fsmonitor": "false"}
    env = {"GIT_CONFIG_COUNT": str(len(settings))}
    for index, (key, value) in enumerate(settings.items()):
        env[f"GIT_CONFIG_KEY_{index}"], env[f"GIT_CONFIG_VALUE_{index}"] = key, value
    return env
