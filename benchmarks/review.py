"""Benchmark: how well `eco_mem.pyz review` finds planted rot, and what it costs.

Quality: each planted store (benchmarks/data/review_*.py) is a set of files, catalog
rows and desk ages, with every defect listed (kind and entries) and every healthy
entry named. The store is written into a fresh render of the template, committed, and
`review --json --today TODAY` runs on it. A finding is right when a planted defect has
its kind and exactly its entries (`load`: the defect's entries among the finding's).
Precision is right findings over all findings; recall is defects found over defects
planted; "healthy flagged" counts healthy entries named by any finding other than
near-cap and load (those name a whole catalog or the loaded surface). The held-out
store was written and committed before review's code and never tuned against: it is
the honest number. The planted store was written with the code.

Cost: review's wall time against verify's on the full-caps store of
benchmarks/verify.py (3 desks, 40 rows and files per drawer, every entry at its line
cap, the citing variant), both as subprocesses of the rendered script, interleaved
(benchmarks/_timing.py). Target: review at most 2x verify.

Scale: a hostile store that ignores the caps (benchmarks/verify.py's semantic facts at
their line cap, SCALE of them, sharing every filler line), review's wall time once per
size. Target: 8,000 facts within 5x the time of 2,000 (near-linear), and 20,000 in
seconds, not minutes. Pairing goes through an inverted index (ecomem/review/pairs.py);
tests/test_review_legacy.py checks the work it does stays bounded, untimed.

Reproduce from the repository root:

    python -m benchmarks.review [--runs N] [--no-scale]
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

from benchmarks._timing import measure, ms, parse_runs, print_table, ratio_line, stdout_silenced
from benchmarks.verify import populate, timed_run, verify_command
from extensions.protocol import CAPS
from tests.helpers import (
    MEMORY,
    SKILL,
    build_files,
    commit_all,
    copy_template,
    init_repo,
    snapshot_template,
)

DEFAULT_RUNS = 5
TARGET = 2.0
SCALE = (2000, 8000, 20000)
SCALE_TARGET = 5.0  # 8,000 facts against 2,000
STORES = ("review_planted", "review_heldout")
WHOLE_CATALOG = ("near-cap", "load")


def plant(root: Path, data) -> None:
    """Write a planted store into the rendered host `root` and commit it."""
    build_files(root, data.FILES)
    for drawer, rows in data.ROWS.items():
        index = root / MEMORY / drawer / "INDEX.md"
        text = index.read_text(encoding="utf-8").rstrip("\n") + "\n"
        index.write_text(text + "".join(f"{row}\n" for row in rows), encoding="utf-8")
    today = date.fromisoformat(data.TODAY)
    noon = time.mktime(today.timetuple()) + 12 * 3600
    for relpath, days in data.DESK_AGE_DAYS.items():
        stamp = noon - days * 86400
        os.utime(root / relpath, (stamp, stamp))
    commit_all(root, "planted store")


def review_command(script: Path, root: Path, *args: str) -> list[str]:
    return [sys.executable, str(script), "review", "--root", str(root), *args]


def score(report: dict, data) -> dict:
    findings = report["findings"]

    def matches(finding: dict, defect: dict) -> bool:
        if finding["kind"] != defect["kind"]:
            return False
        if finding["kind"] == "load":
            return set(defect["entries"]) <= set(finding["entries"])
        return sorted(finding["entries"]) == sorted(defect["entries"])

    right = [f for f in findings if any(matches(f, d) for d in data.DEFECTS)]
    found = [d for d in data.DEFECTS if any(matches(f, d) for f in findings)]
    healthy = set(data.HEALTHY)
    flagged = sorted(
        {e for f in findings if f["kind"] not in WHOLE_CATALOG for e in f["entries"]} & healthy
    )
    return {
        "findings": len(findings),
        "right": len(right),
        "defects": len(data.DEFECTS),
        "found": len(found),
        "precision": len(right) / len(findings) if findings else 1.0,
        "recall": len(found) / len(data.DEFECTS),
        "healthy_flagged": flagged,
        "wrong": [f for f in findings if f not in right],
        "missed": [d for d in data.DEFECTS if d not in found],
    }


def run_store(rendered: Path, work: Path, name: str) -> dict:
    data = importlib.import_module(f"benchmarks.data.{name}")
    host = shutil.copytree(rendered, work / name, symlinks=True)
    plant(host, data)
    script = host / SKILL / "scripts/eco_mem.pyz"
    extra = getattr(data, "ARGS", [])
    command = review_command(script, host, "--json", "--today", data.TODAY, *extra)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return score(json.loads(done.stdout), data)


def scale(rendered: Path, work: Path) -> None:
    """review's time on stores of SCALE facts, caps bypassed."""
    seconds = {}
    for count in SCALE:
        host = shutil.copytree(rendered, work / f"scale-{count}", symlinks=True)
        populate(host, 0, {"semantic": count}, True, False)
        script = host / SKILL / "scripts/eco_mem.pyz"
        started = time.perf_counter()
        subprocess.run(review_command(script, host, "--json"), capture_output=True, check=False)
        seconds[count] = time.perf_counter() - started
        shutil.rmtree(host)
    print_table(
        ("facts", "review", "per fact"),
        [(str(n), f"{t:.2f} s", f"{t / n * 1000:.2f} ms") for n, t in seconds.items()],
    )
    grown = seconds[8000] / seconds[2000]
    verdict = "within target" if grown <= SCALE_TARGET else "OVER TARGET"
    print(f"8,000 / 2,000 facts: {grown:.2f}x (target <= {SCALE_TARGET:.1f}x: {verdict})")


