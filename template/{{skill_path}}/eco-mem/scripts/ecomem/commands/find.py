"""`find`: search the catalogs, the INDEX-first read. Entry files are never opened.

Only the four INDEX.md files are read, so a poisoned entry cannot reach the reader
through a search, and a search costs four small reads however big the store grows.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from .. import protocol
from ..paths import escapes
from ..store.catalog import NO_FILE, cell_path, parse_catalog
from ..store.load import INDEX
from ..store.rows import cell
from ..store.textfile import read_lines

WORD = re.compile(r"\w+")
# Words that would match nearly every row and rank nothing.
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "our",
        "the",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "with",
    ]
)


def query_terms(words: list[str]) -> list[str]:
    found = WORD.findall(" ".join(words).lower())
    useful = [word for word in found if word not in STOPWORDS]
    return list(dict.fromkeys(useful or found))


class Match:
    __slots__ = ("cells", "drawer", "line", "path", "rank")

    def __init__(self, drawer: str, line: int, path: str, cells: dict, rank: tuple) -> None:
        self.drawer, self.line, self.path, self.cells, self.rank = drawer, line, path, cells, rank

    def as_text(self) -> str:
        values = [value for name, value in self.cells.items() if name != "file"]
        # Cells escape their pipes as the catalog does, so ` | ` only ever separates cells.
        return " | ".join(cell(value) for value in [self.path, *values])

    def as_dict(self) -> dict:
        return {"drawer": self.drawer, "path": self.path, "line": self.line, "cells": self.cells}


def search(
    root: Path, words: list[str], drawers: tuple[str, ...]
) -> tuple[list[Match], list[str], int]:
    """Matching rows, best first; the problems met; how many INDEX files could be read."""
    terms = query_terms(words)
    matches, problems, read = [], [], 0
    for order, drawer in enumerate(drawers):
        relpath = f"{protocol.MEMORY_DIR}/{drawer}/{INDEX}"
        if not (root / relpath).is_file():  # missing, or a FIFO that would block a read
            problems.append(f"{relpath}: not a regular file; run verify")
            continue
        lines, findings = read_lines(root / relpath, relpath)
        if lines is None:
            problems += [finding.as_text() for finding in findings]
            continue
        read += 1
        catalog = parse_catalog(lines)
        for row in catalog.rows:
            if len(row.cells) != len(catalog.columns):
                continue
            cells = dict(zip(catalog.columns, row.cells))
            path = _path(drawer, cells)
            if path is None:
                problems.append(f"{relpath}:{row.line}: row points outside memory; run verify")
                continue
            text = " ".join(row.cells).lower()
            hits = [term for term in terms if term in text]  # substrings: deploy finds deploys
            if terms and not hits:
                continue
            whole = set(WORD.findall(text))
            rank = (-len(hits), -sum(term in whole for term in hits), order, row.line)
            matches.append(Match(drawer, row.line, path, cells, rank))
    return sorted(matches, key=lambda match: match.rank), problems, read


def _path(drawer: str, cells: dict) -> str | None:
    """Where the row sends a reader: its entry file, else a procedure's pointer.
    None when that would lead out of the drawer (or the repository): verify reports
    those rows, and a search must not hand their path to a reader."""
    file = cell_path(cells.get("file", ""))
    if file and file != NO_FILE:
        if escapes(file) or "/" in posixpath.normpath(file):
            return None
        return f"{protocol.MEMORY_DIR}/{drawer}/{file}"
    pointer = cell_path(cells.get("points to", "")) or NO_FILE
    return None if escapes(pointer) else pointer
