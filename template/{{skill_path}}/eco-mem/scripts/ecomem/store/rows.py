"""Add, replace and remove catalog rows in an INDEX, leaving every other line as it was."""

from __future__ import annotations

from .catalog import Catalog, Row


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


def add_row(lines: list[str], catalog: Catalog, cells: list[str]) -> tuple[list[str], int]:
    """The INDEX with a row appended to the table, and that row's 1-based line number."""
    at = _table_end(lines, catalog)
    return [*lines[:at], row_text(cells), *lines[at:]], at + 1


def replace_row(lines: list[str], row: Row, cells: list[str]) -> list[str]:
    return [*lines[: row.line - 1], row_text(cells), *lines[row.line :]]


def remove_row(lines: list[str], row: Row) -> list[str]:
    return [*lines[: row.line - 1], *lines[row.line :]]


def file_text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"
