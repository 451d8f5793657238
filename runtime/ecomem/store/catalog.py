"""Parse a drawer's `## Catalog` markdown table into rows.

A real table parser, not token hunting: the header and separator are
required, cells split on unescaped pipes outside code spans, and a file cell
may be plain, in backticks, or a markdown link.
"""

from __future__ import annotations

# Also what callers that read a row import from here; it lives below the store, where the
# injection rule reads a row's cells too.
from ..text.table_row import split_cells

NO_FILE = "-"

# The three shapes below are read with str methods, not `re`: importing re costs
# git's merge driver (store/merge.py), a new process per conflicted catalog, about
# 12 ms, more than the merge itself. `\s` and str.isspace() are the same class.


def is_heading(line: str) -> bool:
    """`## Catalog`, any case, spaces around (the regex ^##\\s+catalog\\s*$, ignoring case)."""
    rest = line[2:] if line.startswith("##") else ""
    return rest[:1].isspace() and rest.strip().lower() == "catalog"


def is_separator_cell(cell: str) -> bool:
    """`---`, `:---`, `---:` or `:---:` with three dashes or more (^:?-{3,}:?$)."""
    if cell.endswith("\n"):  # `$` matches before a final newline too
        cell = cell[:-1]
    body = cell[1:] if cell.startswith(":") else cell
    body = body[:-1] if body.endswith(":") else body
    return len(body) >= 3 and body.count("-") == len(body)


def link_target(value: str) -> str | None:
    """The target of `[text](target)`, a whole value; None for any other shape
    (the regex ^\\[[^\\]]*\\]\\(([^)\\s]*)\\)$)."""
    if value.endswith("\n"):
        value = value[:-1]
    close = value.find("]")  # the text holds no `]`: the first one closes it
    if not value.startswith("[") or close < 0 or value[close + 1 : close + 2] != "(":
        return None
    if not value.endswith(")") or len(value) < close + 3:
        return None
    target = value[close + 2 : -1]
    if ")" in target or any(char.isspace() for char in target):
        return None
    return target


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


def cell_path(cell: str) -> str:
    """The path a file cell names: `x.md`, [x](x.md) or x.md all give x.md."""
    value = cell.strip()
    link = link_target(value)
    if link is not None:
        value = link
    if len(value) >= 2 and value.startswith("`") and value.endswith("`"):
        value = value[1:-1].strip()
    return value


def parse_catalog(lines: list[str]) -> Catalog:
    catalog = Catalog()
    for index, line in enumerate(lines):
        if is_heading(line):
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
        is_separator_cell(cell) for cell in separator_cells
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
