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
    findings += _malformed_marks(drawer)
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


def _malformed_marks(drawer: Drawer) -> list[Finding]:
    """A row text that starts like an [always] mark but is none (store/always.py): its
    brackets could carry words no reader judges, so it is an error, never a rule. A
    well-formed mark's text is judged as find and the digest show it, without the mark:
    a long mark is no lead-in the injection rule knows, so the row's own reading of it
    could miss an order behind it."""
    from ..store.always import CELL, MAX_PATTERNS, malformed, unmarked

    column = CELL.get(drawer.name)
    if column not in drawer.catalog.columns:
        return []
    at = drawer.catalog.columns.index(column)
    message = (
        f"an [always] mark takes `[always]` or `[always: PATHS]`, at most {MAX_PATTERNS}"
        " comma-separated paths or globs of letters, digits and . _ - / * ?, then a space;"
        " fix the mark with `revise SLUG --always PATHS` or drop it with `--not-always`"
    )
    findings = []
    for row in drawer.catalog.rows:
        text = row.cells[at] if len(row.cells) > at else ""
        if malformed(text):
            findings.append(
                Finding(drawer.index_relpath, row.line, "catalog.always-mark", ERROR, message)
            )
        elif text.startswith("[always"):
            from ..text.injection import scan

            findings += [
                finding._replace(line=row.line, severity=ERROR)
                for finding in scan(drawer.index_relpath, [unmarked(text)])
            ]
    return findings
