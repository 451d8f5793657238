"""The byte budget of the rules every load prints.

`find` prints every `[always]` row that applies with its entry's prose, and drops none
(a rule cut by a count never reaches the agent that must follow it). What bounds the
load is then the store itself: the rows marked `[always]` or `[always: PATHS]`, row and
prose together (store/rule_text.py counts them as find prints them), may hold at most
protocol.CAPS["always_bytes"] bytes. Past it this is an error naming the marked rows,
largest first, so the user chooses which to scope to folders or to demote; the write
gate runs it too, so a mark that would pass the budget is refused before it is written.
Rows under paths count as if one task touched them all: the budget holds for any task.
"""

from __future__ import annotations

from .. import protocol
from ..findings import ERROR, Finding
from ..store.always import CELL, mark_of
from ..store.catalog import NO_FILE, cell_path
from ..store.load import Store
from ..store.names import shown
from ..store.rule_text import rule_bytes

NAMED = 8  # rows a finding names, the largest first; the rest are counted


def check_always_budget(store: Store, each_row: bool = False) -> list[Finding]:
    """One finding at the first marked row; with `each_row`, the same finding at every
    marked row: the write gate keeps only findings on the rows a write touches, and the
    row that tips the budget may sit anywhere in the catalog."""
    budget = protocol.CAPS["always_bytes"]
    sized: list[tuple[int, str]] = []
    places: list[tuple[str, int]] = []
    for name, column in CELL.items():
        drawer = store.drawers.get(name)
        if drawer is None or column not in drawer.catalog.columns:
            continue
        at = drawer.catalog.columns.index(column)
        for row in drawer.catalog.rows:
            if len(row.cells) != len(drawer.catalog.columns) or mark_of(row.cells[at]) is None:
                continue
            entry = drawer.entries.get(cell_path(row.cells[-1]))
            lines = entry.lines if entry is not None else None
            text = drawer.index_lines[row.line - 1] if drawer.index_lines else ""
            file = cell_path(row.cells[-1])
            where = shown(file) if file != NO_FILE else f"{name}/INDEX.md line {row.line}"
            sized.append((rule_bytes(text, lines), where))
            places.append((drawer.index_relpath, row.line))
    total = sum(size for size, _ in sized)
    if total <= budget:
        return []
    sized.sort(key=lambda item: (-item[0], item[1]))
    named = ", ".join(f"{where} ({size} B)" for size, where in sized[:NAMED])
    more = f" and {len(sized) - NAMED} more" if len(sized) > NAMED else ""
    message = (
        f"the {len(sized)} rows marked [always] print {total} bytes on every load, budget"
        f" {budget}: scope some to their folders (revise SLUG --always 'PATHS') or demote"
        f" them (revise SLUG --not-always), with the user: {named}{more}"
    )
    anchors = places if each_row else places[:1]
    return [Finding(path, line, "caps.always-bytes", ERROR, message) for path, line in anchors]
