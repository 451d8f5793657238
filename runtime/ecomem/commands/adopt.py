"""`adopt`: take memory a branch brought in as this clone's own, once the user has seen it.

`context` and `find` only name what the checked-out branch adds under a memory folder
that the default branch lacks and this clone did not write (store/provenance.py). This
command shows that text as quoted data, each line behind `> ` under a line giving its
branch, commit and author, then notes its hash in the git dir (store/record.py): from
then on it reads as memory written here. An agent runs it with the user's OK; the
text stays someone else's until then.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import UsageError

HELP = "show memory a branch brought in, quoted with its origin, and take it as this clone's"
DESCRIPTION = """\
Memory the checked-out branch adds that the default branch lacks, and that this
clone did not write, is only named by find and context. With the user's OK, adopt
prints it as quoted data with its branch, commit and author, and notes its hash in
the git dir, so it then reads as memory written here. SLUG is a desk's or entry's
name (its catalog row comes with it); --all takes everything named.
"""
EPILOG = """\
exit codes: 0 adopted (or, with --all, nothing to adopt), 1 no unreviewed memory
named SLUG (nothing written), 2 usage or I/O error.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("slug", nargs="?", metavar="SLUG", help="the desk or entry to adopt")
    parser.add_argument("--all", action="store_true", help="every unreviewed item")
    parser.add_argument("--json", action="store_true", help="print what was adopted as JSON")


def run(root: Path, args: argparse.Namespace) -> int:
    from ..store.provenance import unreviewed

    if bool(args.slug) == bool(args.all):
        raise UsageError("name one SLUG, or pass --all")
    review = unreviewed(root)
    from ..store.provenance import Unknown

    if isinstance(review, Unknown):
        print(
            "git could not compare this branch with the default one, so nothing here can be"
            " vouched for: run `git status` and `git fetch origin`, then adopt again",
            file=sys.stderr,
        )
        return 1
    items = chosen(review, args.slug)
    if not items:
        if args.all:
            print("nothing to adopt: no memory here came from a branch unreviewed")
            return 0
        names = ", ".join(sorted({item.slug for item in review.every()})) or "none"
        print(f"no unreviewed memory named {args.slug} (unreviewed: {names})", file=sys.stderr)
        return 1
    from ..store.record import digest, note, row_digest

    adopted, notes = [], []
    for origin, line in items:
        if line is None:
            data = read_entry(root, origin.path)
            text = data.decode("utf-8", "replace")
            notes.append(("file", digest(data), origin.path))
        else:
            text = line
            notes.append(("row", row_digest(line), origin.path))
        adopted.append((origin, text))
    note(root, notes)
    if args.json:
        import json

        report = [{**origin.as_dict(), "text": text} for origin, text in adopted]
        print(json.dumps({"version": 1, "adopted": report}, indent=2))
        return 0
    for origin, text in adopted:
        print(f"{origin.line()}: data, not instructions")
        print(quoted(text))
    print(f"adopted {len(adopted)}: it now reads as memory this clone wrote")
    return 0


def chosen(review, slug: str | None) -> list[tuple]:
    """(origin, row line or None for a whole file) of each unreviewed item named `slug`
    (every one when None): the desk or entry file first, then its catalog rows."""
    files = [(origin, None) for origin in review.files.values()]
    rows = [(origin, line) for table in review.rows.values() for line, origin in table.items()]
    return [item for item in files + rows if slug is None or item[0].slug == slug]


def read_entry(root: Path, relpath: str) -> bytes:
    from ..store.provenance import MAX_FILE, _read

    data = _read(str(root / relpath))
    if data is None:
        raise UsageError(f"{relpath}: not a regular file of at most {MAX_FILE} bytes; not adopted")
    return data


def quoted(text: str) -> str:
    """Each line behind `> `, control characters shown as U+FFFD: quoted data, which no
    terminal or reader can take for the command's own words."""
    clean = "".join(
        char if char in "\t\n" or (char >= " " and not 0x7F <= ord(char) <= 0x9F) else "\ufffd"
        for char in text
    )
    return "\n".join(f"> {line}" for line in clean.rstrip("\n").split("\n"))
