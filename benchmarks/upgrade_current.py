"""Benchmark: `ops.py upgrade` with nothing to do, against `eco_mem.pyz verify`.

What is measured: the wall time of the rendered script as a subprocess, in the
same interleaved runs (benchmarks/_timing.py), on one freshly installed and
committed host whose answers record the template's newest tag:

  verify     python3 <skill>/scripts/eco_mem.pyz verify
  upgrade    python3 <checkout>/ops.py upgrade --root HOST   (up to date: it lists the
             template's tags with one `git ls-remote` and stops, no Copier)
  re-apply   python3 <checkout>/ops.py upgrade --root HOST --vcs-ref v0.0.1 -- --defaults
             (what an up-to-date upgrade cost before: Copier renders and compares)

The template is this working tree, committed and tagged v0.0.1 in a temporary
repository (tests.helpers.snapshot_template). Reported: median and min of each,
and upgrade over verify against the target of 1.5x (issue 28 item 8); re-apply
is shown for scale. Nothing is asserted (tests/test_update_trust.py holds the
bound loosely).

Reproduce from the repository root, with copier installed (pip install -e '.[test]'):

    python -m benchmarks.upgrade_current [--runs N]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._timing import measure, ms, parse_runs, print_table, ratio_line
from tests.helpers import SKILL, commit_all, copy_template, init_repo, snapshot_template

OPS = str(Path(__file__).resolve().parent.parent / "ops.py")
DEFAULT_RUNS = 9
TARGET = 1.5


def script_run(host: Path, *args: str):
    """A `prepare` for measure(): the rendered script with ARGS, as a user runs it."""
    if args[0] == "verify":  # the host's runtime
        command = [sys.executable, str(host / SKILL / "scripts/eco_mem.pyz"), *args]
    else:  # the operator's, from this checkout
        command = [sys.executable, OPS, args[0], "--root", str(host), *args[1:]]

    def prepare():
        return lambda: subprocess.run(
            command, cwd=host, capture_output=True, stdin=subprocess.DEVNULL, check=False
        )

    return prepare


def main() -> int:
    runs = parse_runs(__doc__.split("\n\n")[0], DEFAULT_RUNS)
    with tempfile.TemporaryDirectory(prefix="eco-mem-bench-upgrade-") as tmp:
        template = snapshot_template(Path(tmp) / "template", "v0.0.1")
        host = init_repo(Path(tmp) / "host")
        copy_template(template, host)
        commit_all(host, "install eco-mem")
        said = subprocess.run(
            [sys.executable, OPS, "upgrade", "--root", str(host)],
            cwd=host,
            capture_output=True,
            text=True,
            check=False,
        )
        timings = measure(
            {
                "verify": script_run(host, "verify"),
                "upgrade (up to date)": script_run(host, "upgrade"),
                "re-apply through Copier": script_run(
                    host, "upgrade", "--vcs-ref", "v0.0.1", "--", "--defaults"
                ),
            },
            runs,
        )
    print(f"up-to-date upgrade said: {said.stdout.strip()} (exit {said.returncode})")
    print_table(
        ("subject", "median", "min"),
        [(name, ms(t.median), ms(t.min)) for name, t in timings.items()],
    )
    print(
        ratio_line(
            "upgrade (up to date) over verify",
            timings["upgrade (up to date)"],
            timings["verify"],
            TARGET,
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
