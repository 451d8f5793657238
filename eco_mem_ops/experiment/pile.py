"""The "one pile" a team would keep without eco-mem: every catalog row and every entry
body in one always-loaded AGENTS.md section.

`experiment plant ab` writes it into its `pile` arm, and benchmarks/read_path.py
measures it against eco-mem's read path, so both compare against the same pile.
Desks are left out: they are one task's working notes, not what a pile would keep.
"""

from __future__ import annotations

import os
from pathlib import Path

from ecomem import protocol
from ecomem.store.catalog import cell_path, parse_catalog
from ecomem.store.load import INDEX

HEADING = "## Project memory"
DURABLE = tuple(drawer for drawer in protocol.DRAWERS if drawer != "working")


def pile_text(root: Path) -> str:
    """The pile section for the store at `root`: per drawer its rows, then each entry."""
    parts = [HEADING, "", "Everything the team has noted, in one place: facts, past events", ""]
    parts[-2] += " with their lessons, and how work is done here."
    for drawer in DURABLE:
        folder = Path(root) / protocol.MEMORY_DIR / drawer
        index = folder / INDEX
        if not index.is_file():
            continue
        lines = index.read_text(encoding="utf-8").splitlines()
        catalog = parse_catalog(lines)
        if not catalog.rows:
            continue
        parts += [f"### {drawer}", ""]
        parts += [lines[catalog.header_line - 1], lines[catalog.header_line]]
        parts += [lines[row.line - 1] for row in catalog.rows]
        for row in catalog.rows:
            name = cell_path(row.get(catalog.columns, "file"))
            entry = folder / name
            if name in ("", "-") or os.path.islink(entry) or not entry.is_file():
                continue  # a pointer row: the row is the whole entry
            text = entry.read_text(encoding="utf-8").strip().splitlines()
            # Headings sink under the drawer's: an entry's `# title` becomes `#### title`.
            parts += ["", *("###" + line if line.startswith("#") else line for line in text)]
        parts.append("")
    return "\n".join(parts).rstrip("\n") + "\n"
