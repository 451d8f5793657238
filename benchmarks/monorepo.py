"""Benchmark: package stores (`eco_mem.py init PATH`) against one store of the same entries.

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

Targets: verify and review at most 1.5x the single store; find at most 1.25x.
Nothing is asserted. Reproduce from the repository root, with copier installed
(pip install -e '.[test]'):

    python -m benchmarks.monorepo [--runs N]
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._timing import measure, ms, parse_runs, print_table, ratio_line, stdout_silenced
from benchmarks.verify import populate, timed_run
from tests.helpers import SKILL, commit_all, copy_template, init_repo, snapshot_template

DEFAULT_RUNS = 7
PACKAGES = 80
PER_STORE = {"semantic": 4, "episodic": 3, "procedural": 3}
STORE_TARGET = 1.5
FIND_TARGET = 1.25
FIND_IN = "packages/p07"


def script(root: Path) -> Path:
    return root / SKILL / "scripts/eco_mem.py"


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
            "verify, 81 stores": timed_run(command(mono, "verify", "--json"), mono),
            "verify, 1 store": timed_run(command(flat, "verify", "--json"), flat),
            "review, 81 stores": timed_run(command(mono, "review", "--json"), mono),
            "review, 1 store": timed_run(command(flat, "review", "--json"), flat),
            "find in a package": timed_run(command(mono, "find", "build"), mono / FIND_IN),
            "find at the root, 1 store": timed_run(command(pair, "find", "build"), pair),
        }
        timings = measure(subjects, runs)
    entries = sum(PER_STORE.values()) * (PACKAGES + 1)
    print(f"{PACKAGES} package stores + the root's, {entries} entries; {runs} runs each")
    print_table(
        ["subject", "median", "min"],
        [[name, ms(t.median), ms(t.min)] for name, t in timings.items()],
    )
    print(
        ratio_line("verify", timings["verify, 81 stores"], timings["verify, 1 store"], STORE_TARGET)
    )
    print(
        ratio_line("review", timings["review, 81 stores"], timings["review, 1 store"], STORE_TARGET)
    )
    print(
        ratio_line(
            "find",
            timings["find in a package"],
            timings["find at the root, 1 store"],
            FIND_TARGET,
        )
    )


if __name__ == "__main__":
    main()
