"""The memory commands never run a program a commit put in the work tree.

A PATH with an empty entry (one ending in `:`, as a careless `PATH=$PATH:$EXTRA` leaves
it) or a `.` names the working folder, and commands run from the repository root. A
commit that adds an executable `git` there would then run, with the agent's rights,
from every command that asks git: new, find, verify, review, track, the session
digest and the merge driver git starts. ecomem/git.py finds git on PATH's absolute
entries only, and every git the runtime starts is that one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import commit_all
from tests.memory_helpers import mem


def test_no_command_runs_a_git_the_work_tree_holds(host: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    program = host / "git"
    program.write_text(f"#!{sys.executable}\nopen({str(marker)!r}, 'a')\n", encoding="utf-8")
    program.chmod(0o755)
    commit_all(host, "a tool of the branch's")
    real_git = shutil.which("git")
    dotted = {"PATH": os.pathsep + os.environ["PATH"]}

    def git(*args: str) -> None:
        done = subprocess.run(
            [real_git, *args], cwd=host, env={**os.environ, **dotted}, capture_output=True
        )
        assert done.returncode == 0, done.stderr

    def new_fact(title: str) -> None:
        args = ("--source", "verified", "--scope", "repo", "--expires", "never")
        done = mem(host, "new", "semantic", "--title", title, *args, "--body", "Seen.", env=dotted)
        assert done.returncode == 0, done.stderr

    main = subprocess.run([real_git, "branch", "--show-current"], cwd=host, capture_output=True)
    for title, branch in (("Builds use make", "one"), ("Tests use pytest", "two")):
        git("checkout", "-q", "-b", branch, main.stdout.decode().strip())
        new_fact(title)
        commit_all(host, title)
        git("checkout", "-q", main.stdout.decode().strip())
    # Both branches add a row to the same catalog: git runs the catalog driver.
    git("merge", "-q", "--no-edit", "one")
    git("merge", "-q", "--no-edit", "two")
    for command in (("find", "make"), ("verify",), ("review",), ("track",), ("context",)):
        done = mem(host, *command, env=dotted)
        assert done.returncode in (0, 1), (command, done.stderr)
    new_fact("Lint uses ruff")
    assert not marker.exists()


def test_no_command_line_we_write_finds_a_program_through_a_relative_path_entry(
    host: Path, tmp_path: Path
) -> None:
    """The merge driver in .git/config and the SessionStart hook in .claude/settings.json
    are shell command lines others run (git, Claude Code) from the repository's root:
    with `PATH=:$PATH`, a `python3`, `mv` or `git` a branch commits there would be what
    they start, mid-merge or at every session start."""
    import json

    marker = tmp_path / "ran"
    for name in ("git", "python3", "mv", "rm", "cat"):
        program = host / name
        program.write_text(f"#!/bin/sh\necho {name} >> {marker}\nexit 1\n", encoding="utf-8")
        program.chmod(0o755)
    commit_all(host, "tools of the branch's")
    real_git = shutil.which("git")
    dotted = {**os.environ, "PATH": os.pathsep + os.environ["PATH"]}
    assert mem(host, "track").returncode == 0

    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([real_git, *args], cwd=host, env=dotted, capture_output=True)

    main = git("branch", "--show-current").stdout.decode().strip()
    for title, branch in (("Deploys use helm", "three"), ("Docs use mkdocs", "four")):
        git("checkout", "-q", "-b", branch, main)
        args = ("--source", "verified", "--scope", "repo", "--expires", "never")
        done = mem(host, "new", "semantic", "--title", title, *args, "--body", "Seen.")
        assert done.returncode == 0, done.stderr
        commit_all(host, title)
        git("checkout", "-q", main)
    assert git("merge", "-q", "--no-edit", "three").returncode == 0
    merged = git("merge", "-q", "--no-edit", "four")  # the catalog's rows meet: the driver
    assert merged.returncode == 0, merged.stdout + merged.stderr
    settings = json.loads((host / ".claude/settings.json").read_text(encoding="utf-8"))
    command = settings["hooks"]["SessionStart"][-1]["hooks"][0]["command"]
    hook = subprocess.run(
        ["/bin/sh", "-c", command],
        cwd=host,
        env={**dotted, "CLAUDE_PROJECT_DIR": str(host)},
        capture_output=True,
    )
    assert hook.returncode == 0 and hook.stdout, hook.stderr
    assert not marker.exists(), marker.read_text(encoding="utf-8")
