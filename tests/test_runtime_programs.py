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
