"""Add, replace and remove catalog rows in an INDEX, leaving every other line as it was.

Where a new row goes matters once several branches add rows at the same time:
rows all appended after the last one collide in every merge, because each
branch changes the same spot of the file. A new row is therefore placed in
order of its key (see `row_key`), so rows added on different branches land
in different places of the table and plain git merges them line by line.
"""

from __future__ import annotations

from .catalog import NO_FILE, Catalog, Row, cell_path, split_cells

# An episode file is YYYY-MM-DD-slug.md. Ordered by its full name, every new
# episode would sort after every older one, at the end of the table, and two
# branches' episodes would collide there just as appended rows do. The slug
# without its date spreads them over the table like facts. (A hash of the name
# would spread them evenly too, but slug order is one a reader can follow.)


def without_date(name: str) -> str:
    """`name` less a leading `YYYY-MM-DD-` (what ^\\d{4}-\\d{2}-\\d{2}- matched; str
    methods, not re, keep re out of git's merge driver). isdecimal() is \\d's class."""
    date = name[:11]
    if (
        len(date) == 11
        and date[4] == date[7] == date[10] == "-"
        and (date[:4] + date[5:7] + date[8:10]).isdecimal()
    ):
        return name[11:]
    return name


def cell(text: str) -> str:
    """One table cell: on one line, its pipes escaped so the row keeps its shape."""
    return " ".join(text.split()).replace("|", "\\|")


def row_text(cells: list[str]) -> str:
    return "| " + " | ".join(cell(value) for value in cells) + " |"


def _table_end(lines: list[str], catalog: Catalog) -> int:
    """Index of the first line after the catalog table (rows are appended there)."""
    index = catalog.header_line + 1  # 0-based index of the first line after the separator
    while index < len(lines) and lines[index].lstrip().startswith("|"):
        index += 1
    return index


def row_key(columns: list[str], cells: list[str]) -> str:
    """The order a row is placed in: its file name (an episode's without the date),
    or its first cell when it has no file (a procedural pointer)."""
    # The cell count first: a short row (`| slug |`) has no file cell to read.
    if len(cells) != len(columns) or "file" not in columns:
        return (cells[0] if cells else "").lower()
    file = cell_path(cells[columns.index("file")])
    if not file or file == NO_FILE:
        return (cells[0] if cells else "").lower()
    name = file.rsplit("/", 1)[-1].lower()
    return without_date(name[:-3] if name.endswith(".md") else name)


def line_key(columns: list[str], line: str) -> str:
    return row_key(columns, split_cells(line))


def place(keys: list[str], key: str) -> int:
    """Where a row with `key` goes among rows with `keys`: right after the row
    with the greatest smaller key, else before the row with the smallest key.

    In a sorted table that is sorted order. A table written before rows were
    placed (in the order they were added) is never reordered, since moving rows
    once would conflict with every open branch; a new row still lands beside
    its nearest neighbour, somewhere in the table rather than at its end.
    """
    if not keys:
        return 0
    before = [(known, index) for index, known in enumerate(keys) if known <= key]
    if before:
        return max(before)[1] + 1
    return min((known, index) for index, known in enumerate(keys))[1]


def add_row(lines: list[str], catalog: Catalog, cells: list[str]) -> tuple[list[str], int]:
    """The INDEX with a row placed in the table (see `place`), and its 1-based line number."""
    keys = [row_key(catalog.columns, row.cells) for row in catalog.rows]
    at = place(keys, row_key(catalog.columns, cells))
    if at < len(catalog.rows):
        index = catalog.rows[at].line - 1
    elif catalog.rows:
        index = catalog.rows[-1].line
    else:
        index = _table_end(lines, catalog)
    return [*lines[:index], row_text(cells), *lines[index:]], index + 1


def replace_row(lines: list[str], row: Row, cells: list[str]) -> list[str]:
    return [*lines[: row.line - 1], row_text(cells), *lines[row.line :]]


def remove_row(lines: list[str], row: Row) -> list[str]:
    return [*lines[: row.line - 1], *lines[row.line :]]


def file_text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"
