"""Benchmark: the bytes a task reads to use memory, eco-mem's read path against one pile.

Two arms over the same store (issue 30):

  eco-mem  what a task that only reads memory takes in: the AGENTS.md block and the
           skill's front matter (both always loaded by the harness), the output of
           `find WORDS`, and the first two entries find names (an agent opens one or
           two at most). When find prints nothing, the four INDEX files are added
           (the protocol's fallback).
  pile     one AGENTS.md section holding every catalog row and every entry body, the
           way a team keeps notes without eco-mem. It is built by the rendered kit's
           own experiment/pile.py, the same pile `experiment plant ab` writes.

The template is rendered with default answers into a temporary git repository. Each store
starts with the 20 facts of benchmarks/data/find_recall.json (written with the rendered
`new semantic`) and adds ordinary entries from benchmarks.verify.populate, spread over
semantic, episodic and procedural: 20, 80 and 160 entries (160 is past the 40-row catalog
cap, as a store that never archived is), then "full caps": 40 rows in each durable
drawer, every added entry at its line cap. find runs once per query of find_recall.json's
`queries` (20 of them); the eco-mem arm is reported as the median and the largest over
the queries. Nothing is asserted; targets: median at most 0.5x the pile at 20 entries,
at most 0.1x at full caps.

From the repository root, with copier installed (pip install -e '.[test]'):

    python -m benchmarks.read_path
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.find_recall import DATA
from benchmarks.verify import populate
from extensions.protocol import CAPS
from tests.helpers import MEMORY, SKILL, commit_all, copy_template, init_repo, snapshot_template

DRAWERS = ("working", "semantic", "episodic", "procedural")
ENTRIES_OPENED = 2
TARGETS = {20: 0.5, "full caps": 0.1}


def mem(host: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(host / SKILL / "scripts/eco_mem.pyz"), *args],
        cwd=host,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def add_real_facts(host: Path, facts: list[dict]) -> None:
    for fact in facts:
        args = ["new", "semantic", "--title", fact["title"], "--source", "verified"]
        args += ["--scope", fact["scope"], "--expires", "never", "--body", fact["body"]]
        done = mem(host, *args)
        if done.returncode != 0:
            raise SystemExit(f"could not write {fact['title']!r}: {done.stderr.strip()}")


def spread(extra: int) -> dict[str, int]:
    """`extra` entries over the three durable drawers, semantic first."""
    third, rest = divmod(extra, 3)
    return {"semantic": third + rest, "episodic": third, "procedural": third}


def always_loaded(host: Path) -> int:
    """The AGENTS.md block and SKILL.md's front matter: what every session is handed."""
    agents = (host / "AGENTS.md").read_text(encoding="utf-8")
    begin, end = "<!-- eco-mem:begin -->", "<!-- eco-mem:end -->"
    block = agents[agents.index(begin) : agents.index(end) + len(end) + 1]
    skill = (host / SKILL / "SKILL.md").read_text(encoding="utf-8")
    front = skill[: skill.index("\n---\n", 4) + 5]
    return len(block.encode()) + len(front.encode())


def read_path(host: Path, query: str) -> int:
    """Bytes of find's output, the entries it names first, and the INDEX fallback."""
    printed = mem(host, "find", *query.split()).stdout
    rows = json.loads(mem(host, "find", *query.split(), "--json").stdout)["rows"]
    total = len(printed.encode())
    opened = [row["path"] for row in rows if (host / row["path"]).is_file()][:ENTRIES_OPENED]
    total += sum((host / path).stat().st_size for path in opened)
    if not rows:
        total += sum((host / MEMORY / d / "INDEX.md").stat().st_size for d in DRAWERS)
    return total


# The kit is the operator's (eco_mem_ops, beside the template), over this checkout's
# runtime; the host's answers reach it through settle. In a process of its own, since
# this one may already hold another `ecomem` (a rendered host's, imported by a test).
PILE_SIZE = """
import sys
from eco_mem_ops import runtime
runtime.use_release_runtime()
from ecomem.store.answers import settle
settle(sys.argv[1])
from eco_mem_ops.experiment.pile import pile_text
print(len(pile_text(sys.argv[1]).encode("utf-8")))
"""


def pile_bytes(host: Path) -> int:
    checkout = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [
            sys.executable,
            "-I",
            "-B",  # it imports the template's own runtime: no __pycache__ may land there
            "-c",
            f"import sys; sys.path.insert(0, {str(checkout)!r})\n" + PILE_SIZE,
            str(host),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def measure_store(base: Path, folder: Path, data: dict, label, extra: dict, at_cap: bool) -> dict:
    host = folder / f"store-{label}".replace(" ", "-")
    shutil.copytree(base, host, symlinks=True)
    add_real_facts(host, data["facts"])
    entries = len(data["facts"]) + populate(host, 0, extra, at_cap=at_cap)
    commit_all(host, f"store {label}")
    loaded = always_loaded(host)
    paths = sorted(loaded + read_path(host, query) for query, _answer in data["queries"])
    pile = pile_bytes(host)
    median = statistics.median(paths)
    return {
        "store": label,
        "entries": entries,
        "pile": pile,
        "always_loaded": loaded,
        "median": median,
        "max": paths[-1],
        "ratio": median / pile,
        "target": TARGETS.get(label),
    }


def main() -> int:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    real = len(data["facts"])
    cap = CAPS["catalog_rows"]
    stores = [(n, spread(n - real), False) for n in (20, 80, 160)]
    stores.append(("full caps", {"semantic": cap - real, "episodic": cap, "procedural": cap}, True))
    with tempfile.TemporaryDirectory(prefix="eco-mem-read-path-") as tmp:
        folder = Path(tmp)
        template = snapshot_template(folder / "template", "v0.0.1")
        base = init_repo(folder / "base")
        copy_template(template, base)
        commit_all(base, "install eco-mem")
        results = [measure_store(base, folder, data, *store) for store in stores]
    print(
        "| store | entries | pile (AGENTS.md) | eco-mem read path, median (max) | ratio | target |"
    )
    print("|---|---|---|---|---|---|")
    for row in results:
        target = "-"
        if row["target"] is not None:
            met = "met" if row["ratio"] <= row["target"] else "NOT met"
            target = f"<= {row['target']}x, {met}"
        print(
            f"| {row['store']} | {row['entries']} | {row['pile']:,} B"
            f" | {row['median']:,.0f} B ({row['max']:,} B) | {row['ratio']:.2f}x"
            f" | {target} |"
        )
    print(
        f"always loaded in every eco-mem row: {results[0]['always_loaded']} B (block + front matter)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
