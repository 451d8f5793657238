"""Episodes: each one records context, action, result and, above all, a lesson."""

from __future__ import annotations

import re

from .. import protocol
from ..findings import ERROR, Finding
from ..store.load import Drawer

# `## Lesson` as a heading, or `Lesson: ...` / `- lesson: ...` as a field line.
# No two neighbouring quantifiers share a character (store/fields.py says why).
SECTION = re.compile(
    r"^\s*(?:#{2,4}\s*([A-Za-z]+)\s*(?::\s*)?$|(?:[-*]\s*)?\**([A-Za-z]+)\**\s*:\s*(.*)$)"
)


def sections(lines: list[str]) -> dict[str, tuple[int, str]]:
    """Map each known section name to (line, its text), first occurrence wins."""
    found: dict[str, tuple[int, list[str]]] = {}
    current = None
    after = 0  # the first line not yet read
    for index in _turning_lines(lines):
        if current:  # the lines in between only add to the open section
            found[current][1].extend(lines[after:index])
        after = index + 1
        line = lines[index]
        match = SECTION.match(line)
        name = (match.group(1) or match.group(2) or "").lower() if match else ""
        if name in protocol.EPISODIC_SECTIONS:
            current = name if name not in found else None
            if current:
                inline = match.group(3) if match.group(2) else ""
                found[current] = (index + 1, [inline or ""])
            continue
        if line.startswith("#"):
            current = None
        elif current:
            found[current][1].append(line)
    if current:
        found[current][1].extend(lines[after:])
    return {name: (number, " ".join(text).strip()) for name, (number, text) in found.items()}


def _turning_lines(lines: list[str]) -> list[int]:
    """The 0-based lines that may open or close a section: the first, those starting
    with `#` and those holding a section's name in any case (SECTION reads a name in
    ASCII letters). Every other line only adds to the section open above it, so an
    episode's lines are not each matched against SECTION: a few substring searches of
    the whole text find these."""
    text = "\n".join(lines)
    lowered = text.lower()
    # A letter lowercased to two moves the offsets, a newline inside a line the count:
    # then every line is read.
    if len(lowered) != len(text) or text.count("\n") != len(lines) - 1:
        return list(range(len(lines)))
    found = [0]  # offsets on the lines wanted
    at = text.find("\n#")
    while at != -1:
        found.append(at + 1)
        at = text.find("\n#", at + 2)
    for name in protocol.EPISODIC_SECTIONS:
        at = lowered.find(name)
        while at != -1:
            found.append(at)
            at = lowered.find(name, at + len(name))
    wanted, line, counted = [], 0, 0
    for at in sorted(found):
        line += text.count("\n", counted, at)
        counted = at
        wanted.append(line)
    return sorted(set(wanted))


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
