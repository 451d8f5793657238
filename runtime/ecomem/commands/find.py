"""`find`: search the catalogs, the INDEX-first read, and hand over the rules that apply.

A row matches a word when the row holds it, or the entry file behind the row does (a
fact's scope and body), by substring or by word stem: `translations` finds "translated".
Only catalog rows are printed for a search, so a search word cannot pull an entry's
text to the reader. The one entry text printed is a rule's: under each row marked
[always] that applies to the task, its entry's prose (read_rules), every one of them,
with text the injection rule flags withheld as a cell is. Entries are read (read_unseen) only as regular files inside their drawer, never
a link, a FIFO or a row leading out, from no drawer or memory folder that a link takes
out of its place (store/place.py), and without moving their access time: the
experiment kit judges which entries an agent opened by atime. The entries of the rows
shown are also checked for their cites lines, so a row whose evidence is gone says so
(check_evidence) by path and verdict: the text a cites line quotes is never printed.
A cell that verify's injection rule flags (a row written by hand, past the write gate)
is withheld from the output, named as withheld, rather than handed to the reader.
The desks have no rows: each open desk is listed from its own file, by its heading
and goal line only, ahead of every row; at most the desk cap of them (then how many
more), so a commit that plants thousands of desks cannot flood the reader.
A desk, row or entry that no review passed and no memory command of this clone wrote
(store/provenance.py) is named apart, after the rows, by its origin and never its text.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from .. import protocol
from ..paths import escapes
from ..store.always import CELL as MARKED_CELL
from ..store.always import applies, malformed, mark_of, scope_folder, task_paths, unmarked
from ..store.catalog import NO_FILE, cell_path, parse_catalog
from ..store.desks import desk_summary, read_desks
from ..store.load import INDEX
from ..store.names import WITHHELD as WITHHELD_NAME
from ..store.names import is_slug_file
from ..store.place import refused
from ..store.rows import cell
from ..text.textfile import read_lines
from ..text.words import GRAMMAR, stem

WORD = re.compile(r"\w+")
EXTENSION = re.compile(r"(?<=\w)\.[A-Za-z]\w{0,7}$")
# Words that would match nearly every row and rank nothing: the grammar words.
STOPWORDS = GRAMMAR
SHOWN_PATH = 120  # a longer cited path is named by its line instead
MAX_PROBLEMS = 10  # lines about files not read; verify lists every one
ENTRY_LINES = 120  # every entry at its line cap fits; more is never needed to rank


def stems(text: str) -> set[str]:
    return {stem(word) for word in WORD.findall(text)}


def matches(term: str, text: str, text_stems: set[str]) -> bool:
    """A substring (deploy finds deploys) or the same stem (translations finds translated)."""
    return term in text or stem(term) in text_stems


def entry_text(path: Path, past_caps: list | None = None) -> str:
    """What an entry says, lowercased, or "" when it is not a plain file to read or is
    past the caps (`past_caps` then gets why: text/textfile.py).

    read_unseen opens only a regular file (never a symlink or FIFO) and leaves its access
    time as it was: the experiment kit's witness of what an agent read.
    """
    from ..text.textfile import read_unseen

    lines = read_unseen(path, past_caps)
    return "\n".join(lines[:ENTRY_LINES]).lower() if lines else ""


def query_terms(words: list[str]) -> list[str]:
    # A path's words search (`src/api/users.py`: src, api, users), its extension does not:
    # `md` or `py` would match every row's file cell.
    words = [
        EXTENSION.sub("", word) if "/" in word or EXTENSION.search(word) else word for word in words
    ]
    found = WORD.findall(" ".join(words).lower())
    useful = [word for word in found if word not in STOPWORDS]
    return list(dict.fromkeys(useful or found))


class Match:
    __slots__ = (
        "always",
        "cells",
        "drawer",
        "gone",
        "hit",
        "line",
        "origin",
        "path",
        "rank",
        "rule",
        "store",
        "withheld",
    )

    def __init__(self, drawer: str, line: int, path: str, cells: dict, rank: tuple) -> None:
        self.drawer, self.line, self.path, self.cells, self.rank = drawer, line, path, cells, rank
        self.always = None  # the path patterns of a row marked [always] ([] for every change)
        self.hit = True  # whether the query's words found it (a marked row is kept anyway)
        self.gone: list[str] = []  # citations whose evidence is gone (check_evidence)
        self.withheld: list[str] = []  # cells not shown: they speak to the agent
        self.store = protocol.MEMORY_DIR  # the store whose catalog holds the row
        self.origin = None  # a provenance.Origin when a branch brought it in unreviewed
        self.rule: list[str] = []  # an applying [always] row's entry prose (read_rules)

    def as_text(self, shown: str | None = None, store: str | None = None) -> str:
        """The row as one line; `shown` is its path as it reads from the working folder,
        `store` the store's name when more than one store is read."""
        values = [value for name, value in self.cells.items() if name != "file"]
        if values and self.path.endswith(f"/{values[0]}.md"):
            values = values[1:]  # a slug the path already ends in: the row reads without it
        flag = [f"EVIDENCE GONE, a hint until re-checked: {'; '.join(self.gone)}"]
        path = self.path if shown is None or self.path == WITHHELD else shown
        first = [f"[{store}]"] if store else []
        # Cells escape their pipes as the catalog does, so ` | ` only ever separates cells.
        return " | ".join(
            first + [cell(value) for value in [path, *values, *(flag if self.gone else [])]]
        )

    def as_dict(self) -> dict:
        from ..store.stores import label

        return {
            "store": label(self.store),
            "drawer": self.drawer,
            "path": self.path,
            "line": self.line,
            "cells": self.cells,
            "evidence_gone": self.gone,
            "withheld": self.withheld,
            "always": self.always,
            "rule": self.rule,
        }


