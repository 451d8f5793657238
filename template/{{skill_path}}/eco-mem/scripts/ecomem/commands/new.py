"""`new`: add an entry and its catalog row, one builder per drawer.

Each builder checks what only a command can know (a free name, room in the catalog, a
the single door to `user-confirmed`) and leaves the entry's own shape to the gate.
"""

from __future__ import annotations

import os
from argparse import Namespace
from datetime import date
from pathlib import Path

from .. import protocol
from ..findings import ERROR, Finding
from ..store import shapes
from ..store.dates import parse_iso
from ..store.entries import catalog_problem, locate
from ..store.load import Store
from ..store.rows import add_row
from ..write import gate
from ..write.writer import Refused, UsageError


def one_line(option: str, value: str) -> str:
    value = value.strip()
    if not value or "\n" in value or "\r" in value:
        raise UsageError(f"{option} must be one non-empty line")
    return value


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
    slug = slug_of(title)
    if args.source == "user-confirmed":
        # One door to user-confirmed, so every such fact passed a user's explicit yes.
        message = "a new fact is verified or derived; once the user says it is right, confirm SLUG --by-user"
        raise Refused([Finding(f"{store.relpath}/semantic", 0, "semantic.source", ERROR, message)])
    file = f"{slug}.md"
    drawer = _room(store, "semantic", slug, file, today)
    fields = {
        "as_of": one_line("--as-of", args.as_of or today.isoformat()),
        "source": args.source,
        "scope": one_line("--scope", args.scope),
        "expires": one_line("--expires", args.expires),
    }
    cells = [slug, title, fields["as_of"], fields["source"], file]
    return _change(drawer, file, shapes.fact(title, fields, body), cells)


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


def read_text_file(option: str, given: str) -> str:
    try:
        with open(given, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{option} {given}: cannot read it ({error})") from None


def procedural(args: Namespace, store: Store, today: date) -> gate.Change:
    name = one_line("--name", args.name)
    file = f"{slug_of(name)}.md"
    drawer = _room(store, "procedural", name, file, today)
    use_when = one_line("--use-when", args.use_when)
    if args.points_to:
        pointer = repo_path(store.root, one_line("--points-to", args.points_to))
        return _change(drawer, None, None, [name, use_when, pointer, "-"])
    lines = shapes.checklist(name, read_text_file("--checklist-file", args.checklist_file))
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
