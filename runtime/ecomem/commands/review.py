"""`eco_mem.pyz review`: the store read as a whole, for rot no single write shows."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from .. import protocol
from ..errors import UsageError
from ..store.dates import parse_iso

HELP = "report memory that rotted: stale, duplicated, contradicted, gone"
DESCRIPTION = """\
Read the whole store and report what has rotted: citations that no longer hold,
verified facts that cite nothing, expired facts, old unconfirmed guesses,
duplicates, contradictions, paths and pointers that are gone, stale desks,
catalogs near their row cap, and the always-loaded surface over its budget.
In a store that marks no row [always] (one from an earlier release), it also
names the facts worded like rules, with the command that marks each, for the
user to confirm: candidates, not findings. Each finding names its entries and the command that would act on it; review
runs none of them and writes nothing. docs/review.md says what each check
looks at and what it misses.
"""
EPILOG = """\
exit codes:
  0  healthy (one line is printed)
  1  at least one finding
  2  usage or I/O error

--json prints one object:
  {"version": 1, "root": str, "today": "YYYY-MM-DD",
   "findings": [{"kind": str, "entries": [str], "message": str, "command": str}],
   "summary": {"entries": {drawer: int}, "findings": {kind: int},
               "load_bytes": int, "load_tokens": int, "load_budget": int,
               "thresholds": {name: int}},
   "rule_candidates": [{"kind": "rule-candidate", "entries": [str],
                        "message": str, "command": str}]}
  entries are repository-relative; a procedure without a file is INDEX.md#NAME.
--tidy --json prints {"version": 1, "unreviewed": int, "facts": [FACT],
  "groups": [{"shared": [str], "facts": [FACT]}]}, each FACT {"path": str,
  "title": str, "scope": str, "as_of": str, "source": str, "values": [str],
  "names": [str]}.

Thresholds: the options below, else the install's `review_thresholds` answer
(for example "unconfirmed_days=60,desk_days=7"), else the defaults shown.
"""

OPTIONS = {
    "unconfirmed_days": "a derived fact older than this many days is unconfirmed",
    "desk_days": "a desk untouched this many days is stale",
    "near_cap": "percent of a catalog's row cap that counts as near it",
    "load_budget": "bytes the always-loaded surface (SKILL.md, four INDEX files) may use",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ..review.checks import DEFAULTS

    shape = parser.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", help="print one JSON object (schema below)")
    shape.add_argument(
        "--markdown", action="store_true", help="print a Markdown report (a CI job summary)"
    )
    parser.add_argument(
        "--today", metavar="YYYY-MM-DD", help="date to judge ages by (default: today)"
    )
    parser.add_argument(
        "--suggest-cites",
        action="store_true",
        help="for each verified fact that cites nothing, propose the tracked file and line"
        " its key words point at (writes nothing); lists every uncited fact",
    )
    parser.add_argument(
        "--tidy",
        action="store_true",
        help="only list every fact, one a line (path, title, scope, as_of, source, the"
        " numbers and names it states), those that may be about one thing grouped first:"
        " judge duplicates and contradictions from it before asking the user to merge or"
        " drop one (exit 0; writes nothing)",
    )
    parser.add_argument(
        "--default-branch",
        metavar="NAME",
        help="the branch a finished task merges into (default: origin/HEAD, else main or master)",
    )
    for name, why in OPTIONS.items():
        parser.add_argument(
            "--" + name.replace("_", "-"),
            type=int,
            metavar="N",
            help=f"{why} (default {DEFAULTS[name]})",
        )


def thresholds(args: argparse.Namespace) -> dict:
    """Defaults, then the install's answer, then the options: the last one given wins."""
    from ..review.checks import DEFAULTS

    limits = dict(DEFAULTS)
    answer = getattr(protocol, "REVIEW_THRESHOLDS", "") or ""
    for part in filter(None, (piece.strip() for piece in answer.split(","))):
        name, _, value = part.partition("=")
        name = name.strip()
        if name not in limits or not value.strip().isdigit():
            known = ", ".join(limits)
            # Not echoed: the answers file is data a branch can change, and this line
            # reaches the agent that ran review.
            raise UsageError(
                f"review_thresholds answer in {protocol.ANSWERS_FILE} is not NAME=N pairs"
                f" with NAME one of {known};"
                " fix it with `copier update --data review_thresholds=...`"
            )
        limits[name] = int(value)
    for name in OPTIONS:
        value = getattr(args, name)
        if value is not None:
            if value < 0 or (name == "near_cap" and not 0 < value <= 100):
                raise UsageError(f"--{name.replace('_', '-')} {value} is out of range")
            limits[name] = value
    return limits


