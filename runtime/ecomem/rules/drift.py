"""Catalog rows against entry files: every row names a file, every file has one row."""

from __future__ import annotations

import posixpath

from .. import protocol
from ..findings import ERROR, Finding
from ..store.catalog import NO_FILE, cell_path
from ..store.load import Drawer


def check_drift(drawer: Drawer) -> list[Finding]:
    catalog, index = drawer.catalog, drawer.index_relpath
    if drawer.index_lines is None:
        return []
    findings = [
        Finding(index, line, "catalog.malformed", ERROR, message)
        for line, message in catalog.problems
    ]
    if not catalog.heading_line:
        return [
            *findings,
            Finding(
                index,
                0,
                "catalog.malformed",
                ERROR,
                "no '## Catalog' section; restore the template's INDEX.md",
            ),
        ]
    expected = list(protocol.CATALOG_COLUMNS[drawer.name])
    if catalog.columns and catalog.columns != expected:
        message = (
            f"catalog columns are {' | '.join(catalog.columns)}; expected {' | '.join(expected)}"
        )
        findings.append(Finding(index, catalog.header_line, "catalog.columns", ERROR, message))
    cells = _always_cells(drawer)
    findings += _malformed_marks(drawer, cells) + _orders_behind_marks(drawer, cells)
    if "file" not in catalog.columns:
        return findings
    if drawer.name == "working":
        return findings + _desk_rows(drawer)

    named: dict[str, int] = {}
    for row in catalog.rows:
        target = cell_path(row.get(catalog.columns, "file"))
        if target == NO_FILE and drawer.name == "procedural":
            continue
        if not target or target == NO_FILE:
            findings.append(
                Finding(
                    index,
                    row.line,
                    "drift.row-without-file",
                    ERROR,
                    "row names no file; add the entry file or delete the row",
                )
            )
            continue
        if (
            target.startswith("/")
            or "\\" in target
            or "/" in posixpath.normpath(target)
            or target in (".", "..")
        ):
            message = f"row path '{target}' leaves the drawer; name a file directly inside {drawer.relpath}/"
            findings.append(Finding(index, row.line, "drift.path-escapes", ERROR, message))
            continue
        target = posixpath.normpath(target)  # `./a.md` names a.md
        if target in named:
            message = f"second row for {target} (first on line {named[target]}); keep one"
            findings.append(Finding(index, row.line, "drift.duplicate-row", ERROR, message))
            continue
        named[target] = row.line
        if target not in drawer.entries:
            message = f"row names {target}, which is not in {drawer.relpath}/; restore the file or delete the row"
            findings.append(Finding(index, row.line, "drift.row-without-file", ERROR, message))
    for name, entry in drawer.entries.items():
        if name not in named:
            message = f"no catalog row in {index}; add one (see references/entry-shapes.md) or delete the file"
            findings.append(Finding(entry.relpath, 0, "drift.file-without-row", ERROR, message))
    return findings


def _desk_rows(drawer: Drawer) -> list[Finding]:
    """Desks are listed by their files; a row in the tracked working INDEX is the old way,
    and the row a `git commit -a` would carry to every clone."""
    message = (
        "desk rows are gone: a desk is listed by its own file; delete the row"
        " (the next `copier update` does it) and commit"
    )
    return [
        Finding(drawer.index_relpath, row.line, "working.desk-row", ERROR, message)
        for row in drawer.catalog.rows
    ]


def _always_cells(drawer: Drawer) -> list[tuple[int, str]]:
    """(line, text) of each row's cell that may open with an [always] mark
    (store/always.py); none when the drawer's catalog has no such column."""
    from ..store.always import CELL

    column = CELL.get(drawer.name)
    if column not in drawer.catalog.columns:
        return []
    at = drawer.catalog.columns.index(column)
    return [(row.line, row.cells[at] if len(row.cells) > at else "") for row in drawer.catalog.rows]


def _malformed_marks(drawer: Drawer, cells: list[tuple[int, str]]) -> list[Finding]:
    """A row text that starts like an [always] mark but is none: its brackets could
    carry words no reader judges, so it is an error, never a rule."""
    from ..store.always import MAX_PATTERNS, malformed

    message = (
        f"an [always] mark takes `[always]` or `[always: PATHS]`, at most {MAX_PATTERNS}"
        " comma-separated paths or globs of letters, digits and . _ - / * ?, then a space;"
        " fix the mark with `revise SLUG --always PATHS` or drop it with `--not-always`"
    )
    return [
        Finding(drawer.index_relpath, line, "catalog.always-mark", ERROR, message)
        for line, text in cells
        if malformed(text)
    ]


def _orders_behind_marks(drawer: Drawer, cells: list[tuple[int, str]]) -> list[Finding]:
    """The text behind a well-formed [always] mark, judged by the injection rule as find
    and the digest show it, without the mark: a long mark is no lead-in the rule knows,
    so the row's own reading could miss an order behind it. A marked row reaches every
    session unasked, so what the rule only doubts there (a quoted or named order,
    store/always.py's held_back) is reported too: find and the digest hold it back."""
    from ..store.always import held_back, malformed, unmarked

    marked = [
        (line, text) for line, text in cells if text.startswith("[always") and not malformed(text)
    ]
    if not marked:
        return []
    from ..text.injection import RULE, scan

    found = []
    for line, text in marked:
        orders = scan(drawer.index_relpath, [unmarked(text)])
        found += [finding._replace(line=line, severity=ERROR) for finding in orders]
        if not orders and held_back(text):
            found.append(Finding(drawer.index_relpath, line, RULE, ERROR, _HELD_BACK))
    return found


_HELD_BACK = (
    "an [always] row reaches every session unasked, and this one quotes or names an order"
    " to the agent: find and the session digest hold it back; state the convention as a"
    " fact about the project, or drop the mark with `revise SLUG --not-always`"
)
