"""`merge-catalog`: the three-way merge of a drawer INDEX.md, and git's merge driver.

The .gitattributes block names the drawer catalogs; for each one git merges,
the command in the clone's config (gitsetup/driver.py) tries git's text merge
and, when that conflicts, runs a copy of this module kept in the git dir:
`drive`, with BASE OURS THEIRS [PATH] as given, no option parsing. The rules
are in store/merge.py; docs/teamwork.md says how it is wired. Run by hand as
`eco_mem.pyz merge-catalog`, it merges three files the same way.

Git starts a new process for each conflicted catalog, so `drive` is kept lean:
no argparse or pathlib, and nothing it imports loads `re`. Only a contract text
changed on both sides costs more (subprocess and tempfile, for `git merge-file`).
"""

from __future__ import annotations

import os
import sys

from .. import safe_open
from ..errors import UsageError
from ..store.merge import ROW_MERGE_SUFFIX, TEXT_MERGE_SUFFIX, merge_file_text, merge_lines
from ..text.textfile import MAX_BYTES, over_bounds

HELP = "merge three versions of a drawer INDEX.md row by row (git's merge driver)"
DESCRIPTION = """\
Three-way merge of a drawer catalog, the rules of git's merge driver: rows added on
either side are kept, a row changed or deleted on one side takes that change,
and the text above the table merges as plain text. A row changed differently
on both sides (or deleted on one, changed on the other) stays in OURS with
both versions between conflict markers. The result is written into OURS.
Git runs a copy of it, kept in the git dir, once the driver is configured
(see docs/teamwork.md).
"""
EPILOG = """\
exit codes: 0 merged cleanly, 1 conflicts left between markers in OURS,
2 usage or I/O error (OURS untouched)
"""
LABELS = ("ours", "base", "theirs")


def drive(given: list[str]) -> int:
    """The driver git runs: merge BASE OURS THEIRS [PATH [TOKEN]] into OURS, then delete
    the token (the file in the git dir holding git's text merge; OURS.eco-mem for a
    command written before it moved there). Exit 0 merged, 1 conflicts marked, 2 it
    did not merge."""
    from ..boundary import guarded

    def merge() -> int:
        if not 3 <= len(given) <= 5:
            raise UsageError("the driver takes BASE OURS THEIRS [PATH [TOKEN]]")
        base, ours, theirs = given[:3]
        where = given[3] if len(given) >= 4 else ours
        code = merge_files(base, ours, theirs, where, replace=True)
        # The token goes last, once OURS holds the whole result (see TEXT_MERGE_SUFFIX).
        token = given[4] if len(given) == 5 else ours + TEXT_MERGE_SUFFIX
        if os.path.lexists(token):  # absent when run by hand
            os.unlink(token)
        return code

    return guarded("eco-mem merge driver", merge)


def add_arguments(parser) -> None:
    parser.add_argument("base", metavar="BASE", help="the common ancestor's version (%%O)")
    parser.add_argument("ours", metavar="OURS", help="our version; the result goes here (%%A)")
    parser.add_argument("theirs", metavar="THEIRS", help="their version (%%B)")
    parser.add_argument("path", nargs="?", metavar="PATH", help="the path in the repository (%%P)")


def read_lines(data: bytes) -> tuple[list[str], str]:
    """(lines without their ends, the newline the text uses)."""
    text = data.decode("utf-8", "surrogateescape")
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines], newline


def encode(lines: list[str], newline: str) -> bytes:
    return "".join(line + newline for line in lines).encode("utf-8", "surrogateescape")


def over_caps(versions) -> str | None:
    """Why one of the versions is past the memory file caps (text/textfile.py), or None.
    Such a catalog is not read row by row: git's text merge and a human decide it."""
    for label, data in zip(("base", "ours", "theirs"), versions):
        why = over_bounds(data)
        if why:
            return f"{label} is past the caps ({why}), not merged row by row; run verify"
    return None


def merge_bytes(base: bytes, ours: bytes, theirs: bytes, labels=LABELS):
    """(merged bytes, Result) for three versions of one INDEX.md, each within the caps."""
    base_lines, _ = read_lines(base)
    ours_lines, newline = read_lines(ours)
    theirs_lines, _ = read_lines(theirs)
    result = merge_lines(base_lines, ours_lines, theirs_lines, labels, merge_file_text(labels))
    return encode(result.lines, newline), result


def _read(name: str) -> bytes:
    """The file's bytes, at most one past the file cap: enough to tell it is over."""
    with open(name, "rb") as handle:
        return handle.read(MAX_BYTES + 1)


def merge_files(base: str, ours: str, theirs: str, where: str, replace: bool = False) -> int:
    """Merge three files into `ours`; with `replace`, through a new file renamed over
    it, so `ours` is never left half written. 0 clean, 1 conflicts marked."""
    try:
        given = [_read(name) for name in (base, ours, theirs)]
    except OSError as error:
        raise UsageError(f"cannot read {error.filename}: {error.strerror}") from None
    why = over_caps(given)
    if why:  # the driver then leaves git's text merge, conflict markers and all, in OURS
        raise UsageError(f"{where}: {why}")
    merged, result = merge_bytes(*given)
    target = ours + ROW_MERGE_SUFFIX if replace else ours
    # OURS is git's temp file in the work tree, or a file the user named: written only
    # as a regular file in its own folder, never through a link (safe_open).
    folder = os.path.dirname(os.path.abspath(ours))
    try:
        safe_open.write_bytes(folder, target, merged)
        if replace:
            os.replace(target, ours)
    except OSError:
        if replace and os.path.lexists(target):
            os.unlink(target)
        raise
    if result.clean:
        return 0
    for identity, _, _ in result.conflicts:
        print(f"eco-mem: {where}: row {identity} changed on both sides", file=sys.stderr)
    if result.text_conflicts and result.as_text:
        print(f"eco-mem: {where}: merged as plain text ({result.as_text})", file=sys.stderr)
    elif result.text_conflicts:
        print(f"eco-mem: {where}: the text above the table conflicts", file=sys.stderr)
    return 1


def run(root, args) -> int:
    return merge_files(args.base, args.ours, args.theirs, args.path or args.ours)
