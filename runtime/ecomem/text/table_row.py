"""A Markdown table line's cells: the one splitter the catalog parser and the injection
rule share, so both read a row's cells alike (`\\|` restored, code spans kept whole)."""

from __future__ import annotations


def split_cells(line: str) -> list[str]:
    """Split one table line into trimmed cells, honouring `\\|` and code spans."""
    body = line.strip()
    if "\\" not in body and "`" not in body:
        # The common row: nothing to honour, so let str.split do the walking.
        cells = [cell.strip() for cell in body.split("|")]
        return cells[1 if body.startswith("|") else 0 : -1 if body.endswith("|") else None]
    cells, current, in_code, i = [], [], False, 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body) and body[i + 1] == "|":
            current.append("|")
            i += 2
            continue
        # A backtick opens a code span only if another one closes it later on.
        if char == "`" and (in_code or "`" in body[i + 1 :]):
            in_code = not in_code
        if char == "|" and not in_code:
            cells.append("".join(current).strip())
            current = []
        else:
            current.append(char)
        i += 1
    cells.append("".join(current).strip())
    # A leading and trailing pipe leave empty edge cells behind.
    if body.startswith("|"):
        cells = cells[1:]
    if body.endswith("|") and not body.endswith("\\|") and cells:
        cells = cells[:-1]
    return cells
