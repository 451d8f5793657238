"""Benchmark: how many of the conventions a task must follow reach the agent at load.

The store and the tasks are in benchmarks/data/conventions.json: 20 facts about a made-up
billing service, 8 of them conventions every change (or every change under some paths)
follows, and 8 tasks, each with the words an agent would give `find`, the files it would
touch, and the conventions it must follow, labelled by hand (issue 36). Two arms over the
same facts, each rendered from the template with default answers:

  words    the store as v0.4.1 kept it, no row marked, and `find WORDS`: what the load
           step showed before rows could be marked.
  marked   the 8 conventions written with `new semantic --always [PATHS]`, and
           `find WORDS PATHS`.

A convention reached the agent when its title is in find's output. Reported per arm: the
conventions shown over those the tasks need, and the bytes find printed (median and
largest); beside them the one pile a team would keep (every row and entry body in
AGENTS.md, the rendered kit's experiment/pile.py), which shows every convention.
Nothing is asserted (tests/test_always_rows.py holds the behaviour).

From the repository root, with copier installed (pip install -e '.[test]'):

    python -m benchmarks.conventions
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from pathlib import Path

from benchmarks.read_path import always_loaded, mem, pile_bytes
from tests.helpers import commit_all, copy_template, init_repo, snapshot_template

DATA = Path(__file__).resolve().parent / "data" / "conventions.json"
ARMS = ("words", "marked")


def build(template: Path, host: Path, facts: list[dict], marked: bool) -> None:
    init_repo(host)
    copy_template(template, host)
    for fact in facts:
        args = ["new", "semantic", "--title", fact["title"], "--source", "verified"]
        args += ["--scope", fact["scope"], "--expires", "never", "--body", fact["body"]]
        if marked and "always" in fact:
            args += ["--always", fact["always"]] if fact["always"] else ["--always"]
        done = mem(host, *args)
        if done.returncode != 0:
            raise SystemExit(f"could not write {fact['title']!r}: {done.stderr.strip()}")
    commit_all(host, "memory")


def measure(host: Path, data: dict, marked: bool) -> dict:
    facts, shown, needed, printed = data["facts"], 0, 0, []
    for task in data["tasks"]:
        query = task["words"].split() + (task["paths"] if marked else [])
        output = mem(host, "find", *query).stdout
        printed.append(len(output.encode("utf-8")))
        needed += len(task["conventions"])
        shown += sum(facts[index]["title"] in output for index in task["conventions"])
    return {
        "shown": shown,
        "needed": needed,
        "median": statistics.median(printed),
        "max": max(printed),
    }


def main() -> int:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    results = {}
    with tempfile.TemporaryDirectory(prefix="eco-mem-conventions-") as tmp:
        base = Path(tmp)
        template = snapshot_template(base / "template", "v0.0.1")
        for arm in ARMS:
            host = base / arm
            build(template, host, data["facts"], arm == "marked")
            results[arm] = measure(host, data, arm == "marked")
        pile = pile_bytes(base / "words")
        loaded = always_loaded(base / "marked")
    print("| arm | conventions shown | find output, median (max) | with block and front matter |")
    print("|---|---|---|---|")
    for arm in ARMS:
        row = results[arm]
        share = f"{row['shown']}/{row['needed']} ({row['shown'] / row['needed']:.0%})"
        median = int(row["median"])
        print(f"| {arm} | {share} | {median:,} B ({row['max']:,} B) | {median + loaded:,} B |")
    print(
        f"| pile | {results['words']['needed']}/{results['words']['needed']} (100%) | - | {pile:,} B |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