WITHHELD = "[withheld: verify flags this cell as text addressed to the agent]"
WITHHELD_RULE = "[withheld: verify flags this entry's text as addressed to the agent]"
UNREAD_RULE = "[rule text not read: its entry is missing, a link or past the caps; run verify]"


def read_rules(root: Path, rules: list[Match]) -> None:
    """Give each rule that applies its entry's prose (store/rule_text.py), to print under
    its row: the rule's own words, so no entry needs opening to follow it. Every rule
    gets its text; none is dropped for a count, since verify bounds their bytes
    (rules/always_budget.py). Only an entry file in the row's own drawer is read, without
    moving its access time; a pointer row's target is code, not a rule's text. Text the
    injection rule flags is withheld, as a cell is."""
    from ..store.rule_text import prose
    from ..text.injection import scan
    from ..text.textfile import read_unseen

    for match in rules:
        if match.path == WITHHELD or not match.path.startswith(f"{match.store}/{match.drawer}/"):
            continue
        lines = read_unseen(root / match.path)
        if lines is None:  # said here, on stdout beside the rule, not only among problems
            match.rule = [UNREAD_RULE]
            continue
        said = prose(lines[:ENTRY_LINES])
        match.rule = [WITHHELD_RULE] if said and scan(match.path, said) else said


def withhold_orders(matches: list[Match]) -> None:
    """Replace every shown cell that the injection rule flags, and name it as withheld. A
    row marked [always] reaches every session unasked: its marked cell is held back on
    the rule's strictest reading (store/always.py's held_back), its slug still named."""
    from ..store.always import HELD_BACK, held_back
    from ..text.injection import scan

    for match in matches:
        column = MARKED_CELL.get(match.drawer)
        if match.always is not None and held_back(match.cells.get(column, "")):
            match.cells[column] = HELD_BACK
            match.withheld.append(column)
        if scan(match.path, [match.path]):  # a pointer row's path is its points-to cell
            match.path = WITHHELD
            match.withheld.append("path")
        for name, value in match.cells.items():
            # A marked cell is judged with its mark and without: `[always] ` must not
            # carry an order past the rule as a lead-in it does not know.
            rest = unmarked(value)
            judged = [value] if rest is value else [value, rest]
            if value and value != HELD_BACK and (scan(match.path, judged) or malformed(value)):
                match.cells[name] = WITHHELD
                match.withheld.append(name)


def check_evidence(root: Path, matches: list[Match]) -> None:
    """Flag the rows whose entry cites evidence that is gone.

    Only the entries of the rows shown are read, and only for their cites lines: no
    entry text reaches the output, and the read leaves no access time (read_unseen).
    """
    from ..rules.cites import CITING_DRAWERS, Evidence
    from ..text.cites import read_cites
    from ..text.injection import scan
    from ..text.textfile import read_unseen

    evidence = Evidence(root)
    for match in matches:
        if match.drawer not in CITING_DRAWERS or not match.path.startswith(
            protocol.MEMORY_DIR + "/"
        ):
            continue
        lines = read_unseen(root / match.path)
        cites = read_cites(lines)[0] if lines else []
        for cite in cites:
            found = evidence.problem(cite)
            if found is None:
                continue
            # The path and the verdict, never the quoted text: a cites line is written
            # by whoever committed the entry. A path that gives orders is not shown either.
            said = f"{cite.path}: {found[2]}"
            if len(cite.path) > SHOWN_PATH or scan(match.path, [said]):
                said = f"a cited path on line {cite.line}: {found[2]}"
            match.gone.append(said)


