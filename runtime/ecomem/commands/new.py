"""`new`: add an entry and its catalog row, one builder per drawer.

Each builder checks what only a command can know (a free name, room in the catalog, a
the single door to `user-confirmed`) and leaves the entry's own shape to the gate.
"""

from __future__ import annotations

import os
from argparse import Namespace
from datetime import date
from pathlib import Path

from .. import paths, protocol
from ..errors import Refused, UsageError
from ..findings import ERROR, Finding
from ..store import shapes
from ..store.dates import parse_iso
from ..store.entries import catalog_problem, locate
from ..store.load import Store
from ..store.rows import add_row
from ..text import cites
from ..write import gate
from .memory import EXITS, always_mark, always_option, cite_option, read_body


def one_line(option: str, value: str) -> str:
    value = value.strip()
    if not value or "\n" in value or "\r" in value:
        raise UsageError(f"{option} must be one non-empty line")
    return value


def cite_values(given: list[str] | None, where: str) -> list[str] | None:
    """The --cite options as the entry's cites lines will hold them; None when none given.
    The syntax is the field's (text/cites.py); whether the evidence holds is the gate's."""
    if not given:
        return None
    values = []
    for value in given:
        try:
            cite = cites.parse_value(one_line("--cite", value))
        except cites.CiteSyntax as why:
            message = f"--cite {value!r}: {why}"
            raise Refused([Finding(where, 0, "cite.malformed", ERROR, message)]) from None
        if cite.path.startswith("./"):
            cite.path = cite.path[2:]
        values.append(cite.value())
    return values


def slug_of(title: str) -> str:
    slug = shapes.slugify(title)
    if not slug:
        raise UsageError(
            f"cannot make a file name from {title!r}: use some ASCII letters or digits"
        )
    return slug


def _room(store: Store, drawer_name: str, key: str, file: str, today: date):
    """The drawer's catalog, refusing when it is broken, full, or the name is taken."""
    drawer = store.drawers[drawer_name]
    problem = catalog_problem(drawer) or gate.full_catalog(drawer, today)
    if problem:
        raise Refused([problem])
    folder = store.root / store.relpath / drawer_name
    if locate(store, key, (drawer_name,)) or os.path.lexists(folder / file):
        message = (
            f"{drawer_name}/{file} or a row named {key!r} exists; revise it or pick another title"
        )
        raise Refused([Finding(f"{drawer.relpath}/{file}", 0, "entry.exists", ERROR, message)])
    return drawer


def _change(drawer, file: str | None, lines: list[str] | None, cells: list[str]) -> gate.Change:
    change = gate.Change(drawer.name)
    if file:
        change.files[file] = lines
    change.index_lines, line = add_row(drawer.index_lines, drawer.catalog, cells)
    change.rows.add(line)
    return change


def semantic(args: Namespace, body: str, store: Store, today: date) -> gate.Change:
    title = one_line("--title", args.title)
    slug = free_slug(store, slug_of(title), title)
    source = "user-confirmed" if getattr(args, "stated_by_user", False) else args.source
    if args.source == "user-confirmed":
        # Two doors to user-confirmed, each the user's own word: --stated-by-user when they
        # state it, confirm --by-user when they agree to what an agent derived.
        message = (
            "user-confirmed is the user's word: --stated-by-user when they stated it,"
            " else write it verified or derived and `confirm SLUG --by-user` once they agree"
        )
        raise Refused([Finding(f"{store.relpath}/semantic", 0, "semantic.source", ERROR, message)])
    file = f"{slug}.md"
    drawer = _room(store, "semantic", slug, file, today)
    fields = {
        "as_of": one_line("--as-of", args.as_of or today.isoformat()),
        "source": source,
        "scope": one_line("--scope", args.scope),
        "expires": one_line("--expires", args.expires),
    }
    cited = cite_values(getattr(args, "cite", None), f"{drawer.relpath}/{file}") or []
    cells = [slug, always_mark(title, args.always), fields["as_of"], fields["source"], file]
    return _change(drawer, file, shapes.fact(title, fields, body, cited), cells)


