"""Reading the open desks: which files in the working drawer are desks, and what they say.

`find` lists the desks ahead of every row and `context` prints them for a harness at the
start of a session; both read them here, so both skip the same files and parse the same
way. A desk that is a link is not read (verify reports it), nor is one whose file name
is not a slug: its name is never printed (store/names.py). Neither is a drawer that a
commit made a link (store/place.py).
Writing a desk's text is shapes.desk's job.
"""

from __future__ import annotations

import os

from .. import protocol
from ..text.textfile import read_lines
from . import INDEX
from .names import WITHHELD, is_slug_file

# The sections `context` hands a harness after the goal, in this order: the limits the user
# set (what a compaction summary drops first), then what to do next and what was already
# looked at. Progress stays in the file, which the digest names.
RESUME_SECTIONS = ("constraints", "next", "open")


class Desk:
    __slots__ = ("lines", "name", "problems", "relpath")

    def __init__(self, name: str, relpath: str, lines: list[str] | None, problems: list) -> None:
        self.name = name  # file name, `<task-slug>.md`
        self.relpath = relpath  # repository-relative
        self.lines = lines  # None when the file could not be read as text
        self.problems = problems  # findings from reading it (file.* rules)

    @property
    def slug(self) -> str:
        return self.name[:-3]


def read_desks(root, problems: list[str]) -> list[Desk]:
    """Every desk file in the working drawer, by name. A drawer or memory folder that is a
    link out of its place (store/place.py) is not read, nor is a desk that is a link: a
    line saying so goes to `problems`. OSError when the drawer cannot be listed."""
    from .place import refused

    why = refused(root, protocol.MEMORY_DIR, "working")
    if why:
        problems.append(why)
        return []
    folder = os.path.join(root, protocol.MEMORY_DIR, "working")
    found = []
    for item in sorted(os.scandir(folder), key=lambda entry: entry.name):
        if item.name == INDEX or not item.name.endswith(".md"):
            continue
        link = item.is_symlink()
        if not link and not item.is_file():  # a folder, a FIFO: verify's to report
            continue
        if not is_slug_file(item.name):
            where = f"{protocol.MEMORY_DIR}/working/{WITHHELD}"
            problems.append(f"{where}: a desk whose name is not a slug, not read; run verify")
            continue
        relpath = f"{protocol.MEMORY_DIR}/working/{item.name}"
        if link:  # never read, wherever it leads: a desk is a file of its own
            real_folder = os.path.realpath(folder)
            where = "in" if _inside(os.path.realpath(item.path), real_folder) else "leading out of"
            problems.append(f"{relpath}: a link {where} the drawer, not read; run verify")
            continue
        lines, unreadable = read_lines(item.path, relpath)
        found.append(Desk(item.name, relpath, lines, unreadable))
    return found


def desk_sections(lines: list[str]) -> tuple[str, dict[str, list[str]]]:
    """(title, {section name lowercased: its lines}) of a desk. The title is the first `# `
    heading; a section runs from its `## ` heading to the next one, blank lines at either
    end dropped, every other line as written. The first of two same-named sections wins."""
    title, sections, current = "", {}, None
    for line in lines:
        text = line.strip()
        if text.startswith("# ") and not title:
            title = text[2:].strip()
        elif text.startswith("## "):
            name = text[3:].strip().lower()
            current = None if name in sections else sections.setdefault(name, [])
        elif current is not None:
            current.append(line.rstrip())
    for body in sections.values():
        while body and not body[-1]:
            body.pop()
        while body and not body[0]:
            body.pop(0)
    return title, sections


def desk_summary(lines: list[str]) -> tuple[str, str]:
    """(title, goal) of a desk: its `# ` heading and the first line under `## Goal`."""
    title, sections = desk_sections(lines)
    return title, goal_of(sections)


def goal_of(sections: dict[str, list[str]]) -> str:
    """The first non-blank line under `## Goal`, stripped; "" when there is none."""
    return next((line.strip() for line in sections.get("goal", []) if line.strip()), "")


def _inside(real: str, real_folder: str) -> bool:
    from ..paths import resolved_inside  # only for a desk that is a link, which is rare

    return resolved_inside(real, real_folder)
