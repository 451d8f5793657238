"""Benchmark: does one `find` hand over every rule a task must follow, for fewer bytes
than one pile of the same notes (issue 46)?

The notes are in benchmarks/data/load_rules.json: 40 facts about a made-up stock service,
15 of them rules every change follows, 8 rules for one folder each, 17 plain facts, and
8 tasks, each with the words and paths an agent would give `find` and the rules it must
follow, labelled by hand. Two stores are written THROUGH the rendered commands, as an
agent told the rules by its user writes them (`new semantic --stated-by-user --always
[PATHS]`; a plain fact `--source verified`):

  10 facts   the first ten: 7 rules for every change, 2 folder rules, 1 plain fact
  full caps  all 40: the semantic catalog at its row cap

Per task, `find WORDS PATHS` runs once. A rule reached the agent when its title and
every word of its body are on find's stdout (the entry need not be opened); a count
left unprinted ("N more") over a due rule fails it. Beside it the pile: every row and
entry body in one AGENTS.md section (the kit's experiment/pile.py, as read_path.py
measures it). Targets: every due rule on every task; the largest find stdout at most
1.25x the pile at 10 facts and 0.6x at full caps. tests/test_load_rules.py holds them.

From the repository root, with copier installed (pip install -e '.[test]'):

    python -m benchmarks.load_rules
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from benchmarks.read_path import pile_bytes
from tests.helpers import commit_all, copy_template, init_repo, snapshot_template
from tests.memory_helpers import mem

DATA = Path(__file__).resolve().parent / "data" / "load_rules.json"
TARGETS = {"10 facts": 1.25, "full caps": 0.6}


def write_args(fact: dict) -> list[str]:
    """The one command that stores a fact: a rule as the user's own, marked in the call."""
    args = ["new", "semantic", "--title", fact["title"], "--scope", fact["scope"]]
    args += ["--expires", "never", "--body", fact["body"]]
    if fact["always"] is None:
        return [*args, "--source", "verified"]
    mark = ["--always", fact["always"]] if fact["always"] else ["--always"]
    return [*args, "--stated-by-user", *mark]


def build(template: Path, host: Path, facts: list[dict]) -> int:
    """A host with `facts` written through the commands; the number of commands run."""
    init_repo(host)
    copy_template(template, host)
    for fact in facts:
        done = mem(host, *write_args(fact))
        if done.returncode != 0:
            raise SystemExit(f"could not write {fact['title']!r}: {done.stderr.strip()}")
    commit_all(host, "memory")
    return len(facts)


def handed_over(fact: dict, printed: str) -> bool:
    """Whether find's stdout holds the rule in full: its title and its body's words."""
    return fact["title"] in printed and fact["body"] in printed


def measure(host: Path, data: dict, count: int) -> dict:
    """Per task: find's stdout bytes, the due rules, those handed over in full, and any
    line that says rows were left out."""
    facts = data["facts"][:count]
    tasks = []
    for task in data["tasks"]:
        done = mem(host, "find", *task["words"].split(), *task["paths"])
        due = [index for index in task["rules"] if index < count]
        full = [index for index in due if handed_over(facts[index], done.stdout)]
        cut = [
            line
            for line in (done.stdout + done.stderr).splitlines()
            if "[always]" in line and " more" in line
        ]
        tasks.append(
            {
                "task": task["task"],
                "bytes": len(done.stdout.encode("utf-8")),
                "due": due,
                "full": full,
                "cut": cut,
            }
        )
    return {"pile": pile_bytes(host), "tasks": tasks}


def main() -> int:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    stores = {"10 facts": data["small"], "full caps": len(data["facts"])}
    results = {}
    with tempfile.TemporaryDirectory(prefix="eco-mem-load-rules-") as tmp:
        base = Path(tmp)
        template = snapshot_template(base / "template", "v0.0.1")
        for label, count in stores.items():
            host = base / label.replace(" ", "-")
            build(template, host, data["facts"][:count])
            results[label] = measure(host, data, count)
    print(
        "| store | rules handed over in full | find stdout, max (median) | pile | max/pile | target |"
    )
    print("|---|---|---|---|---|---|")
    for label, result in results.items():
        tasks = result["tasks"]
        due = sum(len(task["due"]) for task in tasks)
        full = sum(len(task["full"]) for task in tasks)
        sizes = sorted(task["bytes"] for task in tasks)
        ratio = sizes[-1] / result["pile"]
        met = "met" if ratio <= TARGETS[label] and full == due else "NOT met"
        print(
            f"| {label} | {full}/{due} | {sizes[-1]:,} B ({sizes[len(sizes) // 2]:,} B)"
            f" | {result['pile']:,} B | {ratio:.2f}x | <= {TARGETS[label]}x, {met} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
