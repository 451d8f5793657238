"""Benchmark: `eco_mem.pyz context`, the digest Claude Code's SessionStart hook prints.

What is measured: the wall time of the rendered script as a subprocess, run the way the
hook runs it (`python3 -S <skill>/scripts/eco_mem.pyz context`, without the shell around
it), against interpreter start-up in the same interleaved runs: `python3 -S -c pass`
(start-up with the same flag, the target's baseline) and `python3 -c pass` (start-up as
any Python hook pays it). The interpreter is the one running this benchmark
(sys.executable), so a pyenv shim does not add its own start-up to both sides.

The template is rendered once with default answers into a temporary git repository and
committed; the stores are copies of it:

  no desk     the fresh install: the digest is the pointer alone
  full caps   the full-caps store of benchmarks.verify: 3 desks of 80 lines (a short
              Next and Open each) and 40 entries with their rows in each other drawer
  full desks  3 desks at their 80-line cap with every line in Next or Open, each line
              100 characters: the largest digest the caps allow for ordinary lines

Reported: median and min per store, the ratio of each store's median over both
baselines (target: within 2x start-up), and the digest's size in bytes for each store
against the budget (commands/context.py BUDGET; each desk is cut to its share of it, so
no store's digest outgrows it). When valgrind is installed,
each subject's instruction count too (`valgrind --tool=callgrind`, one run each): unlike
wall time it does not move with the machine's load. Nothing is asserted.

Reproduce from the repository root, with copier installed (pip install -e '.[test]'):

    python -m benchmarks.context [--runs N]
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._timing import measure, ms, parse_runs, print_table, ratio_line, stdout_silenced
from benchmarks.verify import populate
from extensions.protocol import CAPS
from tests.helpers import MEMORY, SKILL, commit_all, copy_template, init_repo, snapshot_template

DEFAULT_RUNS = 21
TARGET = 2.0
BARE = "python3 -S -c pass"
SITE = "python3 -c pass"


def full_desks(root: Path) -> None:
    """CAPS['desks'] desks, each CAPS['desk_lines'] long, every line past the goal in Next
    or Open and 100 characters wide."""
    cap = CAPS["desk_lines"]
    for n in range(CAPS["desks"]):
        head = [f"# Task {n}: the largest desk", "", "## Goal", f"Goal {n}.", "", "## Next"]
        room = cap - len(head) - 2  # the blank line and `## Open`
        steps = [f"- step {k:02d} " + "x" * 90 for k in range(room // 2)]
        opened = [f"- path/{k:02d} " + "y" * 90 for k in range(room - room // 2)]
        lines = [*head, *steps, "", "## Open", *opened]
        assert len(lines) == cap
        (root / MEMORY / f"working/task-{n}.md").write_text("\n".join(lines) + "\n")


def instructions(command: list[str]) -> int | None:
    """Instructions the process executes, counted by callgrind; None without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    counted = subprocess.run(
        [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *command],
        capture_output=True,
        text=True,
        check=False,
    )
    for line in counted.stderr.splitlines():
        if "Collected :" in line:
            return int(line.rsplit(":", 1)[1])
    return None


def digest_size(command: list[str]) -> int:
    return len(subprocess.run(command, capture_output=True, check=True).stdout)


def main() -> None:
    runs = parse_runs(__doc__, DEFAULT_RUNS)
    with tempfile.TemporaryDirectory(prefix="eco-mem-bench-context-") as tmp:
        work = Path(tmp)
        rendered = init_repo(work / "rendered")
        with stdout_silenced():  # the blocks task prints what it wrote
            copy_template(snapshot_template(work / "template", "v1"), rendered)
        commit_all(rendered, "eco-mem")

        stores = {"no desk": shutil.copytree(rendered, work / "none", symlinks=True)}
        stores["full caps"] = shutil.copytree(rendered, work / "caps", symlinks=True)
        full = {drawer: CAPS["catalog_rows"] for drawer in ("semantic", "episodic", "procedural")}
        populate(stores["full caps"], CAPS["desks"], full)
        stores["full desks"] = shutil.copytree(rendered, work / "desks", symlinks=True)
        full_desks(stores["full desks"])

        python = sys.executable
        commands = {BARE: [python, "-S", "-c", "pass"], SITE: [python, "-c", "pass"]}
        for label, store in stores.items():
            commands[label] = [python, "-S", str(store / SKILL / "scripts/eco_mem.pyz"), "context"]
        sizes = {label: digest_size(commands[label]) for label in stores}

        def timed(command: list[str]):
            return lambda: lambda: subprocess.run(command, capture_output=True, check=False)

        timings = measure({label: timed(command) for label, command in commands.items()}, runs)
        counts = {label: instructions(command) for label, command in commands.items()}

    budget = _budget()
    print(f"eco_mem.pyz context, {runs} interleaved runs each ({python})")
    rows = []
    for label, timing in timings.items():
        size = f"{sizes[label]} B" if label in sizes else ""
        rows.append([label, ms(timing.median), ms(timing.min), size])
    print_table(["subject", "median", "min", "digest"], rows)
    print(f"digest budget: {budget} B (each desk cut to its share)")
    for label in stores:
        for baseline in (BARE, SITE):
            line = ratio_line(f"{label} / {baseline}", timings[label], timings[baseline], TARGET)
            print(line)
    if all(counts.values()):
        print("instructions (callgrind, one run each):")
        for label, count in counts.items():
            ratio = f"  {count / counts[BARE]:.2f}x {BARE}" if label in stores else ""
            print(f"  {label}: {count / 1e6:.1f} M{ratio}")


def _budget() -> int:
    source = Path(__file__).resolve().parent.parent / "runtime/ecomem/commands/context.py"
    for line in source.read_text(encoding="utf-8").splitlines():
        if line.startswith("BUDGET = "):
            return int(line.split("=")[1])
    raise SystemExit("BUDGET not found in commands/context.py")


if __name__ == "__main__":
    main()
