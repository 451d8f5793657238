"""Marked blocks: the only lines eco-mem writes inside a file the host owns.

A block runs from a begin marker line to an end marker line. Every byte
outside it is the host's and is written back exactly as read; a file whose
markers are malformed is reported with FILE:LINE and left untouched.
AGENTS.md, CLAUDE.md and the root .gitignore all use these functions, each
with markers in its own comment syntax.
"""

from __future__ import annotations

# `markers` below is (begin marker line, end marker line), compared after
# stripping white space.


class BlockError(Exception):
    """A file cannot take the block safely; the message names file and line."""


def locate_block(lines: list[str], name: str, markers: tuple[str, str]) -> tuple[int, int] | None:
    """(begin, end) line indexes of the one well-formed block, None if there is none."""
    begin, end = markers
    begins = [i for i, line in enumerate(lines) if line.strip() == begin]
    ends = [i for i, line in enumerate(lines) if line.strip() == end]
    if not begins and not ends:
        return None
    if len(begins) != 1 or len(ends) != 1 or ends[0] < begins[0]:
        raise BlockError(_marker_problem(name, begins, ends, markers))
    return begins[0], ends[0]


def _marker_problem(name: str, begins: list[int], ends: list[int], markers: tuple[str, str]) -> str:
    begin, end = markers
    if len(begins) > 1:
        return f"{name}:{begins[1] + 1}: a second '{begin}' marker; keep one block"
    if len(ends) > 1:
        return f"{name}:{ends[1] + 1}: a second '{end}' marker; keep one block"
    if not ends:
        return f"{name}:{begins[0] + 1}: '{begin}' has no matching '{end}'"
    if not begins:
        return f"{name}:{ends[0] + 1}: '{end}' has no '{begin}' before it"
    return f"{name}:{ends[0] + 1}: '{end}' comes before '{begin}'"


def upsert_block(text: str, body: list[str], name: str, markers: tuple[str, str]) -> str:
    """Return `text` with the eco-mem block holding `body`, appended or replaced in place."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    block = [line + newline for line in [markers[0], *body, markers[1]]]
    found = locate_block(lines, name, markers)
    if found is None:
        if not text:
            return "".join(block)
        if text.endswith(("\n", "\r")):
            return text + newline + "".join(block)
        # A file with no final newline keeps having none: the block takes the host's last
        # line ending, so remove_block can give the file back byte for byte.
        return text + newline * 2 + "".join(block).rstrip("\r\n")
    start, stop = found
    # The end marker's own line ending is the host's: keep "no final newline" as it was.
    if not lines[stop].endswith(("\n", "\r")):
        block[-1] = block[-1].rstrip("\r\n")
    return "".join(lines[:start] + block + lines[stop + 1 :])


def remove_block(text: str, name: str, markers: tuple[str, str]) -> str:
    """Return `text` without the eco-mem block, and the blank line put before it on append."""
    lines = text.splitlines(keepends=True)
    found = locate_block(lines, name, markers)
    if found is None:
        return text
    start, stop = found
    # A block at the end was appended after a blank line of ours: take it too.
    if stop == len(lines) - 1 and start > 0 and not lines[start - 1].strip():
        start -= 1
        if start > 0 and not lines[stop].endswith(("\n", "\r")):
            # Appended to a file with no final newline (upsert_block): give its last
            # line back without the line ending we added.
            kept = lines[:start]
            kept[-1] = kept[-1].rstrip("\r\n")
            return "".join(kept)
    return "".join(lines[:start] + lines[stop + 1 :])
