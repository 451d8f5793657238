"""The write gate: verify's own rules, run on a store as it would be after a write.

A command describes its write as a list of drawer changes. The gate applies them to the
store loaded in memory, runs the same rules `verify` runs, and keeps the findings that
land on what the write touches: the new or edited entry files and catalog rows. Anything
it keeps is a refusal, warnings included, because a write should never add a finding
that verify would then print. Old problems elsewhere in the store do not block a write.
"""

from __future__ import annotations

from datetime import date

from .. import protocol
from ..commands.verify import CONTENT_RULES
from ..findings import ERROR, Finding
from ..rules.caps import check_caps
from ..rules.cites import check_cites
from ..rules.drift import check_drift
from ..rules.episodic import check_episodic
from ..rules.procedural import check_pointers
from ..rules.semantic import check_semantic
from ..store.catalog import cell_path, parse_catalog
from ..store.dates import parse_iso
from ..store.load import Drawer, Entry, Store
from ..store.shapes import read_fields


class Change:
    """What one command does to one drawer."""

    def __init__(self, drawer: str) -> None:
        self.drawer = drawer
        self.files: dict[str, list[str] | None] = {}  # entry name -> lines, None deletes
        self.index_lines: list[str] | None = None  # the new INDEX, None if untouched
        self.rows: set[int] = set()  # 1-based lines of rows added or edited


def check(store: Store, changes: list[Change], today: date) -> list[Finding]:
    touched_paths: set[str] = set()
    touched_rows: set[tuple[str, int]] = set()
    for change in changes:
        drawer = store.drawers[change.drawer]
        if change.index_lines is not None:
            drawer.index_lines = change.index_lines
            drawer.catalog = parse_catalog(change.index_lines)
            touched_rows.update((drawer.index_relpath, line) for line in change.rows)
        for name, lines in change.files.items():
            # Re-insert at the end: duplicate rules report the later of two entries.
            drawer.entries.pop(name, None)
            if lines is not None:
                relpath = f"{drawer.relpath}/{name}"
                drawer.entries[name] = Entry(drawer.name, name, relpath, lines)
                touched_paths.add(relpath)
    findings = check_caps(store)
    for change in changes:
        findings += _drawer_findings(store, store.drawers[change.drawer], today)
    # Citations (issue 18): only the entries this write touches have their evidence read.
    findings += check_cites(store, only=touched_paths)
    return sorted(
        {
            finding
            for finding in findings
            if finding.path in touched_paths or (finding.path, finding.line) in touched_rows
        }
    )


def _drawer_findings(store: Store, drawer: Drawer, today: date) -> list[Finding]:
    findings = check_drift(drawer)
    documents = [(entry.relpath, entry.lines) for entry in drawer.entries.values()]
    documents.append((drawer.index_relpath, drawer.index_lines or []))
    for relpath, lines in documents:
        if lines is not None:
            for scan in CONTENT_RULES:
                findings += scan(relpath, lines)
    if drawer.name == "semantic":
        findings += check_semantic(drawer, today)
    elif drawer.name == "episodic":
        findings += check_episodic(drawer)
    elif drawer.name == "procedural":
        findings += check_pointers(drawer, store.root)
    return findings


def full_catalog(drawer: Drawer, today: date) -> Finding | None:
    """A refusal when the drawer's catalog has no room for another row."""
    rows, cap = drawer.catalog.rows, protocol.CAPS["catalog_rows"]
    if len(rows) < cap:
        return None
    names = ", ".join(retire_candidates(drawer, today))
    message = (
        f"the {drawer.name} catalog is full ({len(rows)} rows, cap {cap}); ask the user"
        f" which rows to retire (file and row go together; git history keeps them): {names}"
    )
    return Finding(drawer.index_relpath, rows[-1].line, "caps.catalog-rows", ERROR, message)


def retire_candidates(drawer: Drawer, today: date, limit: int = 5) -> list[str]:
    """Rows a human could retire first: expired facts, then the oldest; dead pointers first."""
    columns = drawer.catalog.columns
    ranked = []
    for position, row in enumerate(drawer.catalog.rows):
        file_name = cell_path(row.get(columns, "file"))
        name = file_name[:-3] if drawer.name == "episodic" else cell_path(row.cells[0])
        entry = drawer.entries.get(file_name)
        if drawer.name == "semantic":
            expires = ""
            if entry is not None and entry.lines is not None:
                expires = read_fields(entry.lines).get("expires", (0, ""))[1]
            until = parse_iso(expires)
            as_of = row.get(columns, "as_of")
            if until is not None and until < today:
                ranked.append(((0, expires, position), f"{name} (expired {expires})"))
            else:
                ranked.append(((1, as_of, position), f"{name} (as_of {as_of})"))
        elif drawer.name == "episodic":
            ranked.append(((1, row.get(columns, "date"), position), name))
        else:
            ranked.append(((1, "", position), name))
    return [label for _, label in sorted(ranked)[:limit]]
