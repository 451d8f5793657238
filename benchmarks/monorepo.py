"""Benchmark: package stores (`eco_mem.pyz init PATH`) against one store of the same entries.

What is measured: the wall time of the rendered script as a subprocess, in the same
interleaved runs:

  verify, review  `verify --json` and `review --json` at the root of a synthetic
             monorepo: the root store and 80 package stores (packages/p00 ...
             packages/p79), 10 entries in each (4 facts, 3 episodes, 3 staged
             checklists, the sizes real entries have), 810 entries in all; against
             the same 810 entries in the root store of a repository without
             packages. Caps allow at most 40 rows per catalog, so that one store is
             over its caps (three caps.catalog-rows findings): it is the fairest
             single-store baseline, since a store within caps holds at most 120
             entries, and comparing 810 with 120 would measure entry count, not
             stores. Both subjects read the same bytes of entries.
  find       `find build` run in packages/p07 of the monorepo (that store, then
             the root's: 20 rows) against `find build` at the root of a repository
             whose one store holds the same 20 entries (the package's 10 and the
             root's 10). The difference is finding the stores (one `git ls-files`)
             and reading two catalogs instead of one.

Each subject is timed twice over in the same runs: wall clock, and CPU time (user +
system of the script and the git processes it waits for, from getrusage). On a machine
others share the wall clock swings with their load; CPU time is the steadier figure.

Targets: verify and review at most 1.5x the single store; find at most 1.25x.
Nothing is asserted. Reproduce from the repository root, with copier installed
(pip install -e '.[test]'):

    python -m benchmarks.monorepo [--runs N]
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._timing import Timing, ms, parse_runs, print_table, ratio_line, stdout_silenced
from benchmarks.verify import populate
from tests.helpers import SKILL, commit_all, copy_template, init_repo, snapshot_template

DEFAULT_RUNS = 7
PACKAGES = 80
PER_STORE = {"semantic": 4, "episodic": 3, "procedural": 3}
STORE_TARGET = 1.5
FIND_TARGET = 1.25
FIND_IN = "packages/p07"


def script(root: Path) -> Path:
    return root / SKILL / "scripts/eco_mem.pyz"


def run(root: Path, *args: str, cwd: Path | None = None) -> None:
    subprocess.run(
        [sys.executable, str(script(root)), *args], cwd=cwd or root, check=True, capture_output=True
    )


def monorepo(rendered: Path, target: Path) -> Path:
    """The root store and PACKAGES package stores, PER_STORE entries each, committed."""
    shutil.copytree(rendered, target, symlinks=True)
    populate(target, 0, PER_STORE, at_cap=False)
    for number in range(PACKAGES):
        package = f"packages/p{number:02d}"
        (target / package).mkdir(parents=True)
        run(target, "init", package)
        populate(target / package, 0, PER_STORE, at_cap=False)
    commit_all(target, "a monorepo with package stores")
    return target


def single(rendered: Path, target: Path, stores: int) -> Path:
    """One store holding the entries of `stores` stores of PER_STORE each."""
    shutil.copytree(rendered, target, symlinks=True)
    populate(target, 0, {drawer: count * stores for drawer, count in PER_STORE.items()}, False)
    commit_all(target, "one store")
    return target


def command(root: Path, *args: str) -> list[str]:
    return [sys.executable, str(script(root)), *args]


def main() -> None:
    runs = parse_runs(__doc__, DEFAULT_RUNS)
    with tempfile.TemporaryDirectory(prefix="eco-mem-bench-monorepo.") as scratch:
        work = Path(scratch)
        with stdout_silenced():
            template = snapshot_template(work / "template", tag="v0.0.1")
            rendered = init_repo(work / "rendered")
            copy_template(template, rendered)
            commit_all(rendered, "install eco-mem")
            mono = monorepo(rendered, work / "mono")
            flat = single(rendered, work / "flat", PACKAGES + 1)
            pair = single(rendered, work / "pair", 2)
        subjects = {
            "verify, 81 stores": (command(mono, "verify", "--json"), mono),
            "verify, 1 store": (command(flat, "verify", "--json"), flat),
            "review, 81 stores": (command(mono, "review", "--json"), mono),
            "review, 1 store": (command(flat, "review", "--json"), flat),
            "find in a package": (command(mono, "find", "build"), mono / FIND_IN),
            "find at the root, 1 store": (command(pair, "find", "build"), pair),
        }
        wall, cpu = measure_both(subjects, runs)
    entries = sum(PER_STORE.values()) * (PACKAGES + 1)
    print(f"{PACKAGES} package stores + the root's, {entries} entries; {runs} runs each")
    print_table(
        ["subject", "wall median", "wall min", "CPU median", "CPU min"],
        [
            [
                name,
                ms(wall[name].median),
                ms(wall[name].min),
                ms(cpu[name].median),
                ms(cpu[name].min),
            ]
            for name in subjects
        ],
    )
    pairs = (
        ("verify", "verify, 81 stores", "verify, 1 store", STORE_TARGET),
        ("review", "review, 81 stores", "review, 1 store", STORE_TARGET),
        ("find", "find in a package", "find at the root, 1 store", FIND_TARGET),
    )
    for label, subject, baseline, target in pairs:
        print(ratio_line(f"{label}, wall", wall[subject], wall[baseline], target))
        print(ratio_line(f"{label}, CPU", cpu[subject], cpu[baseline], target))


def measure_both(subjects: dict, runs: int) -> tuple[dict[str, Timing], dict[str, Timing]]:
    """Wall clock and CPU time of each (command, folder), interleaved as _timing.measure
    does: one untimed warm-up each, then `runs` rounds, every other one reversed."""
    names = list(subjects)
    for name in names:
        subprocess.run(subjects[name][0], cwd=subjects[name][1], capture_output=True)
    wall = {name: Timing() for name in names}
    cpu = {name: Timing() for name in names}
    for round_number in range(runs):
        for name in names if round_number % 2 == 0 else reversed(names):
            argv, folder = subjects[name]
            before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            subprocess.run(argv, cwd=folder, capture_output=True)
            wall[name].samples.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            cpu[name].samples.append(used)
    return wall, cpu


if __name__ == "__main__":
    main()
