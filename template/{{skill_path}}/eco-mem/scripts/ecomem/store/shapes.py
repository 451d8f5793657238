"""The text of each kind of entry, as references/entry-shapes.md draws it.

Commands write entries through these functions, so an entry made by a command and one
made by hand from the reference look the same to verify and to a reader.
"""

from __future__ import annotations

import re
import unicodedata

from .. import protocol
from ..rules.semantic import FIELD

SLUG_LENGTH = 60


def slugify(title: str) -> str:
    """ASCII kebab case: "Staging Postgres: port 6543" gives staging-postgres-port-6543."""
    plain = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")
    if len(slug) > SLUG_LENGTH:
        slug = slug[:SLUG_LENGTH].rsplit("-", 1)[0]
    return slug


def _body(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip().splitlines()]


def fact(title: str, fields: dict[str, str], body: str) -> list[str]:
    lines = [f"# {title}", ""]
    lines += [f"- {name}: {fields[name]}" for name in protocol.SEMANTIC_FIELDS]
    return [*lines, "", *_body(body)]


def episode(title: str, sections: dict[str, str]) -> list[str]:
    lines = [f"# {title}"]
    for name in protocol.EPISODIC_SECTIONS:
        lines += ["", f"## {name.capitalize()}", *_body(sections[name])]
    return lines


DESK_SECTIONS = ("Constraints", "Progress", "Next", "Open")


def desk(title: str, goal: str) -> list[str]:
    lines = [f"# {title}", "", "## Goal", *_body(goal)]
    for name in DESK_SECTIONS:
        lines += ["", f"## {name}"]
    return lines


def desk_summary(lines: list[str]) -> tuple[str, str]:
    """(title, goal) of a desk: its `# ` heading and the first line under `## Goal`."""
    title, goal, in_goal = "", "", False
    for line in lines:
        text = line.strip()
        if text.startswith("# ") and not title:
            title = text[2:].strip()
        elif text.startswith("## "):
            in_goal = text[3:].strip().lower() == "goal"
        elif in_goal and text and not goal:
            goal = text
    return title, goal


def checklist(name: str, text: str) -> list[str]:
    lines = _body(text)
    return lines if lines and lines[0].startswith("# ") else [f"# {name}", "", *lines]


def read_fields(lines: list[str]) -> dict[str, tuple[int, str]]:
    """Semantic fields as {name: (0-based line index, value)}, first occurrence wins."""
    found: dict[str, tuple[int, str]] = {}
    for index, line in enumerate(lines):
        match = FIELD.match(line) if ":" in line else None
        if match and match.group(1) in protocol.SEMANTIC_FIELDS:
            found.setdefault(match.group(1), (index, match.group(2)))
    return found


def edit_fact(
    lines: list[str], title: str | None, fields: dict[str, str], body: str | None
) -> list[str]:
    """The fact with a new title, field values or body; every other line kept as written."""
    lines = list(lines)
    if title is not None:
        heading = next((i for i, line in enumerate(lines) if line.startswith("# ")), None)
        if heading is None:
            lines[:0] = [f"# {title}", ""]
        else:
            lines[heading] = f"# {title}"
    present = read_fields(lines)
    for name, value in fields.items():
        if name in present:
            lines[present[name][0]] = f"- {name}: {value}"
        else:
            present = read_fields(lines)
            after = max((index for index, _ in present.values()), default=0)
            lines.insert(after + 1, f"- {name}: {value}")
        present = read_fields(lines)
    if body is not None:
        last_field = max((index for index, _ in present.values()), default=0)
        lines = [*lines[: last_field + 1], "", *_body(body)]
    return lines
