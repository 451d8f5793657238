"""`revise` and `confirm`: change a fact or a procedure in its own file and row.

A changed fact keeps its file and slug: history then shows one fact changing, instead of
one fact vanishing and another appearing. Episodes are never revised.
"""

from __future__ import annotations

from argparse import Namespace
from datetime import date

from ..errors import Refused, UsageError
from ..findings import ERROR, Finding
from ..store import shapes
from ..store.catalog import NO_FILE
from ..store.entries import Hit, catalog_problem, pick
from ..store.load import Store
from ..store.rows import replace_row
from ..text import cites
from ..write import gate
from .memory import EXITS, always_mark, always_option, cite_option, refuse_options
from .new import POINTER_CITES, cite_values, one_line, read_checklist, repo_path, slug_of

SEMANTIC_OPTIONS = ("title", "source", "scope", "expires", "as_of", "body", "cite", "always")
PROCEDURAL_OPTIONS = ("use_when", "points_to", "checklist_file", "body", "cite", "always")
ONLY_SEMANTIC = tuple(name for name in SEMANTIC_OPTIONS if name not in PROCEDURAL_OPTIONS)
ONLY_PROCEDURAL = tuple(name for name in PROCEDURAL_OPTIONS if name not in SEMANTIC_OPTIONS)
DESK_OPTIONS = ("progress", "next")


def _refuse(hit: Hit, rule: str, message: str) -> Refused:
    return Refused([Finding(hit.drawer.index_relpath, hit.row.line, rule, ERROR, message)])


def _entry_lines(hit: Hit) -> list[str]:
    entry = hit.drawer.entries.get(hit.file)
    if entry is None or entry.lines is None:
        message = f"{hit.drawer.relpath}/{hit.file} is missing or unreadable; run verify"
        raise _refuse(hit, "drift.row-without-file", message)
    return entry.lines


def _pick(store: Store, slug: str, drawer: str | None) -> Hit:
    """The entry to change, refused as `new` refuses when its catalog cannot be read:
    a row is changed by its columns, so a renamed or broken header stops the write."""
    try:
        hit = pick(store, slug, drawer)
    except UsageError:
        # The row may sit in a catalog that cannot be read: that is the thing to fix.
        scope = (drawer,) if drawer else ("semantic", "procedural")
        problems = [catalog_problem(store.drawers[name]) for name in scope]
        if any(problems):
            raise Refused([problem for problem in problems if problem]) from None
        raise
    problem = catalog_problem(hit.drawer) if hit.row is not None else None
    if problem:
        raise Refused([problem])
    return hit


def revise(args: Namespace, body: str | None, store: Store, today: date) -> gate.Change:
    hit = _pick(store, args.slug, args.drawer)
    if hit.drawer.name == "episodic":
        message = "episodes are append-only: record what changed as a new episode (new episodic)"
        raise _refuse(hit, "episodic.append-only", message)
    if hit.drawer.name == "working":
        others = dict.fromkeys((*SEMANTIC_OPTIONS, *PROCEDURAL_OPTIONS, "no_cite", "not_always"))
        refuse_options(args, others, f"to a desk ({hit.name})")
        return _revise_desk(hit, args)
    if hit.drawer.name == "semantic":
        refuse_options(
            args, (*ONLY_PROCEDURAL, *DESK_OPTIONS), f"to a fact ({hit.name} is semantic)"
        )
        return _revise_fact(hit, args, body, today)
    refuse_options(
        args, (*ONLY_SEMANTIC, *DESK_OPTIONS), f"to a procedure ({hit.name} is procedural)"
    )
    return _revise_procedure(hit, args, body, store)


def _revise_fact(hit: Hit, args: Namespace, body: str | None, today: date) -> gate.Change:
    if (
        all(getattr(args, name, None) is None for name in SEMANTIC_OPTIONS)
        and not getattr(args, "no_cite", False)
        and not getattr(args, "not_always", False)
    ):
        raise UsageError(
            "nothing to revise: give --title, --scope, --expires, --source, --cite, --no-cite,"
            " --always, --not-always or --body"
        )
    if args.source == "user-confirmed":
        message = "only `confirm SLUG --by-user` makes a fact user-confirmed"
        raise _refuse(hit, "semantic.source", message)
    lines = _entry_lines(hit)
    current = shapes.read_fields(lines).get("source", (0, ""))[1]
    if current == "user-confirmed" and args.source is None:
        message = (
            f"{hit.name} is user-confirmed, so the user decided it: tell them what you would change"
            " and why. With code evidence, revise with --source verified; with their word,"
            " revise with --source derived, then confirm --by-user"
        )
        raise _refuse(hit, "semantic.user-confirmed", message)
    cited = _cites(args, f"{hit.drawer.relpath}/{hit.file}")
    return change_fact(hit, lines, args.title, _fields(args, today), body, cited, args)


