"""A rule as `find` hands it over: its catalog row, then its entry's own words.

A row marked `[always]` binds every change (store/always.py), but its one-liner only
names the rule: agents given the titles opened each entry to read what to do (issue 46).
So find prints, under each rule that applies, the prose of the entry behind it, and no
entry needs opening to follow a rule. The store pays for that in bytes on every load,
and verify holds those bytes to a budget (rules/always_budget.py) measured here, so the
budget and what find prints are one count.
"""

from __future__ import annotations

from ..text.cites import cite_lines
from .fields import read_fields

INDENT = "  "  # a rule's lines sit under its row, so they never read as a row of their own


def prose(lines: list[str]) -> list[str]:
    """The entry's words a reader follows: no title, field, cites or blank line."""
    skip = set(cite_lines(lines))
    skip.update(index for index, _ in read_fields(lines).values())
    return [
        line.strip()
        for index, line in enumerate(lines)
        if index not in skip and line.strip() and not line.startswith("# ")
    ]


def indented(lines: list[str]) -> list[str]:
    return [INDENT + line for line in lines]


def rule_bytes(row: str, lines: list[str] | None) -> int:
    """The bytes find prints for one rule: its row and its entry's prose, each a line."""
    body = indented(prose(lines)) if lines else []
    return sum(len(line.encode("utf-8")) + 1 for line in [row, *body])
