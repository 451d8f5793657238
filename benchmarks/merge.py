"""Benchmark: merging eight memory branches with the catalog merge driver, per merge,
against a plain `git merge` of the same branches.

What is measured: the wall time of `git merge --no-edit BRANCH` for eight
branches merged in turn into main, in a default render holding a store in use
(the facts and episodes of tests/test_teamwork.py). Each branch adds one fact,
the first four an episode too, written with `eco_mem.pyz new` as an agent would.

  driver     the clone as eco-mem leaves it: the .gitattributes block and
             merge.eco-mem-catalog.driver in .git/config; no merge conflicts
  baseline   the same clone without the driver in .git/config: git's own
             text merge. A merge that stops on a conflict is timed up to the
             stop; `eco_mem.pyz resolve` and the commit after it are not timed

Git runs the driver as `track` configures it, through `sh -c`: `git merge-file`
first, and only when that conflicts `python3 -I -S` on the driver's copy in
.git/eco-mem/ (see docs/teamwork.md). `python3` is found on PATH; the
benchmark puts the directory of the interpreter running it first on PATH, so a
version manager's shim (pyenv's costs about 400 ms per start on the development
machine) is not what is timed. Setup is not timed: each run starts from a fresh
copy of the repository, whose driver copy already holds bytecode, as in any
clone where a merge or a session has run from it (the copy is compiled on its
first use, not when `track` writes it).

Runs are interleaved (see benchmarks/_timing.py); one sample is the mean time
per merge over the eight. The ratio is driver over baseline, median and min,
against a target of 1.5x. The same ratio of CPU time (user and system, of git
and every process it starts) moves less when other work shares the machine.
After timing, the last merged copy of each subject is checked to list every
entry once. Nothing about timing is asserted.

Reproduce from the repository root, with copier installed (pip install -e '.[test]'):

    python -m benchmarks.merge [--runs N]
"""

from __future__ import annotations

import compileall
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._timing import Timing, ms, parse_runs, print_table, ratio_line
from tests.helpers import MEMORY, commit_all, copy_template, git, init_repo, snapshot_template
from tests.memory_helpers import SCRIPT, episode, fact
from tests.test_teamwork import (
    BRANCH_EPISODES,
    BRANCH_FACTS,
    BRANCHES,
    SEED_EPISODES,
    SEED_FACTS,
)

DEFAULT_RUNS = 7
# `python3` as the driver command names it: this interpreter, not a shim.
ENV = {
    **os.environ,
    "PATH": os.pathsep.join((str(Path(sys.executable).parent), os.environ["PATH"])),
}
TARGET = 1.5
SUBJECTS = ("baseline", "driver")


def team_repository(work: Path) -> Path:
    template = snapshot_template(work / "template", "v0.0.1")
    repo = init_repo(work / "team")
    copy_template(template, repo)
    commit_all(repo, "install eco-mem")
    for title in SEED_FACTS:
        fact(repo, title)
    for title in SEED_EPISODES:
        episode(repo, title, "Check it first.", "--date", "2024-03-01")
    commit_all(repo, "a store in use")
    for number, branch in enumerate(BRANCHES):
        tree = work / branch
        git(repo, "worktree", "add", "-q", "-b", branch, str(tree), "main")
        fact(tree, BRANCH_FACTS[number])
        if number < len(BRANCH_EPISODES):
            episode(tree, BRANCH_EPISODES[number], "Check it first.")
        commit_all(tree, branch)
        git(repo, "worktree", "remove", str(tree))
    # The copy's first run compiles it; every run after that is what is measured.
    for copy in (repo / ".git" / "eco-mem").glob("merge-driver-*"):
        compileall.compile_dir(copy, quiet=1)
    return repo


def fresh_copy(team: Path, target: Path, driver: bool) -> Path:
    shutil.copytree(team, target, symlinks=True)
    if not driver:
        git(target, "config", "--remove-section", "merge.eco-mem-catalog")
    return target


def children_cpu() -> float:
    """CPU seconds (user and system) of every finished child process so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def merge_all(repo: Path) -> tuple[float, float, int]:
    """(seconds spent in `git merge`, CPU seconds of it and every process it started,
    how many merges stopped on a conflict)."""
    spent, cpu, conflicts = 0.0, 0.0, 0
    for branch in BRANCHES:
        start, start_cpu = time.perf_counter(), children_cpu()
        merged = subprocess.run(
            ["git", "merge", "-q", "--no-edit", branch], cwd=repo, capture_output=True, env=ENV
        )
        spent += time.perf_counter() - start
        cpu += children_cpu() - start_cpu
        if merged.returncode != 0:
            conflicts += 1
            subprocess.run(
                [sys.executable, SCRIPT, "resolve"], cwd=repo, check=True, capture_output=True
            )
            git(repo, "commit", "-q", "--no-edit")
    return spent, cpu, conflicts


def every_entry_once(repo: Path) -> bool:
    text = (repo / MEMORY / "semantic/INDEX.md").read_text(encoding="utf-8")
    # By the row's title cell: a slug leaves out a title's short words.
    return all(text.count(f"| {title} |") == 1 for title in BRANCH_FACTS)


def main() -> None:
    runs = parse_runs(__doc__, DEFAULT_RUNS)
    with tempfile.TemporaryDirectory(prefix="eco-mem-bench-merge-") as tmp:
        work = Path(tmp)
        team = team_repository(work)
        timings = {name: Timing() for name in SUBJECTS}
        cpu = {name: Timing() for name in SUBJECTS}
        conflicts = dict.fromkeys(SUBJECTS, 0)
        last: dict[str, Path] = {}
        for round_number in range(runs + 1):  # round 0 warms the disk cache, unrecorded
            order = SUBJECTS if round_number % 2 == 0 else tuple(reversed(SUBJECTS))
            for name in order:
                repo = fresh_copy(team, work / f"{name}-{round_number}", name == "driver")
                spent, used, stopped = merge_all(repo)
                if round_number:
                    timings[name].samples.append(spent / len(BRANCHES))
                    cpu[name].samples.append(used / len(BRANCHES))
                conflicts[name] = stopped
                last[name] = repo
        whole = {name: every_entry_once(last[name]) for name in SUBJECTS}
    print(f"git merge of {len(BRANCHES)} memory branches in turn, {runs} interleaved runs each\n")
    print_table(
        ("merge", "per merge, median", "min", "CPU, median", "conflicts of 8", "every entry once"),
        [
            (
                name,
                ms(timings[name].median),
                ms(timings[name].min),
                ms(cpu[name].median),
                str(conflicts[name]),
                "yes" if whole[name] else "NO",
            )
            for name in SUBJECTS
        ],
    )
    print()
    print(ratio_line("driver / baseline", timings["driver"], timings["baseline"], TARGET))
    # CPU time moves less than wall time when other work shares the machine.
    print(ratio_line("driver / baseline, CPU", cpu["driver"], cpu["baseline"], TARGET))


if __name__ == "__main__":
    main()
