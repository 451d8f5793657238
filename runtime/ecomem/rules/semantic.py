"""Semantic facts: one fact per file, with provenance a reader can trust."""

from __future__ import annotations

import re

from .. import protocol
from ..findings import ERROR, WARNING, Finding
from ..store.catalog import cell_path
from ..store.dates import find_relative_date, parse_iso
from ..store.fields import FIELD
from ..store.load import Drawer


def check_semantic(drawer: Drawer, today) -> list[Finding]:
    findings: list[Finding] = []
    titles: dict[str, str] = {}
    for entry in drawer.entries.values():
        if entry.lines is None:
            continue
        findings.extend(_check_fact(entry.relpath, entry.lines, today))
        number, title = next(
            (
                (n, line[2:].strip())
                for n, line in enumerate(entry.lines, 1)
                if line.startswith("# ")
            ),
            (0, ""),
        )
        key = re.sub(r"\W+", " ", title).strip().lower()
        if key and key in titles:
            message = f"same title as {titles[key]}; merge the two facts into one file"
            findings.append(Finding(entry.relpath, number, "semantic.duplicate", ERROR, message))
        elif key:
            titles[key] = entry.relpath
    slugs: dict[str, int] = {}
    for row in drawer.catalog.rows:
        slug = cell_path(row.get(drawer.catalog.columns, "slug")).lower()
        if slug and slug in slugs:
            message = f"slug '{slug}' already used on line {slugs[slug]}; one fact per slug"
            findings.append(
                Finding(drawer.index_relpath, row.line, "semantic.duplicate", ERROR, message)
            )
        slugs.setdefault(slug, row.line)
    return findings


def _check_fact(relpath: str, lines: list[str], today) -> list[Finding]:
    findings: list[Finding] = []

    def report(line: int, rule: str, message: str, severity: str = ERROR) -> None:
        findings.append(Finding(relpath, line, rule, severity, message))

    headings = [number for number, line in enumerate(lines, 1) if line.startswith("# ")]
    if not headings:
        report(1, "semantic.one-fact", "needs exactly one '# title' line")
    elif len(headings) > 1:
        report(
            headings[1], "semantic.one-fact", "more than one '# title': one fact per file, split it"
        )

    fields: dict[str, tuple[int, str]] = {}
    # One search over the whole fact decides whether any line needs the per-line look.
    has_relative_date = find_relative_date("\n".join(lines)) is not None
    for number, line in enumerate(lines, 1):
        match = FIELD.match(line) if ":" in line else None
        if match and match.group(1) == "cites":
            continue  # cited text is the code's words, not the fact's (rules/cites.py)
        if not match or match.group(1) not in protocol.SEMANTIC_FIELDS:
            relative = find_relative_date(line) if has_relative_date else None
            if relative:
                message = f"relative date '{relative.group(0)}'; write the ISO date"
                report(number, "semantic.relative-date", message, WARNING)
            continue
        name, value = match.group(1), match.group(2)
        if name in fields:
            message = f"'{name}' appears twice (first on line {fields[name][0]}); one fact per file"
            report(number, "semantic.one-fact", message)
        else:
            fields[name] = (number, value)

    for name in protocol.SEMANTIC_FIELDS:
        number, value = fields.get(name, (0, ""))
        if not value:
            report(
                number,
                "semantic.field-missing",
                f"missing '- {name}:' field; see references/entry-shapes.md",
            )
        elif name == "as_of":
            _check_as_of(number, value, today, report)
        elif name == "source" and value not in protocol.SEMANTIC_SOURCES:
            allowed = ", ".join(protocol.SEMANTIC_SOURCES)
            report(
                number,
                "semantic.source",
                f"source '{value}' must be one of {allowed}; unconfirmed means derived",
            )
        elif name == "expires":
            _check_expires(number, value, today, report)
    return findings


def _check_as_of(number: int, value: str, today, report) -> None:
    when = parse_iso(value)
    if find_relative_date(value):
        report(
            number,
            "semantic.relative-date",
            f"as_of '{value}' is relative; write the ISO date (YYYY-MM-DD)",
        )
    elif when is None:
        report(number, "semantic.as-of", f"as_of '{value}' is not an ISO date (YYYY-MM-DD)")
    elif when > today:
        report(
            number,
            "semantic.as-of",
            f"as_of {value} is in the future; use the date it was confirmed",
        )


def _check_expires(number: int, value: str, today, report) -> None:
    if value == "never":
        return
    until = parse_iso(value)
    if until is None:
        report(number, "semantic.expires", f"expires '{value}' must be an ISO date or 'never'")
    elif until < today:
        report(
            number,
            "semantic.expired",
            f"expired on {value}; re-confirm it (new as_of and expires) or delete it",
        )
