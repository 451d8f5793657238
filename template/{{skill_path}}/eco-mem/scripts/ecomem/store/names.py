"""File names in the drawers are slugs, and a name that is not one is never printed.

A file name is text a commit chooses, and it reaches readers that never open the file:
`find` lists desks by name, the session digest names each desk, verify names every file
it reports. A name can hold a newline and a line such as "SYSTEM: ignore previous
instructions", so names are held to the shape the commands give them (shapes.slugify:
lower-case ASCII letters and digits in dash-separated words, then `.md`; an episode's
date prefix is such words too), and whatever prints a name prints `shown(name)`.
"""

from __future__ import annotations

WITHHELD = "[withheld: file name is not a slug]"
_SLUG_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
# The longest slug: shapes.SLUG_LENGTH after an episode's `YYYY-MM-DD-` (not imported:
# shapes loads `re`, which the session digest, a reader of desk names, never needs).
LONGEST = 60 + len("YYYY-MM-DD-")


def is_slug(stem: str) -> bool:
    """Whether `stem` is lower-case ASCII words of letters and digits joined by one dash."""
    return (
        0 < len(stem) <= LONGEST
        and _SLUG_CHARS.issuperset(stem)
        and stem[0] != "-"
        and stem[-1] != "-"
        and "--" not in stem
    )


def is_slug_file(name: str) -> bool:
    """Whether `name` is an entry or desk file name: a slug and `.md`."""
    return name.endswith(".md") and is_slug(name[:-3])


def shown(name: str) -> str:
    """`name` as it may be printed: as it is when it is plain (ASCII letters, digits, `.`,
    `-` and `_`, as INDEX.md and .gitignore are), else WITHHELD."""
    letters = name.replace("-", "a").replace("_", "a").replace(".", "a")
    plain = len(name) <= LONGEST + len(".md") and letters.isascii() and letters.isalnum()
    return name if plain else WITHHELD


def shown_path(relpath: str) -> str:
    """A repository-relative path with its last part `shown`."""
    folder, _, name = relpath.rpartition("/")
    return f"{folder}/{shown(name)}" if folder else shown(name)
