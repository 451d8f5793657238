"""Move desk rows out of the tracked working INDEX: desks are listed by their files now.

Releases before this one added a row per desk to `working/INDEX.md`, a tracked file,
so `git commit -a` with a desk open carried the row to every clone. The after-update
migration (`restore-indexes`) runs this: every row goes, every other byte of the file
stays (line ends included), and a second run finds nothing to do. The desk files keep
their title and goal, so nothing a row said is lost.
"""

from __future__ import annotations

from pathlib import Path

from ecomem import protocol
from ecomem.safe_open import replace
from ecomem.store.catalog import parse_catalog
from ecomem.store.load import INDEX


def strip_desk_rows(root: Path) -> int:
    """Remove the desk rows from the working INDEX; how many went."""
    index = root / protocol.MEMORY_DIR / "working" / INDEX
    if not index.is_file():
        return 0
    with index.open(encoding="utf-8", newline="") as handle:
        text = handle.read()
    # Lines end at "\n" only: a U+2028 or form feed inside a row is part of it.
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]  # what followed the last "\n" (usually nothing)
    rows = parse_catalog([line.rstrip("\r\n") for line in lines]).rows
    if not rows:
        return 0
    gone = {row.line - 1 for row in rows}
    kept = [line for number, line in enumerate(lines) if number not in gone]
    replace(root, index, "".join(kept))
    return len(rows)
