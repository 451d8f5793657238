"""Procedural rows point at skills, workflows or tests that really exist here."""

from __future__ import annotations

import posixpath
from pathlib import Path

from ..findings import ERROR, Finding
from ..paths import escapes, inside
from ..store.catalog import NO_FILE, cell_path
from ..store.load import Drawer


def check_pointers(drawer: Drawer, root: Path) -> list[Finding]:
    findings: list[Finding] = []
    columns = drawer.catalog.columns
    if "points to" not in columns:
        return findings
    looked_up: dict[str, tuple[bool, bool]] = {}  # rows often share a target: look once
    for row in drawer.catalog.rows:
        target = cell_path(row.get(columns, "points to")).split("#")[0]
        if target in ("", NO_FILE):
            if cell_path(row.get(columns, "file")) in ("", NO_FILE):
                message = "row points nowhere and has no file; add a pointer or a checklist file"
                findings.append(
                    Finding(drawer.index_relpath, row.line, "procedural.empty-row", ERROR, message)
                )
            continue
        if escapes(target):
            message = f"pointer '{target}' leaves the repository; point at a path inside it"
            findings.append(
                Finding(
                    drawer.index_relpath, row.line, "procedural.pointer-escapes", ERROR, message
                )
            )
            continue
        normal = posixpath.normpath(target)
        if normal not in looked_up:
            path = root / normal
            looked_up[normal] = (inside(path, root), path.exists())
        within, exists = looked_up[normal]
        if not within:
            message = f"pointer '{target}' resolves outside the repository through a symlink"
            findings.append(
                Finding(
                    drawer.index_relpath, row.line, "procedural.pointer-escapes", ERROR, message
                )
            )
        elif not exists:
            message = f"pointer '{target}' does not exist (paths are repo-relative); fix or delete the row"
            findings.append(
                Finding(
                    drawer.index_relpath, row.line, "procedural.pointer-missing", ERROR, message
                )
            )
    return findings
