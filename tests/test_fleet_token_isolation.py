"""Same-user isolation is no isolation: the process tree that runs a repository's code
(its pre-commit hooks, with --host-checks) never holds the organisation's token.

A `language: system` hook runs as the operator's user, so it reads the environment of
every process it can see through /proc. Here one hunts for the token every way it can:
its own environment, its parents' up to the top, every /proc/*/environ, and a daemon it
leaves behind that keeps looking while the fleet pushes. Real all-repos, real
pre-commit, real git; local bare origins, no network.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
from pathlib import Path

import pytest

from eco_mem_fleet import token_free
from tests.fleet import clone_all, heads, make_origin, run_module, two_releases, write_config

# Its own value per run: the hunter reads every process on the machine, and a test
# running beside this one (pytest-xdist) may hold a token of its own in its environment.
TOKEN = "ghp_isolation" + secrets.token_hex(14)
# Reads every environment it can reach and appends what carries the token's marks to
# LOOT, and how many environments it read to READ, and any render process it sees (there
# must be none); then leaves a detached daemon that
# does the same until STOP appears, its pid in PIDFILE.
HUNTER = r"""
import os, sys, time

LOOT, READ, STOP, PIDFILE = sys.argv[1:5]

def hunt():
    found, read = set(), 0
    for name, value in os.environ.items():
        if "ghp_" in value or "TOKEN" in name:
            found.add(f"own env: {name}={value}")
    pid = os.getpid()
    chain = []
    while pid > 1:
        try:
            pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except OSError:
            break
        chain.append(pid)
    pids = chain + [int(p) for p in os.listdir("/proc") if p.isdigit()]
    for pid in pids:
        try:
            block = open(f"/proc/{pid}/environ", "rb").read()
        except OSError:
            continue
        read += 1
        for entry in block.split(b"\0"):
            if b"ghp_" in entry:
                found.add(f"/proc/{pid}/environ: {entry.decode(errors='replace')}")
    with open(LOOT, "a") as loot:
        loot.write("".join(line + "\n" for line in sorted(found)))
    with open(READ, "a") as counted:
        counted.write(f"{read}\n")

hunt()
# A render process (eco_mem_fleet/render_forks.py) takes requests on a socket this user
# can reach: no fleet process above this hook may have one while it runs (other tests'
# fleets, under other parents, may).
def parent(pid):
    return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])

above, pid = set(), parent(os.getpid())
while pid > 1:  # not init: every orphan on the machine is its child
    above.add(pid)
    pid = parent(pid)
with open(LOOT, "a") as loot:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command, started_by = open(f"/proc/{pid}/cmdline", "rb").read(), parent(pid)
        except OSError:
            continue
        program = [part for part in command.split(b"\0") if part.endswith(b"/render_forks.py")]
        if program and started_by in above:
            loot.write(f"render process: {command!r}\n")
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(devnull, fd)
        with open(PIDFILE, "w") as handle:
            handle.write(str(os.getpid()))
        while not os.path.exists(STOP):
            hunt()
            time.sleep(0.05)
    os._exit(0)
"""


def hooked_fleet(root: Path, script: str, args: str) -> tuple[dict[str, Path], Path]:
    """One repository whose pre-commit hook is `python3 tools/lint.py ARGS`, SCRIPT its
    code; its origin, and the all-repos config with the repository cloned."""

    def seed(work: Path) -> None:
        (work / "tools").mkdir()
        (work / "tools/lint.py").write_text(script, encoding="utf-8")
        (work / ".pre-commit-config.yaml").write_text(
            "repos:\n  - repo: local\n    hooks:\n      - id: house-lint\n"
            f"        name: house lint\n        entry: python3 tools/lint.py {args}\n"
            "        language: system\n        pass_filenames: false\n",
            encoding="utf-8",
        )

    origins = {"svc": make_origin(root, "svc", seed)}
    config = write_config(root, {name: str(origin) for name, origin in origins.items()})
    clone_all(config)
    return origins, config


def hunting_fleet(root: Path) -> tuple[dict[str, Path], Path, dict[str, Path]]:
    files = {name: root / name for name in ("loot", "read", "stop", "pid")}
    args = " ".join(str(files[name]) for name in ("loot", "read", "stop", "pid"))
    origins, config = hooked_fleet(root, HUNTER, args)
    return origins, config, files


def stop_daemon(files: dict[str, Path]) -> bool:
    """Stop the hunter's daemon; whether it was still alive."""
    files["stop"].write_text("", encoding="utf-8")
    if not files["pid"].exists():
        return False
    pid = int(files["pid"].read_text(encoding="utf-8"))
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


