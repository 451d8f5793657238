"""Episodes: each one records context, action, result and, above all, a lesson."""

from __future__ import annotations

import re

from .. import protocol
from ..findings import ERROR, Finding
from ..store.load import Drawer

# `## Lesson` as a heading, or `Lesson: ...` / `- lesson: ...` as a field line.
SECTION = re.compile(r"^\s*(?:#{2,4}\s*([A-Za-z]+)\s*:?\s*$|[-*]?\s*\**([A-Za-z]+)\**\s*:\s*(.*)$)")


def sections(lines: list[str]) -> dict[str, tuple[int, str]]:
    """Map each known section name to (line, its text), first occurrence wins."""
    found: dict[str, tuple[int, list[str]]] = {}
    current = None
    for number, line in enumerate(lines, 1):
        match = SECTION.match(line)
        name = (match.group(1) or match.group(2) or "").lower() if match else ""
        if name in protocol.EPISODIC_SECTIONS:
            current = name if name not in found else None
            if current:
                inline = match.group(3) if match.group(2) else ""
                found[current] = (number, [inline or ""])
            continue
        if line.startswith("#"):
            current = None
        elif current:
            found[current][1].append(line)
    return {name: (number, " ".join(text).strip()) for name, (number, text) in found.items()}


def check_episodic(drawer: Drawer) -> list[Finding]:
    findings: list[Finding] = []
    for entry in drawer.entries.values():
        if entry.lines is None:
            continue
        present = sections(entry.lines)
        for name in protocol.EPISODIC_SECTIONS:
            if name not in present:
                rule = "episodic.no-lesson" if name == "lesson" else "episodic.section-missing"
                message = f"no '## {name.capitalize()}' section; see references/entry-shapes.md"
                findings.append(Finding(entry.relpath, 0, rule, ERROR, message))
        if "lesson" in present and not present["lesson"][1]:
            message = "the lesson is empty; no lesson, no episode"
            findings.append(
                Finding(entry.relpath, present["lesson"][0], "episodic.no-lesson", ERROR, message)
            )
    return findings
