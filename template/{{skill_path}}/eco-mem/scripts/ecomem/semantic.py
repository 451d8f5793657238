"""Semantic facts: one fact per file, with provenance a reader can trust."""

from __future__ import annotations

import re

from . import protocol
from .catalog import cell_path
from .dates import find_relative_date, parse_iso
from .findings import ERROR, WARNING, Finding
from .store import Drawer

FIELD = re.compile(r"^\s*[-*]?\s*`?([a-z_]+)`?\s*:\s*(.*?)\s*$")


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
    fields: dict[str, tuple[int, str]] = {}
    headings = [number for number, line in enumerate(lines, 1) if line.startswith("# ")]
    if len(headings) != 1:
        message = (
            "needs exactly one '# title' line"
            if not headings
            else "more than one '# title': one fact per file, split it"
        )
        findings.append(
            Finding(
                relpath,
                headings[1] if len(headings) > 1 else 1,
                "semantic.one-fact",
                ERROR,
                message,
            )
        )
    # One search over the whole fact decides whether any line needs the per-line look.
    has_relative_date = find_relative_date("\n".join(lines)) is not None
    for number, line in enumerate(lines, 1):
        match = FIELD.match(line) if ":" in line else None
        if not match or match.group(1) not in protocol.SEMANTIC_FIELDS:
            relative = find_relative_date(line) if has_relative_date else None
            if relative:
                message = f"relative date '{relative.group(0)}'; write the ISO date"
                findings.append(
                    Finding(relpath, number, "semantic.relative-date", WARNING, message)
                )
            continue
        name, value = match.group(1), match.group(2)
        if name in fields:
            message = f"'{name}' appears twice (first on line {fields[name][0]}); one fact per file"
            findings.append(Finding(relpath, number, "semantic.one-fact", ERROR, message))
            continue
        fields[name] = (number, value)
    for name in protocol.SEMANTIC_FIELDS:
        if name not in fields or not fields[name][1]:
            message = f"missing '- {name}:' field; see references/entry-shapes.md"
            findings.append(
                Finding(
                    relpath, fields.get(name, (0,))[0], "semantic.field-missing", ERROR, message
                )
            )
    if "as_of" in fields and fields["as_of"][1]:
        number, value = fields["as_of"]
        when = parse_iso(value)
        if find_relative_date(value):
            findings.append(
                Finding(
                    relpath,
                    number,
                    "semantic.relative-date",
                    ERROR,
                    f"as_of '{value}' is relative; write the ISO date (YYYY-MM-DD)",
                )
            )
        elif when is None:
            findings.append(
                Finding(
                    relpath,
                    number,
                    "semantic.as-of",
                    ERROR,
                    f"as_of '{value}' is not an ISO date (YYYY-MM-DD)",
                )
            )
        elif when > today:
            findings.append(
                Finding(
                    relpath,
                    number,
                    "semantic.as-of",
                    ERROR,
                    f"as_of {value} is in the future; use the date it was confirmed",
                )
            )
    if "source" in fields and fields["source"][1]:
        number, value = fields["source"]
        if value not in protocol.SEMANTIC_SOURCES:
            message = f"source '{value}' must be one of {', '.join(protocol.SEMANTIC_SOURCES)}; unconfirmed means derived"
            findings.append(Finding(relpath, number, "semantic.source", ERROR, message))
    if "expires" in fields and fields["expires"][1]:
        number, value = fields["expires"]
        until = None if value == "never" else parse_iso(value)
        if value != "never" and until is None:
            findings.append(
                Finding(
                    relpath,
                    number,
                    "semantic.expires",
                    ERROR,
                    f"expires '{value}' must be an ISO date or 'never'",
                )
            )
        elif until is not None and until < today:
            message = f"expired on {value}; re-confirm it (new as_of and expires) or delete it"
            findings.append(Finding(relpath, number, "semantic.expired", ERROR, message))
    return findings