def free_slug(store: Store, slug: str, title: str) -> str:
    """`slug`, or with `-2`, `-3`... when another fact holds it: short slugs from key words
    meet more often than whole titles did. A title of the same words (case and punctuation
    aside) keeps its slug, and _room then refuses it as the fact that exists."""
    entries = store.drawers["semantic"].entries
    taken = set(entries) | {row.cells[0] for row in store.drawers["semantic"].catalog.rows}
    holder = entries.get(f"{slug}.md")
    held = (holder.lines or [""])[0][2:] if holder is not None else None
    whole = 10**6  # no cut: the words of the whole title
    same = held is not None and shapes.slugify(held, whole) == shapes.slugify(title, whole)
    if (f"{slug}.md" not in taken and slug not in taken) or same:
        return slug
    for number in range(2, 100):
        tail = f"-{number}"
        candidate = shapes.slugify(slug, shapes.SLUG_LENGTH - len(tail)) + tail
        if f"{candidate}.md" not in taken and candidate not in taken:
            return candidate
    return slug  # 99 facts of one name: _room refuses, naming it


def episodic(args: Namespace, store: Store, today: date) -> gate.Change:
    title = one_line("--title", args.title)
    when = args.date or today.isoformat()
    day = parse_iso(when)
    if day is None or day > today:
        raise UsageError(f"--date {when!r} must be an ISO date (YYYY-MM-DD), today or earlier")
    file = f"{when}-{slug_of(title)}.md"
    drawer = _room(store, "episodic", file[:-3], file, today)
    sections = {name: getattr(args, name) for name in protocol.EPISODIC_SECTIONS}
    cells = [when, title, sections["lesson"], file]
    return _change(drawer, file, shapes.episode(title, sections), cells)


def repo_path(root: Path, given: str) -> str:
    """A pointer as the catalog stores it: repository-relative, forward slashes."""
    path = Path(given)
    if path.is_absolute():
        try:
            path = path.resolve().relative_to(root.resolve())
        except ValueError:
            return given  # outside: the gate refuses it with its rule id
    text = path.as_posix()
    return text[2:] if text.startswith("./") else text


def read_checklist(root: Path, given: str) -> str:
    """--checklist-file: stdin for '-', else a regular file inside the repository.

    What this reads lands in a committed memory file, so the one path rule applies
    (paths.text_problem: absolute, '..', a symlink out, .git, the memory folder): an
    agent steered by injected text must not copy /etc/passwd, ~/.ssh or git's hooks into
    memory, nor memory into itself.
    """
    if given == "-":
        return read_body("-")  # the one stdin reader: UTF-8 or a one-line refusal
    path, reason = paths.repo_file(root, given, protocol.MEMORY_DIR)
    if path is None:
        rule = "checklist.outside" if reason in paths.OUTSIDE else "checklist.file"
        message = f"--checklist-file {given} {reason} (paths are read from the repository root)"
        raise Refused([Finding(given, 0, rule, ERROR, message)])
    try:
        return paths.read_repo_file(path).decode("utf-8")
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise UsageError(f"--checklist-file {given}: cannot read it ({error})") from None


def procedure_name(given: str) -> str:
    """A procedure's name is a few words, like a title; a path in it would be stored verbatim."""
    name = one_line("--name", given)
    if "/" in name or "\\" in name:
        raise UsageError(
            f"--name {name!r} looks like a path: give a few words (the file goes in --points-to)"
        )
    slug_of(name)
    return name


POINTER_CITES = (
    "a pointer row needs no --cite: the file it points at is its evidence, and verify"
    " checks that it exists; citations belong to facts and staged checklists"
)


def procedural(args: Namespace, store: Store, today: date) -> gate.Change:
    name = procedure_name(args.name)
    file = f"{slug_of(name)}.md"
    drawer = _room(store, "procedural", name, file, today)
    use_when = always_mark(one_line("--use-when", args.use_when), args.always)
    if args.points_to:
        if args.cite:
            raise UsageError(POINTER_CITES)
        pointer = repo_path(store.root, one_line("--points-to", args.points_to))
        return _change(drawer, None, None, [name, use_when, pointer, "-"])
    cited = cite_values(args.cite, f"{drawer.relpath}/{file}")
    text = read_checklist(store.root, args.checklist_file)
    lines = shapes.checklist(name, text, cited)
    return _change(drawer, file, lines, [name, use_when, "-", file])