def run(root: Path, args: argparse.Namespace) -> int:
    from ..review import report
    from ..review.checks import Review, entries_per_drawer, rule_candidates, run_all
    from ..store import stores
    from ..store.load import load_store

    today = date.today()
    if args.today:
        today = parse_iso(args.today)
        if today is None:
            raise UsageError(f"--today {args.today!r} is not YYYY-MM-DD")
    limits = thresholds(args)
    if not (root / protocol.MEMORY_DIR).is_dir():
        raise UsageError(
            f"no memory folder at {protocol.MEMORY_DIR}; pass --root or install eco-mem"
        )
    if args.tidy:
        return tidy(root, today, limits, args.json)
    items, counts, load_bytes, candidates = [], {}, 0, []
    for memory_dir in stores.all_stores(root):  # the root's store, then each package's
        stores.use(memory_dir)
        if not (root / memory_dir).is_dir():
            continue
        store, _ = load_store(root)  # what does not fit the store's shape is verify's to say
        for line in store.unread:  # but a folder not read at all is said, or review would pass
            print(f"eco_mem.pyz review: {line}", file=sys.stderr)
        review = Review(store, today, limits, args.suggest_cites)
        found, size = run_all(review, args.default_branch)
        asked = rule_candidates(review)
        candidates += asked
        package = stores.package_of(memory_dir)
        for item in found + asked:
            if package and not item.command.startswith("git "):
                item.command += f" --store {package}"  # the command acts on this store
        items += found
        for drawer, count in entries_per_drawer(store).items():
            counts[drawer] = counts.get(drawer, 0) + count
        load_bytes = max(load_bytes, size)  # the surface of the largest store
    stores.use(stores.ROOT)
    items.sort(key=lambda item: item.key())
    facts = report.summary(counts, items, load_bytes, limits)
    if args.json:
        import json

        document = {
            "version": 1,
            "root": str(root),
            "today": today.isoformat(),
            "findings": [item.as_dict() for item in items],
            "summary": facts,
            "rule_candidates": [item.as_dict() for item in candidates],
        }
        print(json.dumps(document, indent=2))
    elif args.markdown:
        mem = f"python3 {protocol.SKILL_DIR}/scripts/eco_mem.pyz"
        print(report.as_markdown(items, facts, today.isoformat(), mem, args.suggest_cites), end="")
        print(report.candidates_markdown(candidates, mem), end="")
    else:
        print(report.as_text(items, facts, args.suggest_cites, candidates))
    return 1 if items else 0


def tidy(root: Path, today: date, limits: dict, as_json: bool) -> int:
    """Every fact of every store, one a line, candidate groups first (review/groups.py);
    nothing else is checked."""
    from ..review import groups
    from ..review.checks import Review
    from ..store import stores
    from ..store.load import load_store
    from ..store.provenance import unreviewed

    # A fact a branch brought in that no one here reviewed is named by find, never shown:
    # a tidy leaves it out, and says how many.
    branch = unreviewed(root)
    found, listed, left_out, read = [], [], 0, []
    for memory_dir in stores.all_stores(root):
        stores.use(memory_dir)
        if (root / memory_dir).is_dir():
            store, _ = load_store(root)
            facts = Review(store, today, limits).facts
            reviewed = [fact for fact in facts if branch.file(fact.relpath) is None]
            left_out += len(facts) - len(reviewed)
            found += groups.candidate_groups(reviewed)
            listed += reviewed
            read.append(memory_dir)
    stores.use(stores.ROOT)
    if as_json:
        import json

        document = {
            "version": 1,
            "groups": groups.as_dicts(found),
            "facts": [groups.as_dict(fact) for fact in listed],
            "unreviewed": left_out,
        }
        print(json.dumps(document, indent=2))
    else:
        # One store: its folder is said once, and each line names the fact by its slug.
        folder = f"{read[0]}/semantic/" if len(read) == 1 else ""
        print(groups.as_text(found, listed, folder))
        if left_out:
            print(
                f"{left_out} fact(s) a branch brought in unreviewed are left out: `find`"
                " names them, `adopt` shows them with the user's OK"
            )
    return 0
