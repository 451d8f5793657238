"""Top-3 recall of `eco_mem.pyz find` on a 20-fact store.

The store and the queries are in benchmarks/data/find_recall.json: twenty facts with a
title, a scope and a one-line body, and queries phrased the way an agent types them,
each naming the fact that answers it. The template is rendered with default answers
into a temporary git repository, the facts are written with the rendered `new semantic`,
and each query runs `find WORDS --json --all` as a subprocess. A query is a hit when its
fact is among the first three rows. Two query sets: `queries`, written with the facts in
view (an upper bound), and `held_out`, written from a one-line question per fact by
someone who never saw the stored text. Nothing is asserted (tests/test_find_recall.py holds
the floor).

From the repository root (TEMPLATE defaults to this working tree; pass another
checkout, such as `git archive main | tar -x -C /tmp/main`, to compare):

    python -m benchmarks.find_recall [--template TEMPLATE] [--show]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import copier

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data" / "find_recall.json"
SCRIPT = ".agents/skills/eco-mem/scripts/eco_mem.pyz"
TOP = 3


def load() -> dict:
    return json.loads(DATA.read_text(encoding="utf-8"))


def build_store(template: Path, host: Path, facts: list[dict]) -> list[str]:
    """Render the template into `host`, write the facts; return each fact's entry path."""
    subprocess.run(["git", "init", "-q", str(host)], check=True)
    copier.run_copy(str(template), host, defaults=True, unsafe=True, quiet=True, skip_tasks=True)
    paths = []
    for fact in facts:
        args = ["new", "semantic", "--title", fact["title"], "--source", "verified"]
        args += ["--scope", fact["scope"], "--expires", "never", "--body", fact["body"]]
        done = run(host, *args)
        if done.returncode != 0:
            raise SystemExit(f"could not write {fact['title']!r}: {done.stderr.strip()}")
        paths.append(done.stdout.split(": ", 1)[1].split(", ")[0])
    return paths


def run(host: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(host / SCRIPT), *args],
        cwd=host,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def ranked(host: Path, query: str) -> list[str]:
    found = run(host, "find", *query.split(), "--json", "--all")
    return [row["path"] for row in json.loads(found.stdout)["rows"]]


QUERY_SETS = ("queries", "held_out")


def recall(template: Path) -> dict[str, tuple[int, int, list[str]]]:
    """For each query set: (hits in the top 3, queries, one line per miss)."""
    data = load()
    results = {}
    with tempfile.TemporaryDirectory(prefix="eco-mem-find-") as tmp:
        host = Path(tmp) / "host"
        paths = build_store(template, host, data["facts"])
        for name in QUERY_SETS:
            misses = []
            hits = 0
            for query, answer in data[name]:
                rows = ranked(host, query)
                if paths[answer] in rows[:TOP]:
                    hits += 1
                else:
                    where = rows.index(paths[answer]) + 1 if paths[answer] in rows else "-"
                    misses.append(
                        f"{query!r}: wanted {paths[answer]} (rank {where}, {len(rows)} rows)"
                    )
            results[name] = (hits, len(data[name]), misses)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--template", type=Path, default=ROOT, help="template folder or repo")
    parser.add_argument("--show", action="store_true", help="list every miss")
    args = parser.parse_args()
    for name, (hits, total, misses) in recall(args.template).items():
        if args.show:
            print("\n".join(misses))
        print(f"{name}: top-{TOP} recall {hits}/{total} = {hits / total:.0%} ({args.template})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
