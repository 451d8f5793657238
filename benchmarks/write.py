"""Benchmark: one memory write (`eco_mem.pyz new semantic`) against start-up and an older render.

What is measured: the wall time of the rendered script as a subprocess writing one fact
(`new semantic … --body …`: lock, load, gate, the ignore check, the journaled write),
against `python3 -c pass` (interpreter start-up) in the same interleaved runs. With
`--against REF`, the template as it was at git ref REF of this repository is rendered
beside this working tree's, and the same write is timed there too, so the cost a change
adds to a write is a ratio measured in one run. Untimed between runs: the fact is
forgotten again, so every run writes into the same store (the default render, committed).

Nothing is asserted. Reproduce from the repository root:

    python -m benchmarks.write [--runs N] [--against REF]
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._timing import measure, ms, parse_runs, print_table, stdout_silenced
from tests.helpers import PROJECT, SKILL, commit_all, copy_template, init_repo, snapshot_template

DEFAULT_RUNS = 21
FACT = (
    *("new", "semantic", "--title", "Deploys need a signed tag", "--source", "verified"),
    *("--scope", "ci", "--expires", "never", "--body", "Checked in the release workflow."),
)
SLUG = "deploys-need-a-signed-tag"


def against() -> str | None:
    if "--against" not in sys.argv:
        return None
    at = sys.argv.index("--against")
    ref = sys.argv[at + 1]
    del sys.argv[at : at + 2]  # parse_runs owns the rest of the command line
    return ref


def template_at(ref: str, folder: Path) -> Path:
    """This repository's template at `ref`, committed and tagged in `folder`."""
    init_repo(folder)
    archive = subprocess.run(
        ["git", "archive", ref, "copier.yml", "template", "extensions"],
        cwd=PROJECT,
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    commit_all(folder, f"template at {ref}")
    subprocess.run(["git", "tag", "v1"], cwd=folder, check=True)
    return folder


def render(template: Path, host: Path) -> Path:
    init_repo(host)
    with stdout_silenced():
        copy_template(template, host)
    commit_all(host, "eco-mem")
    return host


def write_subject(host: Path):
    script = [sys.executable, str(host / SKILL / "scripts/eco_mem.pyz")]

    def prepare():
        if (host / ".agents/memory/semantic" / f"{SLUG}.md").exists():
            subprocess.run([*script, "forget", SLUG], cwd=host, capture_output=True, check=True)

        def action() -> None:
            subprocess.run([*script, *FACT], cwd=host, capture_output=True, check=True)

        return action

    return prepare


def startup():
    def prepare():
        return lambda: subprocess.run([sys.executable, "-c", "pass"], check=True)

    return prepare


def main() -> None:
    ref = against()
    runs = parse_runs(__doc__, DEFAULT_RUNS)
    with tempfile.TemporaryDirectory(prefix="eco-mem-bench-write-") as tmp:
        work = Path(tmp)
        subjects = {"python3 -c pass": startup()}
        ours = render(snapshot_template(work / "template", "v1"), work / "ours")
        subjects["new semantic, this tree"] = write_subject(ours)
        if ref:
            older = render(template_at(ref, work / "older-template"), work / "older")
            subjects[f"new semantic, {ref}"] = write_subject(older)
        print(f"one memory write, {runs} interleaved runs each, {sys.executable}\n")
        timings = measure(subjects, runs)
    base = timings["python3 -c pass"]
    rows = [
        (label, ms(timing.median), ms(timing.min), f"{timing.median / base.median:.2f}x")
        for label, timing in timings.items()
    ]
    print_table(("subject", "median", "min", "/ start-up"), rows)
    if ref:
        ratio = timings["new semantic, this tree"].median / timings[f"new semantic, {ref}"].median
        print(f"\nthis tree / {ref}: {ratio:.2f}x (median over median)")


if __name__ == "__main__":
    main()