def stolen(files: dict[str, Path]) -> list[str]:
    """What the hunter found of this run's token, or any token in its own environment."""
    loot = files["loot"].read_text(encoding="utf-8").splitlines()
    return [line for line in loot if TOKEN in line or line.startswith("own env:")]


def fleet(
    program: str, root: Path, config: Path, template: Path, *args: str, home: Path | None = None
):
    env = {"PRE_COMMIT_HOME": str(root / "pre-commit-cache"), "GITHUB_TOKEN": TOKEN}
    if home is not None:
        env = {**env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    return run_module(
        f"eco_mem_fleet.{program}",
        *("-C", str(config), "--template", str(template), "--host-checks", *args),
        env=env,
    )


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_releases(tmp_path_factory.mktemp("isolation") / "eco-mem")


def test_same_user_isolation_no_process_running_repository_code_can_read_the_token(
    template: Path, tmp_path: Path
) -> None:
    origins, config, files = hunting_fleet(tmp_path)
    before = heads(origins)
    done = fleet("install", tmp_path, config, template)
    alive = stop_daemon(files)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert heads(origins) != before, "the install was pushed: the token was used after all"
    # The hook ran and read environments: its parents' and others'.
    assert files["read"].exists(), output
    assert int(files["read"].read_text(encoding="utf-8").split()[0]) >= 3
    assert not stolen(files), "a process running the repository's code read the token"
    loot = files["loot"].read_text(encoding="utf-8")
    assert "render process:" not in loot, "a render process ran beside repository code"
    assert files["pid"].exists(), "the hook left its daemon behind"
    assert not alive, "the hook's daemon outlived the checks phase, into the push"


def test_same_user_isolation_status_runs_repository_code_without_the_token(
    template: Path, tmp_path: Path
) -> None:
    _, config, files = hunting_fleet(tmp_path)
    installed = run_module("eco_mem_fleet.install", "-C", str(config), "--template", str(template))
    assert installed.returncode == 0, installed.stdout + installed.stderr
    done = fleet("status", tmp_path, config, template)
    alive = stop_daemon(files)
    assert files["read"].exists(), done.stdout + done.stderr
    assert not stolen(files), "a process running the repository's code read the token"
    assert not alive, "the hook's daemon outlived status"


def test_same_user_isolation_refuses_a_key_written_into_the_config(
    template: Path, tmp_path: Path
) -> None:
    origins, config, files = hunting_fleet(tmp_path)
    settings = json.loads(config.read_text(encoding="utf-8"))
    settings["push_settings"] = {"api_key": TOKEN}
    config.write_text(json.dumps(settings), encoding="utf-8")
    before = heads(origins)
    for program in ("install", "status"):
        done = fleet(program, tmp_path, config, template)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "api_key_env" in done.stderr
    assert not files["read"].exists(), "a hook ran"
    assert heads(origins) == before


# Writes git configuration that makes git run a program of its choosing (the ext::
# transport, for the origin's URL) everywhere a hook can: its own clone's .git/config,
# the global configuration of the HOME it is given, the fleet's local clone LOCAL and
# the operator's own ~/.gitconfig OPERATOR, by path (a hook finds both: the config
# file and /etc/passwd). The program appends its environment to LEAK.
CONFIGURER = r"""
import subprocess, sys

LEAK, LOCAL, OPERATOR = sys.argv[1:4]
url = subprocess.run(
    ["git", "config", "remote.origin.url"], capture_output=True, text=True
).stdout.strip()
rewrite = f"url.ext::sh -c env>>{LEAK};exit% 1.insteadOf"
for where in ([], ["--global"], ["--file", f"{LOCAL}/.git/config"], ["--file", OPERATOR]):
    subprocess.run(["git", "config", *where, "protocol.ext.allow", "always"], check=True)
    subprocess.run(["git", "config", *where, rewrite, url], check=True)
"""
# An origin's pre-receive hook (the operator's side, trusted): appends the environment
# of itself and of every process above it that it can read, one line each, to RECORD.
RECORDER = """#!/usr/bin/env python3
import os

with open(RECORD, "a") as record:
    pid = os.getpid()
    while pid > 1:
        try:
            record.write(repr(open(f"/proc/{pid}/environ", "rb").read()) + "\\n")
        except OSError:
            pass  # not readable: the fleet itself, non-dumpable
        pid = int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
"""


def operator_home(root: Path) -> Path:
    home = root / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[user]\n\tname = dev\n\temail = dev@x.invalid\n", encoding="utf-8"
    )
    return home


