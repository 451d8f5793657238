"""The text of each kind of entry, as references/entry-shapes.md draws it.

Commands write entries through these functions, so an entry made by a command and one
made by hand from the reference look the same to verify and to a reader.
"""

from __future__ import annotations

import re
import unicodedata

from .. import protocol
from ..text.cites import cite_lines
from .fields import read_fields

# The longest name a command gives a new entry; stores/names.py still reads the 60 an
# earlier release allowed. A slug is typed and read on every find line: a title's key
# words say what the entry is in fewer bytes than the whole title.
SLUG_LENGTH = 40


def slugify(title: str, length: int = SLUG_LENGTH) -> str:
    """ASCII kebab case: "Staging Postgres: port 6543" gives staging-postgres-port-6543.
    A title too long for `length` keeps its key words (the grammar words dropped, the
    order kept), cut at a word's end."""
    plain = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", plain.lower())
    slug = "-".join(words)
    if len(slug) > length:
        from ..text.words import GRAMMAR

        slug = "-".join(word for word in words if word not in GRAMMAR) or slug
    if len(slug) > length:
        cut = slug[: length + 1].rsplit("-", 1)[0]  # a whole last word, when one fits
        slug = cut if cut and len(cut) <= length else slug[:length].rstrip("-")
    return slug


def _body(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip().splitlines()]


def fact(title: str, fields: dict[str, str], body: str, cites: list[str] = ()) -> list[str]:
    """`cites` are the values of the fact's cites lines, which follow its fields."""
    lines = [f"# {title}", ""]
    lines += [f"- {name}: {fields[name]}" for name in protocol.SEMANTIC_FIELDS]
    lines += [f"- cites: {value}" for value in cites]
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


def desk_section(lines: list[str], name: str, added: list[str], replace: bool = False) -> list[str]:
    """A desk's lines with `added` at the end of its `## name` section (in place of the
    section's text when `replace`); a desk without that section gets it at the end."""
    heading = f"## {name}"
    if heading not in lines:
        return [*lines, "", heading, *added]
    start = lines.index(heading) + 1
    end = next((n for n in range(start, len(lines)) if lines[n].startswith("## ")), len(lines))
    kept = [] if replace else [line for line in lines[start:end] if line.strip()]
    tail = [""] if end < len(lines) else []
    return [*lines[:start], *kept, *added, *tail, *lines[end:]]


def checklist(name: str, text: str, cites: list[str] | None = None) -> list[str]:
    lines = _body(text)
    lines = lines if lines and lines[0].startswith("# ") else [f"# {name}", "", *lines]
    return lines if cites is None else with_cites(lines, cites)


def with_cites(lines: list[str], cites: list[str]) -> list[str]:
    """The lines with their cites lines replaced by `cites`, where the first one stood;
    with none before, after the last field (a fact) or under the title (a checklist)."""
    present = cite_lines(lines)
    kept = [line for index, line in enumerate(lines) if index not in present]
    new = [f"- cites: {value}" for value in cites]
    if present:
        at = present[0]
    elif not new:
        return kept
    else:
        fields = read_fields(kept)
        if fields:
            at = max(index for index, _ in fields.values()) + 1
        else:
            at = next((i for i, line in enumerate(kept) if line.startswith("# ")), -1) + 1
            rest = kept[at:]
            while rest and not rest[0].strip():
                rest.pop(0)
            return [*kept[:at], "", *new, *([""] if rest else []), *rest]
    return [*kept[:at], *new, *kept[at:]]


def edit_fact(
    lines: list[str],
    title: str | None,
    fields: dict[str, str],
    body: str | None,
    cites: list[str] | None = None,
) -> list[str]:
    """The fact with a new title, field values, citations or body; every other line kept
    as written. `cites` None keeps the citations; a list replaces them."""
    lines = list(lines) if cites is None else with_cites(lines, cites)
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
        # The citations belong to the field block: a new body does not drop them.
        block = [index for index, _ in present.values()] + cite_lines(lines)
        last_field = max(block, default=0)
        lines = [*lines[: last_field + 1], "", *_body(body)]
    return lines
