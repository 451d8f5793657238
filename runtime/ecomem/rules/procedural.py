"""Procedural rows point at skills, workflows or tests that really exist here.

A pointer names a file of the repository, so it passes the one path rule citations and
checklist files pass too (paths.text_problem): never under `.git`, never in memory.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from ..findings import ERROR, Finding
from ..paths import CLIMBS, LINKS_OUT, link_problem, text_problem
from ..store.catalog import NO_FILE, cell_path
from ..store.load import Drawer

ESCAPES = "procedural.pointer-escapes"
MISSING = "procedural.pointer-missing"


def check_pointers(drawer: Drawer, root: Path, memory_dir: str) -> list[Finding]:
    findings: list[Finding] = []
    columns = drawer.catalog.columns
    if "points to" not in columns:
        return findings
    looked_up: dict[str, tuple[str, str] | None] = {}  # rows often share a target: look once
    for row in drawer.catalog.rows:
        target = cell_path(row.get(columns, "points to")).split("#")[0]
        if target in ("", NO_FILE):
            if cell_path(row.get(columns, "file")) in ("", NO_FILE):
                message = "row points nowhere and has no file; add a pointer or a checklist file"
                findings.append(
                    Finding(drawer.index_relpath, row.line, "procedural.empty-row", ERROR, message)
                )
            continue
        if target not in looked_up:
            looked_up[target] = _problem(root, target, memory_dir)
        found = looked_up[target]
        if found is not None:
            rule, message = found
            findings.append(Finding(drawer.index_relpath, row.line, rule, ERROR, message))
    return findings


def _problem(root: Path, target: str, memory_dir: str) -> tuple[str, str] | None:
    """(rule, message) when the pointer cannot stand, else None."""
    why = text_problem(target, memory_dir)
    if why == CLIMBS:
        return ESCAPES, f"pointer '{target}' leaves the repository; point at a path inside it"
    if why is not None:
        return ESCAPES, f"pointer '{target}' {why}"
    normal = posixpath.normpath(target)
    why = link_problem(root, normal, memory_dir)
    if why == LINKS_OUT:
        return ESCAPES, f"pointer '{target}' resolves outside the repository through a symlink"
    if why is not None:
        return ESCAPES, f"pointer '{target}' is a symlink that {why}"
    if not (root / normal).exists():
        message = (
            f"pointer '{target}' does not exist (paths are repo-relative); fix or delete the row"
        )
        return MISSING, message
    return None