def main() -> None:
    with_scale = "--no-scale" not in sys.argv[1:]
    if not with_scale:
        sys.argv.remove("--no-scale")
    runs = parse_runs(__doc__, DEFAULT_RUNS)
    with tempfile.TemporaryDirectory(prefix="eco-mem-bench-review-") as tmp:
        work = Path(tmp)
        rendered = init_repo(work / "rendered")
        with stdout_silenced():
            copy_template(snapshot_template(work / "template", "v1"), rendered)
        commit_all(rendered, "eco-mem")

        rows = []
        for name in STORES:
            result = run_store(rendered, work, name)
            rows.append(
                (
                    name,
                    f"{result['found']}/{result['defects']}",
                    f"{result['recall']:.2f}",
                    f"{result['right']}/{result['findings']}",
                    f"{result['precision']:.2f}",
                    str(len(result["healthy_flagged"])),
                )
            )
            for finding in result["wrong"]:
                print(f"{name}: not planted: {finding['kind']} {finding['entries']}")
            for defect in result["missed"]:
                print(f"{name}: missed: {defect['kind']} {defect['entries']}")
        print_table(("store", "found", "recall", "right", "precision", "healthy flagged"), rows)
        print()

        full = shutil.copytree(rendered, work / "full-caps", symlinks=True)
        per_drawer = {
            drawer: CAPS["catalog_rows"] for drawer in ("semantic", "episodic", "procedural")
        }
        populate(full, CAPS["desks"], per_drawer, True, True)
        commit_all(full, "full caps")
        script = full / SKILL / "scripts/eco_mem.pyz"
        commands = {
            "verify, full caps": verify_command(script, full),
            "review, full caps": review_command(script, full, "--json"),
        }
        timings = measure({label: timed_run(cmd) for label, cmd in commands.items()}, runs)
        print_table(
            ("subject", "median", "min"),
            [(label, ms(t.median), ms(t.min)) for label, t in timings.items()],
        )
        report = json.loads(
            subprocess.run(commands["review, full caps"], capture_output=True).stdout
        )
        kinds = {k: n for k, n in report["summary"]["findings"].items() if n}
        print(f"review findings at full caps: {kinds or 'none'}")
        print(
            ratio_line(
                "review / verify, full caps",
                timings["review, full caps"],
                timings["verify, full caps"],
                TARGET,
            )
        )
        if with_scale:
            print()
            scale(rendered, work)


if __name__ == "__main__":
    main()