def working(args: Namespace, store: Store, today: date) -> gate.Change:
    title = one_line("--title", args.title)
    slug = slug_of(title)
    desks = sorted(store.drawers["working"].entries)
    if len(desks) >= protocol.CAPS["desks"]:
        message = (
            f"{len(desks)} desks open, cap {protocol.CAPS['desks']}: finish one with end-task"
            f" first ({', '.join(name[:-3] for name in desks)})"
        )
        raise Refused([Finding(f"{store.relpath}/working", 0, "caps.desks", ERROR, message)])
    file = f"{slug}.md"
    drawer = store.drawers["working"]
    if os.path.lexists(store.root / drawer.relpath / file):
        message = f"a desk named {slug!r} is open; pick it up, or end-task it first"
        raise Refused([Finding(f"{drawer.relpath}/{file}", 0, "entry.exists", ERROR, message)])
    goal = one_line("--goal", args.goal) if args.goal else ""
    # No catalog row: the desk file is the listing, so opening it touches no tracked file.
    change = gate.Change("working")
    change.files[file] = shapes.desk(title, goal)
    return change


# -- the command -------------------------------------------------------------------

HELP = "add an entry and its row (a desk: its file alone)"
DESCRIPTION = """\
Add an entry file and its catalog row in one step. The content is checked by
verify's rules first; a refusal names the rule and writes nothing.
"""
EPILOG = EXITS
ROOTED = False  # each drawer is a sub-command and takes --root itself


def add_arguments(parser) -> None:
    from argparse import RawDescriptionHelpFormatter as RAW

    from . import add_root, add_store
    from .memory import episode_options, fact_options

    kinds = parser.add_subparsers(dest="kind", metavar="DRAWER", required=True)

    def kind(name: str, help: str, description: str):
        sub = kinds.add_parser(
            name, help=help, description=description, epilog=EXITS, formatter_class=RAW
        )
        add_root(sub)
        add_store(sub)
        return sub

    fact_options(
        kind(
            "semantic",
            "one fact",
            "A fact, one per file, named after its title's key words (ASCII kebab case).\n"
            "The body is --body TEXT, or stdin when --body is left out or is '-'.\n"
            "A rule the user states, in one call: --stated-by-user --always [PATHS].",
        ),
        required=True,
        stated=True,
    )
    episode_options(
        kind(
            "episodic",
            "one event, with its lesson",
            "An event in YYYY-MM-DD-slug.md. No lesson, no entry.",
        ),
        required=True,
    )
    pro = kind(
        "procedural",
        "a pointer to a skill, workflow or test, or a staged checklist",
        "A row pointing at a file that exists in the repository, or a short\n"
        "checklist (copied from --checklist-file) staged until it becomes a real skill.",
    )
    pro.add_argument("--name", required=True, help="what the method does, a few words")
    pro.add_argument("--use-when", required=True, help="when to reach for it")
    target = pro.add_mutually_exclusive_group(required=True)
    target.add_argument("--points-to", metavar="PATH", help="repository-relative path")
    target.add_argument(
        "--checklist-file",
        metavar="FILE",
        help="checklist file inside the repository, or - for stdin",
    )
    cite_option(pro, "checklist only: ")
    always_option(pro)
    desk = kind(
        "working",
        "a desk for a task that spans sessions",
        f"A desk, at most {protocol.CAPS['desks']} at a time. It has no catalog row:\n"
        "its file is the listing. Plain desks are gitignored; --travel stages it so it\n"
        "is committed with the task branch; on the default branch it is refused.",
    )
    desk.add_argument("--title", required=True, help="the task in a few words")
    desk.add_argument("--goal", help="what done looks like, one line")
    where = desk.add_mutually_exclusive_group()
    where.add_argument(
        "--travel",
        action="store_true",
        help="commit the desk with this branch, for sessions in fresh clones"
        + (" (the default here)" if protocol.DESKS_TRAVEL else ""),
    )
    where.add_argument("--local", action="store_true", help="keep the desk in this clone only")


def run(root: Path, args) -> int:
    from .memory import nonempty_body, written

    if args.kind == "semantic":
        body = nonempty_body(args.body)
        build = lambda store, today: [semantic(args, body, store, today)]  # noqa: E731
    else:
        builder = globals()[args.kind]
        build = lambda store, today: [builder(args, store, today)]  # noqa: E731
    if args.kind == "working":
        from . import desks

        if desks.travels(args):
            desks.refuse_on_default_branch(root)
    touched = written(root, "added", build)
    if args.kind == "working":
        import sys

        from . import desks

        if desks.travels(args):
            problem = desks.stage_new(root, touched[0])
            if problem:
                print(f"eco_mem.pyz new: the desk stays local: {problem}", file=sys.stderr)
                return 2
            print(f"staged: {touched[0]} travels with this branch; commit it", file=sys.stderr)
    return 0