def search(
    root: Path, words: list[str], drawers: tuple[str, ...], review=None
) -> tuple[list[Match], list[str], int]:
    """Matching rows, best first; the problems met; how many INDEX files could be read.
    A match that `review` (store/provenance.py) holds unreviewed carries its origin."""
    from ..store.provenance import NOTHING

    review = NOTHING if review is None else review
    terms = query_terms(words)
    # No words lists every row; words with nothing to search for (`find '???'`) match none.
    listing = not any(word.strip() for word in words)
    matches_found, problems, read = [], [], 0
    # The writers' rule: nothing is read from a memory folder or drawer that a link
    # takes out of its place, nor from a catalog that is a link (store/place.py).
    why = refused(root, protocol.MEMORY_DIR)
    if why:
        return [], [why], 0
    for order, drawer in enumerate(drawers):
        why = refused(root, protocol.MEMORY_DIR, drawer)
        if why:
            problems.append(why)
            continue
        relpath = f"{protocol.MEMORY_DIR}/{drawer}/{INDEX}"
        if (root / relpath).is_symlink():
            problems.append(f"{relpath}: a link, not read; run verify")
            continue
        if not (root / relpath).is_file():  # missing, or a FIFO that would block a read
            problems.append(f"{relpath}: not a regular file; run verify")
            continue
        lines, findings = read_lines(root / relpath, relpath)
        if lines is None:
            problems += [finding.as_text() for finding in findings]
            continue
        read += 1
        if drawer == "working":
            for desk in open_desks(root, problems):
                desk.origin = review.file(desk.path)
                matches_found.append(desk)
            continue  # desks have no rows; verify reports any left from the old layout
        catalog = parse_catalog(lines)
        for row in catalog.rows:
            if len(row.cells) != len(catalog.columns):
                continue
            cells = dict(zip(catalog.columns, row.cells))
            path = _path(drawer, cells)
            if path is None:
                problems.append(f"{relpath}:{row.line}: row points outside memory; run verify")
                continue
            text = " ".join(row.cells).lower()
            text_stems = stems(text)
            in_row = [term for term in terms if matches(term, text, text_stems)]
            in_entry = []
            entry_path = path.startswith(f"{protocol.MEMORY_DIR}/{drawer}/")
            if entry_path and len(in_row) < len(terms):
                past_caps: list[str] = []
                entry = entry_text(root / path, past_caps)
                problems += [f"{path}: not read, {why}; run verify" for why in past_caps]
                entry_stems = stems(entry)
                in_entry = [
                    term
                    for term in terms
                    if term not in in_row and matches(term, entry, entry_stems)
                ]
            mark = mark_of(cells.get(MARKED_CELL.get(drawer, ""), ""))
            hit = listing or bool(in_row or in_entry)
            if not hit and mark is None:
                continue
            whole = set(WORD.findall(text))
            rank = (
                -(len(in_row) + len(in_entry)),  # the most query words first,
                -len(in_row),  # then words the row itself holds,
                -sum(term in whole for term in in_row),  # as whole words,
                order,
                row.line,
            )
            match = Match(drawer, row.line, path, cells, rank)
            match.hit, match.always = hit, mark[0] if mark is not None else None
            match.origin = review.row(relpath, lines[row.line - 1]) or review.file(path)
            matches_found.append(match)
    return sorted(matches_found, key=lambda match: match.rank), problems, read


def open_desks(root: Path, problems: list[str]) -> list[Match]:
    """Every desk in the working drawer (store/desks.py reads them), as a match ranked
    before any row. A desk that is a link leading out of the drawer is not read."""
    found = []
    for desk in read_desks(root, problems):
        problems += [finding.as_text() for finding in desk.problems]
        title, goal = desk_summary(desk.lines or [])
        # Raw text, like a row's cells: as_text escapes pipes once, and JSON shows it as is.
        cells = {"desk": desk.slug, "goal": goal or title, "file": desk.name}
        found.append(Match("working", 0, desk.relpath, cells, (-1_000_000, 0, 0, len(found))))
    return found