def _cites(args: Namespace, where: str) -> list[str] | None:
    """New citations (they replace the old ones), [] for --no-cite, None to keep them."""
    if getattr(args, "no_cite", False):
        if args.cite:
            raise UsageError("--cite and --no-cite together: give one")
        return []
    return cite_values(args.cite, where)


def _fields(args: Namespace, today: date) -> dict[str, str]:
    fields = {"as_of": one_line("--as-of", args.as_of or today.isoformat())}
    for name in ("source", "scope", "expires"):
        value = getattr(args, name)
        if value is not None:
            fields[name] = one_line(f"--{name}", value)
    return fields


def change_fact(
    hit: Hit,
    lines: list[str],
    title: str | None,
    fields: dict[str, str],
    body: str | None,
    cites: list[str] | None = None,
    marking: Namespace | None = None,
) -> gate.Change:
    """`marking`: revise's options, whose --always or --not-always change the row's mark."""
    title = one_line("--title", title) if title is not None else None
    columns = hit.drawer.catalog.columns
    cells = list(hit.row.cells)
    at = columns.index("one-liner")
    cells[at] = revised_text(cells[at], title, marking)
    for name in ("as_of", "source"):
        if name in fields:
            cells[columns.index(name)] = fields[name]
    change = gate.Change("semantic")
    change.files[hit.file] = shapes.edit_fact(lines, title, fields, body, cites)
    change.index_lines = replace_row(hit.drawer.index_lines, hit.row, cells)
    change.rows.add(hit.row.line)
    return change


def _revise_procedure(hit: Hit, args: Namespace, body: str | None, store: Store) -> gate.Change:
    if (
        all(getattr(args, name, None) is None for name in PROCEDURAL_OPTIONS)
        and not getattr(args, "no_cite", False)
        and not getattr(args, "not_always", False)
    ):
        raise UsageError(
            "nothing to revise: give --use-when, --points-to, --checklist-file, --cite,"
            " --always, --not-always or --body"
        )
    if args.checklist_file is not None:
        body = read_checklist(store.root, args.checklist_file)
    columns = hit.drawer.catalog.columns
    cells = list(hit.row.cells)
    change = gate.Change("procedural")
    use_when = one_line("--use-when", args.use_when) if args.use_when is not None else None
    at = columns.index("use when")
    cells[at] = revised_text(cells[at], use_when, args)
    if args.points_to is not None:
        cells[columns.index("points to")] = repo_path(
            store.root, one_line("--points-to", args.points_to)
        )
        if body is None and hit.file != NO_FILE:
            # The checklist graduated into the file pointed at: the staged copy goes.
            change.files[hit.file] = None
            cells[columns.index("file")] = NO_FILE
    cited = _cites(args, f"{hit.drawer.relpath}/{hit.file}")
    if cited is not None and body is None and change.files.get(hit.file, "") is None:
        raise UsageError(POINTER_CITES)
    if body is not None:
        file = hit.file if hit.file != NO_FILE else f"{slug_of(hit.name)}.md"
        if hit.file == NO_FILE and (store.root / hit.drawer.relpath / file).exists():
            raise _refuse(hit, "entry.exists", f"{hit.drawer.relpath}/{file} exists already")
        if cited is None and hit.file != NO_FILE:  # a new checklist keeps its evidence
            old = hit.drawer.entries.get(hit.file)
            old_lines = old.lines if old is not None and old.lines is not None else []
            cited = [
                cites.CITE_LINE.match(old_lines[i]).group(1).strip()
                for i in cites.cite_lines(old_lines)
            ]
        change.files[file] = shapes.checklist(hit.name, body, cited)
        cells[columns.index("file")] = file
    elif cited is not None:
        if hit.file == NO_FILE:
            raise UsageError(POINTER_CITES)
        change.files[hit.file] = shapes.with_cites(_entry_lines(hit), cited)
    change.index_lines = replace_row(hit.drawer.index_lines, hit.row, cells)
    change.rows.add(hit.row.line)
    return change


