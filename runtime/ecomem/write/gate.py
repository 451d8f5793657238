"""The write gate: verify's own rules (rules/registry.py), run on the store as a write leaves it.

A command describes its write as a list of drawer changes. The gate applies them to the
store loaded in memory, runs the same rules `verify` runs, and keeps the findings that
land on what the write touches: the new or edited entry files and catalog rows. Anything
it keeps is a refusal, warnings included, because a write should never add a finding
that verify would then print. Old problems elsewhere in the store do not block a write.
"""

from __future__ import annotations

from datetime import date

from .. import protocol
from ..findings import ERROR, Finding
from ..rules import registry
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
    # The file rules judge the bytes the write will produce; what they find is the
    # write's own doing, wherever in the file it lands.
    file_findings: list[Finding] = []
    for change in changes:
        drawer = store.drawers[change.drawer]
        if change.index_lines is not None:
            drawer.index_lines, found = registry.file_rules(
                drawer.index_relpath, change.index_lines
            )
            file_findings += found
            drawer.catalog = parse_catalog(drawer.index_lines or [])
            touched_rows.update((drawer.index_relpath, line) for line in change.rows)
        for name, lines in change.files.items():
            # Re-insert at the end: duplicate rules report the later of two entries.
            drawer.entries.pop(name, None)
            if lines is not None:
                relpath = f"{drawer.relpath}/{name}"
                read_back, found = registry.file_rules(relpath, lines)
                file_findings += found
                drawer.entries[name] = Entry(drawer.name, name, relpath, read_back)
                touched_paths.add(relpath)
    findings = registry.check_store(
        store, today, [change.drawer for change in changes], touched=touched_paths
    )
    kept = {
        finding
        for finding in findings
        if finding.path in touched_paths or (finding.path, finding.line) in touched_rows
    }
    return sorted(kept.union(file_findings))


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
