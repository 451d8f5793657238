"""Find the entry a person means by the short name they type: a slug, a desk, a
procedure's name or a file name without `.md` (an episode also by its slug without the date).
"""

from __future__ import annotations

import re

from .. import protocol
from ..errors import Refused, UsageError
from ..findings import ERROR, Finding
from .catalog import NO_FILE, Row, cell_path
from .load import Drawer, Store
from .names import is_entry_file

DATED = re.compile(r"^\d{4}-\d{2}-\d{2}-")


class Hit:
    __slots__ = ("drawer", "file", "row")

    def __init__(self, drawer: Drawer, row: Row | None, file: str) -> None:
        self.drawer = drawer
        self.row = row  # None for a desk: desks have files, never rows
        self.file = file  # entry file name in the drawer, or "-" for a pointer-only row

    @property
    def name(self) -> str:
        return self.file[:-3] if self.row is None else cell_path(self.row.cells[0])


def locate(store: Store, key: str, drawers: tuple[str, ...]) -> list[Hit]:
    wanted = key[:-3] if key.endswith(".md") else key
    hits = []
    for name in drawers:
        drawer = store.drawers[name]
        if name == "working":
            # Desks are listed by their files (the working INDEX has no rows).
            hits += [
                Hit(drawer, None, file)
                for file in drawer.entries
                if file[:-3].lower() == wanted.lower()
            ]
            continue
        columns = drawer.catalog.columns
        if "file" not in columns:
            continue
        for row in drawer.catalog.rows:
            file = cell_path(row.get(columns, "file"))
            stem = file[:-3] if file.endswith(".md") else ""
            keys = {cell_path(row.cells[0]).lower(), stem.lower(), DATED.sub("", stem).lower()}
            if wanted.lower() in keys - {"", NO_FILE}:
                hits.append(Hit(drawer, row, file))
    return hits


def catalog_problem(drawer: Drawer) -> Finding | None:
    """Why rows cannot be added to this drawer's INDEX, if they cannot."""
    where = drawer.index_relpath
    if drawer.index_lines is None:
        return Finding(
            where, 0, "structure.missing-index", ERROR, "INDEX.md missing or unreadable; run verify"
        )
    catalog = drawer.catalog
    if not catalog.header_line or catalog.problems:
        line = catalog.problems[0][0] if catalog.problems else 0
        return Finding(
            where, line, "catalog.malformed", ERROR, "fix the catalog table first; run verify"
        )
    if catalog.columns != list(protocol.CATALOG_COLUMNS[drawer.name]):
        message = "the catalog header is not the template's; run verify"
        return Finding(where, catalog.header_line, "catalog.columns", ERROR, message)
    return None


def pick(store: Store, key: str, drawer: str | None) -> Hit:
    """The one entry `key` names, in `drawer` or in any drawer."""

    hits = locate(store, key, (drawer,) if drawer else protocol.DRAWERS)
    if not hits and drawer == "working":
        raise UsageError(f"no open desk is named {key!r}; `find` lists the open desks")
    if not hits:
        where = f"the {drawer} catalog" if drawer else "any catalog"
        raise UsageError(f"no row in {where} is named {key!r}; `find` lists rows")
    if len(hits) > 1:
        places = ", ".join(
            f"{hit.drawer.name} line {hit.row.line}" if hit.row else f"{hit.drawer.name} desk"
            for hit in hits
        )
        raise UsageError(f"{key!r} names several rows ({places}); add --drawer")
    hit = hits[0]
    if hit.file != NO_FILE and not is_entry_file(hit.file):
        raise Refused([odd_file(hit.drawer.index_relpath, hit.row.line if hit.row else 0)])
    return hit


def odd_file(index_relpath: str, line: int) -> Finding:
    """The refusal when a row (or a write) names a file no writer may touch."""
    message = (
        "the row's file is not an entry file directly in this drawer (a slug or plain"
        " name, then .md): nothing written; fix the row by hand, then run verify"
    )
    return Finding(index_relpath, line, "drift.path-escapes", ERROR, message)
