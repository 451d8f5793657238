"""Dates in memory are absolute ISO dates; relative ones rot the day after."""

from __future__ import annotations

import re

# CPython's datetime.py runs a pure-Python copy of the whole module before it replaces
# it with the C one, `_datetime` (its `date` is this very class): loading that directly
# saves verify about 1% of its run. Elsewhere (PyPy) the module is datetime itself.
try:
    from _datetime import date
except ImportError:  # pragma: no cover - CPython has it
    from datetime import date

from ..lazy_re import lazy

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

_UNITS = r"(?:days?|weeks?|months?|years?)"
_WEEKDAYS = "monday|tuesday|wednesday|thursday|friday"
# Each pattern comes with words at least one of which it needs. A substring test
# on those words is far cheaper than the regex, which tries every position, and a
# pattern whose words never appear is never compiled.
_RELATIVE = (
    (
        ("yesterday", "today", "tonight", "tomorrow"),
        lazy(r"\b(?:yesterday|today|tonight|tomorrow)\b", re.IGNORECASE),
    ),
    (
        ("week", "month", "year", "quarter", "sprint", *_WEEKDAYS.split("|")),
        lazy(
            rf"\b(?:last|next|this)\s+(?:week|month|year|quarter|sprint|{_WEEKDAYS})\b",
            re.IGNORECASE,
        ),
    ),
    (
        (" ago",),
        lazy(rf"\b(?:\d+|an?|few|several)\s+{_UNITS}\s+ago\b", re.IGNORECASE),
    ),
)


# In "yesterday", "today" and every weekday: text without it is spared seven searches.
_DAY = "day"


def find_relative_date(text: str) -> re.Match[str] | None:
    """The first relative date ("yesterday", "last week", "3 days ago") in text, if any."""
    lowered = text.lower()
    day = _DAY in lowered
    for hints, pattern in _RELATIVE:
        if any(hint in lowered for hint in hints if day or _DAY not in hint):
            match = pattern.search(text)
            if match:
                return match
    return None


def parse_iso(value: str) -> date | None:
    """A real calendar date in YYYY-MM-DD form, or None (fail closed)."""
    if not ISO_DATE.match(value):
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        return None
