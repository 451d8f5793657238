"""Parse a drawer's `## Catalog` markdown table into rows.

A real table parser, not token hunting: the header and separator are
required, cells split on unescaped pipes outside code spans, and a file cell
may be plain, in backticks, or a markdown link.
"""

from __future__ import annotations

import re

HEADING = re.compile(r"^##\s+catalog\s*$", re.IGNORECASE)
SEPARATOR_CELL = re.compile(r"^:?-{3,}:?$")
LINK = re.compile(r"^\[[^\]]*\]\(([^)\s]*)\)$")
NO_FILE = "-"


class Row:
    __slots__ = ("cells", "line")

    def __init__(self, line: int, cells: list[str]) -> None:
        self.line = line  # 1-based line number in INDEX.md
        self.cells = cells

    def get(self, columns: list[str], name: str) -> str:
        return self.cells[columns.index(name)] if name in columns else ""


class Catalog:
    def __init__(self) -> None:
        self.heading_line = 0  # 0: no catalog heading found
        self.header_line = 0  # the table's column names
        self.columns: list[str] = []
        self.rows: list[Row] = []
        self.problems: list[tuple[int, str]] = []  # (line, message)


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


def cell_path(cell: str) -> str:
    """The path a file cell names: `x.md`, [x](x.md) or x.md all give x.md."""
    value = cell.strip()
    link = LINK.match(value)
    if link:
        value = link.group(1)
    if len(value) >= 2 and value.startswith("`") and value.endswith("`"):
        value = value[1:-1].strip()
    return value


def parse_catalog(lines: list[str]) -> Catalog:
    catalog = Catalog()
    for index, line in enumerate(lines):
        if HEADING.match(line):
            catalog.heading_line = index + 1
            break
    else:
        return catalog
    index = catalog.heading_line
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index >= len(lines) or not lines[index].lstrip().startswith("|"):
        catalog.problems.append((catalog.heading_line, "no table under '## Catalog'"))
        return catalog
    catalog.header_line = index + 1
    catalog.columns = [cell.lower() for cell in split_cells(lines[index])]
    separator = lines[index + 1] if index + 1 < len(lines) else ""
    separator_cells = split_cells(separator)
    if len(separator_cells) != len(catalog.columns) or not all(
        SEPARATOR_CELL.match(cell) for cell in separator_cells
    ):
        catalog.problems.append(
            (index + 2, "the header row needs a '|---|' separator line under it")
        )
        return catalog
    for number in range(index + 2, len(lines)):
        line = lines[number]
        if not line.lstrip().startswith("|"):
            break
        cells = split_cells(line)
        if len(cells) != len(catalog.columns):
            catalog.problems.append(
                (number + 1, f"row has {len(cells)} cells, the header has {len(catalog.columns)}")
            )
            continue
        catalog.rows.append(Row(number + 1, cells))
    return catalog
