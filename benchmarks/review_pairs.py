"""Benchmark: precision and recall of review's duplicate and contradiction checks on the
labelled pairs of benchmarks/data/review_pairs.py.

Each pair is written as two semantic entries and judged by the same code review runs on
a store (ecomem.review.pairs, from a fresh render of the template, so the rendered
protocol module is the real one). A pair's prediction is "contradiction" when the two
facts clash, "duplicate" when they repeat each other, else "none". Per kind, precision
is right predictions of that kind over all predictions of it; recall is pairs of that
kind predicted as it. "near misses flagged" counts "none" pairs predicted as anything.

HELDOUT was committed before the code was tuned (see the module's docstring); the TUNE
numbers are what the heuristics were fitted to and say little.

Reproduce from the repository root:

    python -m benchmarks.review_pairs [--show] [--tune]
"""

from __future__ import annotations

import importlib
import sys
import tempfile
from pathlib import Path

from benchmarks._timing import print_table, stdout_silenced
from benchmarks.data import review_pairs
from tests.helpers import SKILL, commit_all, copy_template, init_repo, snapshot_template

KINDS = (review_pairs.DUP, review_pairs.CON)


def load_review(work: Path):
    """The rendered `ecomem` package: its checks and pairs modules."""
    rendered = init_repo(work / "rendered")
    with stdout_silenced():
        copy_template(snapshot_template(work / "template", "v1"), rendered)
    commit_all(rendered, "eco-mem")
    sys.path.insert(0, str(rendered / SKILL / "scripts"))
    return importlib.import_module("ecomem.review.checks")


def lines_of(fact: dict) -> list[str]:
    return [
        f"# {fact['title']}",
        "",
        f"- as_of: {fact['as_of']}",
        f"- source: {fact['source']}",
        f"- scope: {fact['scope']}",
        "- expires: never",
        "",
        fact["body"] or fact["title"] + ".",
    ]


def predict(checks, first: dict, second: dict) -> str:
    facts = [
        checks.Fact(f"m/semantic/{name}.md", name, lines_of(fact), fact["title"])
        for name, fact in (("a", first), ("b", second))
    ]
    work = checks.pairs.Work()
    clashes, repeats = checks.pairs.statement_pairs(facts, work)
    if clashes:
        return review_pairs.CON
    if repeats or checks.pairs.near_identical(facts, clashes, work):
        return review_pairs.DUP
    return review_pairs.NONE


def score(checks, labelled: list) -> dict:
    predicted = [(label, predict(checks, a, b), a, b) for label, a, b in labelled]
    result = {}
    for kind in KINDS:
        said = [p for p in predicted if p[1] == kind]
        truth = [p for p in predicted if p[0] == kind]
        right = [p for p in said if p[0] == kind]
        result[kind] = (len(right), len(said), len([p for p in truth if p[1] == kind]), len(truth))
    flagged = [p for p in predicted if p[0] == review_pairs.NONE and p[1] != review_pairs.NONE]
    nones = [p for p in predicted if p[0] == review_pairs.NONE]
    result["near misses flagged"] = (len(flagged), len(nones))
    result["wrong"] = [p for p in predicted if p[0] != p[1]]
    return result


def main() -> None:
    show = "--show" in sys.argv[1:]
    sets = (("held-out", review_pairs.HELDOUT), ("tune", review_pairs.TUNE))
    if "--tune" in sys.argv[1:]:  # while tuning: the held-out pairs stay unseen
        sets = sets[1:]
    with tempfile.TemporaryDirectory(prefix="eco-mem-bench-pairs-") as tmp:
        checks = load_review(Path(tmp))
        rows = []
        for name, labelled in sets:
            result = score(checks, labelled)
            for kind in KINDS:
                right, said, found, truth = result[kind]
                precision = f"{right}/{said} ({right / said:.2f})" if said else "-"
                rows.append((name, kind, precision, f"{found}/{truth} ({found / truth:.2f})"))
            flagged, nones = result["near misses flagged"]
            rows.append((name, "near misses flagged", f"{flagged}/{nones}", ""))
            if show:
                for label, got, a, b in result["wrong"]:
                    print(f"{name}: {label} judged {got}: {a['title']!r} / {b['title']!r}")
        print_table(("pairs", "kind", "precision", "recall"), rows)


if __name__ == "__main__":
    main()
