"""The `- name: value` lines of an entry: one parser, for verify, the commands and the kit."""

from __future__ import annotations

import re

from .. import protocol

# A field line: `- as_of: 2026-01-02`, `* source: verified`, `` `scope`: repo ``.
# Written so no two neighbouring quantifiers can share a character (an optional marker
# between two runs of spaces, a lazy value before trailing spaces): each line is matched
# in time linear in its length, where those shapes backtrack over every split of a run.
FIELD = re.compile(r"^\s*(?:[-*]\s*)?`?([a-z_]+)`?\s*:\s*(\S*(?:\s+\S+)*)\s*$")


def read_fields(lines: list[str]) -> dict[str, tuple[int, str]]:
    """Semantic fields as {name: (0-based line index, value)}, first occurrence wins."""
    found: dict[str, tuple[int, str]] = {}
    for index, line in enumerate(lines):
        match = FIELD.match(line) if ":" in line else None
        if match and match.group(1) in protocol.SEMANTIC_FIELDS:
            found.setdefault(match.group(1), (index, match.group(2)))
    return found
