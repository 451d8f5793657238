"""Dates in memory are absolute ISO dates; relative ones rot the day after."""

from __future__ import annotations

import re
from datetime import date

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
RELATIVE_DATE = re.compile(
    r"\b(yesterday|today|tonight|tomorrow"
    r"|(last|next|this)\s+(week|month|year|quarter|sprint|monday|tuesday|wednesday|thursday|friday)"
    r"|(\d+|a|an|few|several)\s+(days?|weeks?|months?|years?)\s+ago)\b",
    re.IGNORECASE,
)


# Every relative date above contains one of these; a substring test is far
# cheaper than the regex, which has to try every position of the text.
_RELATIVE_HINTS = ("yesterday", "today", "tonight", "tomorrow", "last", "next", "this", "ago")


def find_relative_date(text: str) -> re.Match[str] | None:
    lowered = text.lower()
    if not any(hint in lowered for hint in _RELATIVE_HINTS):
        return None
    return RELATIVE_DATE.search(text)


def parse_iso(value: str) -> date | None:
    """A real calendar date in YYYY-MM-DD form, or None (fail closed)."""
    if not ISO_DATE.match(value):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None