def _revise_desk(hit: Hit, args: Namespace) -> gate.Change:
    """A desk's progress and next step, written by a command: the record then holds the
    desk's new bytes, and only recorded bytes are this clone's own (store/provenance.py)."""
    if args.progress is None and args.next is None:
        raise UsageError("nothing to revise on a desk: give --progress, --next or both")
    lines = list(_entry_lines(hit))
    if args.progress is not None:
        lines = shapes.desk_section(
            lines, "Progress", [f"- {one_line('--progress', args.progress)}"]
        )
    if args.next is not None:
        lines = shapes.desk_section(
            lines, "Next", [f"- {one_line('--next', args.next)}"], replace=True
        )
    change = gate.Change("working")
    change.files[hit.file] = lines
    return change


def revised_text(old: str, new: str | None, marking: Namespace | None) -> str:
    """A row's text cell after a revise (store/always.py): the new text (else the old)
    keeps the old [always] mark, unless --always sets another or --not-always drops it."""
    from ..store.always import mark_of, marked, unmarked

    always = getattr(marking, "always", None)
    drop = getattr(marking, "not_always", False)
    if always is not None and drop:
        raise UsageError("--always and --not-always together: give one")
    text = old if new is None else new
    mark = mark_of(old)
    if new is not None and mark is not None and mark_of(new) is None:
        text = marked(new, mark[0])
    if drop:
        return unmarked(text)
    return text if always is None else always_mark(unmarked(text), always)


def confirm(args: Namespace, store: Store, today: date) -> gate.Change:
    hit = _pick(store, args.slug, "semantic")
    fields = {"as_of": today.isoformat(), "source": "user-confirmed"}
    return change_fact(hit, _entry_lines(hit), None, fields, None)


# -- the command -------------------------------------------------------------------

HELP = "change a fact, a procedure or a desk in place"
EPILOG = EXITS
DESCRIPTION = """\
Change a semantic fact (as_of moves to today unless --as-of) or a procedural row,
in its own file and row. Episodes are refused: record a new one. A user-confirmed
fact needs --source: verified (code evidence) or derived (then confirm --by-user).
On a staged checklist, --points-to alone graduates it: the row points there and
the checklist file goes. A desk takes --progress (a line added) and --next (the
next step, replacing the last). Options of another drawer are refused, never dropped.
"""


def add_arguments(parser) -> None:
    from .. import protocol

    parser.add_argument("slug", metavar="SLUG", help="slug, name or file name of the entry")
    parser.add_argument(
        "--drawer", choices=("semantic", "procedural"), help="when SLUG is ambiguous"
    )
    parser.add_argument("--title", help="semantic: the fact's new title and one-liner")
    parser.add_argument(
        "--source", choices=protocol.SEMANTIC_SOURCES, help="semantic: new provenance"
    )
    parser.add_argument("--scope", help="semantic")
    parser.add_argument("--expires", metavar="YYYY-MM-DD|never", help="semantic")
    parser.add_argument("--as-of", metavar="YYYY-MM-DD", help="semantic (default: today)")
    parser.add_argument("--use-when", help="procedural")
    parser.add_argument("--points-to", metavar="PATH", help="procedural")
    parser.add_argument(
        "--checklist-file", metavar="FILE", help="procedural: new checklist (in the repo, or -)"
    )
    parser.add_argument("--body", help="new body; '-' reads stdin")
    cite_option(parser, "replaces all citations: ")
    parser.add_argument("--no-cite", action="store_true", help="drop every citation")
    always_option(parser)
    parser.add_argument("--not-always", action="store_true", help="drop the row's [always] mark")
    parser.add_argument("--progress", metavar="TEXT", help="desk: add a line to its Progress")
    parser.add_argument("--next", metavar="TEXT", help="desk: its Next step, replacing the last")


def run(root, args) -> int:
    from .memory import read_body, written

    body = read_body(args.body) if args.body is not None else None
    written(root, "revised", lambda store, today: [revise(args, body, store, today)])
    return 0