def test_hook_written_git_config_the_push_phase_git_obeys_none_of_it(
    template: Path, tmp_path: Path
) -> None:
    home = operator_home(tmp_path)
    leak = tmp_path / "leak"
    local = tmp_path / "clones" / "svc"
    args = f"{leak} {local} {home / '.gitconfig'}"
    origins, config = hooked_fleet(tmp_path, CONFIGURER, args)
    before = heads(origins)
    done = fleet("install", tmp_path, config, template, home=home)
    output = done.stdout + done.stderr
    # The hook ran and wrote its settings into the clone and the operator's file.
    assert "ext::" in (local / ".git/config").read_text(encoding="utf-8"), output
    assert "ext::" in (home / ".gitconfig").read_text(encoding="utf-8"), output
    assert not leak.exists(), "the push phase's git ran the hook's program"
    assert done.returncode == 0, output
    assert heads(origins) != before, "the install was not pushed"


def test_no_process_the_push_phase_starts_has_the_token_in_its_environment(
    template: Path, tmp_path: Path
) -> None:
    origins, config, files = hunting_fleet(tmp_path)
    record = tmp_path / "record"
    hook = origins["svc"] / "hooks" / "pre-receive"
    hook.write_text(RECORDER.replace("RECORD", repr(str(record)), 1), encoding="utf-8")
    hook.chmod(0o755)
    before = heads(origins)
    done = fleet("install", tmp_path, config, template)
    stop_daemon(files)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert heads(origins) != before, "the install was not pushed"
    environments = record.read_text(encoding="utf-8").splitlines()
    # Itself, the receive-pack above it and the push's git, at least.
    assert len(environments) >= 3, output
    assert not [line for line in environments if TOKEN in line]


def test_push_phase_git_settings_keep_the_ones_the_operator_gave_in_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "http.proxy")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "http://proxy.invalid:3128")
    env = {**os.environ, **token_free.hookless_git(str(tmp_path), b"[x]\n\ty = global\n")}

    def setting(key: str) -> str:
        read = subprocess.run(["git", "config", key], env=env, capture_output=True, text=True)
        return read.stdout.strip()

    assert setting("http.proxy") == "http://proxy.invalid:3128"
    assert setting("core.hooksPath") == str(tmp_path / "no-hooks")
    assert setting("x.y") == "global"


def test_no_process_the_push_phase_starts_has_the_token_all_repos_reads_it_in_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from all_repos.push.github_pull_request import Settings
    from all_repos.util import load_api_key

    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    settings = Settings(username="bot", api_key_env="GITHUB_TOKEN")
    held = token_free.key_in_settings(settings, {"GITHUB_TOKEN": TOKEN})
    assert load_api_key(held) == TOKEN  # what the push module sends, read in-process
    assert TOKEN not in repr(held)  # all-repos prints its settings with the key hidden
    assert "GITHUB_TOKEN" not in os.environ