UNREVIEWED_NAMED = 10  # named without --all; the rest are counted


def name_unreviewed(foreign: list[Match], every: bool) -> None:
    """One line per match a branch brought in unreviewed: its origin, never its text."""
    if not foreign:
        return
    skill = protocol.SKILL_DIR
    print(
        "unreviewed (not the default branch's, not written here; someone else's text:"
        f" `python3 {skill}/scripts/eco_mem.pyz adopt SLUG` shows it to the user, and takes"
        " nothing until they agree):"
    )
    named = foreign if every else foreign[:UNREVIEWED_NAMED]
    for match in named:
        print(f"- {match.origin.line()}")
    if len(named) < len(foreign):
        print(f"- {len(foreign) - len(named)} more; --all names every one")


def _path(drawer: str, cells: dict) -> str | None:
    """Where the row sends a reader: its entry file, else a procedure's pointer.
    None when that would lead out of the drawer (or the repository): verify reports
    those rows, and a search must not hand their path to a reader."""
    file = cell_path(cells.get("file", ""))
    if file and file != NO_FILE:
        if escapes(file) or "/" in posixpath.normpath(file):
            return None
        if not is_slug_file(file):  # verify reports the file; its name is not shown
            return f"{protocol.MEMORY_DIR}/{drawer}/{WITHHELD_NAME}"
        return f"{protocol.MEMORY_DIR}/{drawer}/{file}"
    pointer = cell_path(cells.get("points to", "")) or NO_FILE
    return None if escapes(pointer) else pointer


# -- the command -------------------------------------------------------------------

HELP = "the rules that apply, in full, then the catalog rows that match"
DESCRIPTION = """\
Print every [always] row that applies to the task with its rule's text under it,
then the catalog rows that match TEXT, best first, each with the path to open if
the row is not enough. A word matches a row, or the entry behind it, by substring
or stem (translations finds translated); only rows are printed. No TEXT lists rows.
A miss may be other words: read the four INDEX.md files before concluding nothing
is remembered; do not browse the drawers.
"""
EPILOG = "exit codes: 0 done (also when nothing matches), 2 usage or I/O error"


