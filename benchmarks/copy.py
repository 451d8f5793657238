"""Benchmark: `copier copy` of eco-mem against a plain template of the same files.

What is measured: the wall time of `copier.run_copy(src, dst, defaults=True,
unsafe=True, quiet=True)` into a fresh git repository (one empty commit),
for two templates, each committed to a temporary git repository and tagged v1:

  eco-mem    this working tree (tests.helpers.snapshot_template): Jinja names
             and contents, the protocol extension, validators, the blocks task
  baseline   benchmarks/_templates.py: the same rendered paths and byte sizes
             as plain files, nothing to render but the answers file

Creating each destination is setup and is not timed. Runs are interleaved
(see benchmarks/_timing.py); the ratio is eco-mem over baseline, median and
min, against a target of 1.25x. Nothing is asserted.

Reproduce from the repository root, with copier installed (pip install -e '.[test]'):

    python -m benchmarks.copy [--runs N]
"""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import copier

from benchmarks._templates import plain_template, rendered_sizes
from benchmarks._timing import measure, ms, parse_runs, print_table, ratio_line
from tests.helpers import init_repo, snapshot_template

DEFAULT_RUNS = 15
TARGET = 1.25


def copier_copy(template: Path, workdir: Path):
    """A `prepare` for measure(): a fresh empty repo, then the copy to time."""
    counter = itertools.count()

    def prepare():
        dst = init_repo(workdir / f"dst-{next(counter)}")
        return lambda: copier.run_copy(str(template), dst, defaults=True, unsafe=True, quiet=True)

    return prepare


def main() -> None:
    runs = parse_runs(__doc__, DEFAULT_RUNS)
    with tempfile.TemporaryDirectory(prefix="eco-mem-bench-copy-") as tmp:
        work = Path(tmp)
        ours = snapshot_template(work / "eco-mem-template", "v1")
        sizes = rendered_sizes(ours, "v1")
        plain = plain_template(work / "plain-template", "v1", sizes)
        print(f"copier copy, {len(sizes)} files + answers file, {runs} interleaved runs each\n")
        timings = measure(
            {
                "baseline": copier_copy(plain, work / "baseline"),
                "eco-mem": copier_copy(ours, work / "eco-mem"),
            },
            runs,
        )
    print_table(
        ("template", "median", "min"),
        [(name, ms(t.median), ms(t.min)) for name, t in timings.items()],
    )
    print()
    print(ratio_line("eco-mem / baseline", timings["eco-mem"], timings["baseline"], TARGET))


if __name__ == "__main__":
    main()
