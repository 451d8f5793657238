"""Shared timing for the benchmarks: interleaved runs, median and min, one table.

A subject is a `prepare` callable: it does any setup that must not be timed
(a fresh destination repository, say) and returns the zero-argument action to
time. `measure` runs every subject once as an untimed warm-up (imports, disk
cache), then `runs` rounds; each round runs every subject once, reversing the
order on odd rounds, so drift in machine load lands on baseline and subject
alike. Timings are wall clock (`time.perf_counter`). Setup and actions run
with stdout sent to /dev/null: Copier tasks print even when Copier is quiet.

Nothing here asserts a timing: the scripts print measurements and a target.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

Action = Callable[[], object]
Prepare = Callable[[], Action]


@dataclass
class Timing:
    samples: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        return min(self.samples)


def measure(subjects: Mapping[str, Prepare], runs: int) -> dict[str, Timing]:
    """Time each subject `runs` times, interleaved with the others."""
    names = list(subjects)
    for name in names:  # warm-up, not recorded
        with stdout_silenced():
            subjects[name]()()
    timings = {name: Timing() for name in names}
    for round_number in range(runs):
        for name in names if round_number % 2 == 0 else reversed(names):
            with stdout_silenced():
                action = subjects[name]()
                start = time.perf_counter()
                action()
                timings[name].samples.append(time.perf_counter() - start)
    return timings


@contextlib.contextmanager
def stdout_silenced():
    """Point file descriptor 1 at /dev/null, so subprocesses (Copier tasks) print nothing."""
    sys.stdout.flush()
    saved = os.dup(1)
    with open(os.devnull, "wb") as devnull:
        os.dup2(devnull.fileno(), 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def parse_runs(description: str, default: int) -> int:
    """`--runs N` from the command line; the module docstring is the --help text."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--runs", type=int, default=default, help=f"timed runs per subject (default {default})"
    )
    runs = parser.parse_args().runs
    if runs < 1:
        parser.error("--runs must be at least 1")
    return runs


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def ratio_line(label: str, subject: Timing, baseline: Timing, target: float) -> str:
    """`label: 1.12x median, 1.10x min (target <= 1.25x)`."""
    median, minimum = subject.median / baseline.median, subject.min / baseline.min
    verdict = "within" if median <= target else "OVER"
    return (
        f"{label}: {median:.2f}x median, {minimum:.2f}x min"
        f" (target <= {target:.2f}x: {verdict} target)"
    )


def print_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """A plain-text table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            str(cell).ljust(width) if i == 0 else str(cell).rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths))
        ]
        return "  ".join(parts)

    print(line(headers))
    print("  ".join("-" * width for width in widths))
    for row in rows:
        print(line(row))