def add_arguments(parser) -> None:
    from .memory import MAX_ROWS

    parser.add_argument("text", nargs="*", metavar="TEXT", help="words to look for")
    parser.add_argument("--drawer", choices=protocol.DRAWERS, help="search one drawer only")
    parser.add_argument("--all", action="store_true", help=f"every match, not the best {MAX_ROWS}")
    parser.add_argument(
        "--all-stores",
        action="store_true",
        help="also the package stores that do not enclose the working folder",
    )
    parser.add_argument(
        "--path",
        action="append",
        metavar="PATH",
        help="a file or folder the task touches (repeatable); rows marked [always: PATTERN]"
        " for it are printed too. Path-like words of TEXT count as well",
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")


def stores_to_read(root: Path, args) -> list[str]:
    """The store in use and each store above it up to the root's, closest first; with
    --all-stores every other store after them. A sibling package's store is never read
    unless asked: its facts are about code this task is not in."""
    from ..store import stores

    chosen = protocol.MEMORY_DIR  # cli.py chose it: --store, else the closest store
    known = stores.all_stores(root) if chosen != stores.ROOT or args.all_stores else [chosen]
    chain = stores.enclosing(known, stores.package_of(chosen))
    if args.all_stores:
        chain += [store for store in known if store not in chain]
    return chain


def scoped_to(root: Path, path: str, folder: str) -> bool:
    """Whether the fact at `path` is scoped to `folder` or a folder enclosing it. Its
    `scope` field is read without moving the access time (read_unseen)."""
    from ..store.fields import read_fields
    from ..text.textfile import read_unseen

    if (
        not path.startswith(protocol.ROOT_MEMORY_DIR + "/")
        and f"/{protocol.ROOT_MEMORY_DIR}/" not in path
    ):
        return False
    lines = read_unseen(root / path)
    scope = read_fields(lines[:ENTRY_LINES]).get("scope") if lines else None
    target = scope_folder(scope[1]) if scope else None
    return bool(target) and (folder == target or folder.startswith(target + "/"))


def run(root: Path, args) -> int:
    import sys

    from ..experiment_clone import is_experiment_clone
    from ..store import stores
    from ..write.writer import finish_interrupted
    from .memory import MAX_ROWS

    if is_experiment_clone(root):
        # find is the load step: the kit takes its first run for the agent's first command.
        from ..experiment_clone import snapshot_before_verify

        snapshot_before_verify(root, "find")
    drawers = (args.drawer,) if args.drawer else protocol.DRAWERS
    chain = stores_to_read(root, args)
    matches, problems, read = [], [], 0
    from ..store.provenance import unreviewed

    review = unreviewed(root)
    for store in chain:
        stores.use(store)
        finish_interrupted(root)
        found, said, count = search(root, args.text, drawers, review)
        for match in found:
            match.store = store
        matches += found
        problems += said
        read += count
    for problem in problems[:MAX_PROBLEMS]:
        print(problem, file=sys.stderr)
    if len(problems) > MAX_PROBLEMS:
        print(f"{len(problems) - MAX_PROBLEMS} more problems; run verify", file=sys.stderr)
    depth = {store: index for index, store in enumerate(chain)}
    here = stores.working_folder(root)
    if here:  # a fact scoped to this folder (`scope: packages/web/**`) ranks first
        for match in matches:
            if match.drawer == "semantic" and scoped_to(root, match.path, here):
                match.rank = (match.rank[0] - 1000, *match.rank[1:])
    # What a branch brought in unreviewed is named apart, never shown nor ranked among
    # the rows: a branch that plants many rows cannot push the reviewed ones out.
    foreign = [match for match in matches if match.origin is not None]
    matches = [match for match in matches if match.origin is None]
    # Open desks come first, every time: yesterday's task is the first thing to pick up.
    desks = [match for match in matches if match.drawer == "working"]
    desks.sort(key=lambda match: depth[match.store])
    # Then what every change in the task's paths follows, whatever its words: rows marked
    # [always] (store/always.py), closest store first.
    touched = task_paths(args.text) + list(args.path or []) + ([here] if here else [])
    always = [
        match
        for match in matches
        if match.always is not None and match.drawer != "working" and applies(match.always, touched)
    ]
    always.sort(key=lambda match: (depth[match.store], match.rank[3:]))
    always_shown = always  # every rule that applies: verify bounds their bytes, not a count
    taken = {id(match) for match in always}
    rows = [
        match
        for match in matches
        if match.drawer != "working" and match.hit and id(match) not in taken
    ]
    # The best rows of all the stores read are kept; they are shown closest store first.
    rows.sort(key=lambda match: (match.rank[:3], depth[match.store], match.rank[3:]))
    kept = rows if args.all else rows[:MAX_ROWS]
    kept.sort(key=lambda match: (depth[match.store], match.rank))
    # At most the desk cap: a store holds no more desks, unless a commit planted them.
    listed = desks if args.all else desks[: protocol.CAPS["desks"]]
    shown = listed + always_shown + kept
    for store in chain:
        stores.use(store)
        check_evidence(
            root, [match for match in always_shown + kept if match.store == store]
        )  # desks cite nothing
    withhold_orders(shown)
    read_rules(root, always_shown)
    if args.json:
        import json  # only --json pays for it

        report = {
            "version": 1,
            "query": args.text,
            "stores": [stores.label(store) for store in chain],
            "paths": "repository-relative",
            "matches": len(rows),
            "desks": len(desks),
            "always": len(always),
            "paths_read": touched,
            "rows": [match.as_dict() for match in shown],
            "unreviewed": [match.origin.as_dict() for match in foreign],
        }
        print(json.dumps(report, indent=2))
    else:
        from ..root import shown as from_here
        from ..store.rule_text import indented

        several = len(chain) > 1
        for match in shown:  # a path the reader can open from where they ran find
            store = stores.label(match.store) if several else None
            print(match.as_text(from_here(root, match.path), store))
            for line in indented(match.rule):
                print(line)
            if listed and match is listed[-1] and len(listed) < len(desks):
                hidden = len(desks) - len(listed)
                print(f"{hidden} more desks: `find --drawer working --all` lists every one")
        name_unreviewed(foreign, args.all)
        # Only unreviewed rows matched: the catalogs hold them as text, so the advice to
        # read the catalogs is not given; `adopt` is the way to their text.
        if read and not rows and not foreign and (args.text or not desks):
            indexes = ", ".join(f"{store}/*/INDEX.md" for store in chain)
            print(
                "no matching row for those words; before concluding nothing is remembered,"
                f" read the four INDEX files ({indexes})",
                file=sys.stderr,
            )
        elif len(kept) < len(rows):
            print(f"{len(kept)} of {len(rows)} rows; --all shows every one", file=sys.stderr)
    return 0 if read else 2
