"""`merge-catalog`: git's merge driver for the drawer INDEX.md files.

Git runs it as `eco_mem.py merge-catalog %O %A %B %P` for every path the
.gitattributes block names, and expects the merged text in %A (ours). The
rules are in store/merge.py; docs/teamwork.md says how it is wired.

Git starts a new process for each conflicted catalog, so this path is kept
lean: the shim hands a driver call (`drive`) straight here, without argparse
or pathlib, and nothing it imports loads `re`. Only a contract text changed on
both sides costs more (subprocess and tempfile, for `git merge-file`).
"""

from __future__ import annotations

import sys

from ..errors import UsageError

HELP = "merge three versions of a drawer INDEX.md row by row (git's merge driver)"
DESCRIPTION = """\
Three-way merge of a drawer catalog, as a git merge driver: rows added on
either side are kept, a row changed or deleted on one side takes that change,
and the text above the table merges as plain text. A row changed differently
on both sides (or deleted on one, changed on the other) stays in OURS with
both versions between conflict markers. The result is written into OURS.
Git runs it for you once the driver is configured (see docs/teamwork.md).
"""
EPILOG = """\
exit codes: 0 merged cleanly, 1 conflicts left between markers in OURS,
2 usage or I/O error (OURS untouched)
"""
LABELS = ("ours", "base", "theirs")


def is_driver_call(argv: list[str]) -> bool:
    """`merge-catalog BASE OURS THEIRS [PATH]` with no option: what git runs."""
    return (
        argv[:1] == ["merge-catalog"]
        and 4 <= len(argv) <= 5
        and not any(arg.startswith("-") for arg in argv)
    )


class DriverCall:
    """The arguments of a driver call, as argparse would have named them."""

    def __init__(self, base: str, ours: str, theirs: str, path: str | None = None) -> None:
        self.base, self.ours, self.theirs, self.path = base, ours, theirs, path


def drive(given: list[str]) -> int:
    """Run `merge-catalog` on BASE OURS THEIRS [PATH] behind the one error boundary."""
    from ..boundary import guarded

    return guarded("eco_mem.py merge-catalog", lambda: run(".", DriverCall(*given)))


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


def merge_bytes(base: bytes, ours: bytes, theirs: bytes, labels=LABELS):
    """(merged bytes, Result) for three versions of one INDEX.md."""
    from ..store.merge import merge_file_text, merge_lines

    base_lines, _ = read_lines(base)
    ours_lines, newline = read_lines(ours)
    theirs_lines, _ = read_lines(theirs)
    result = merge_lines(base_lines, ours_lines, theirs_lines, labels, merge_file_text(labels))
    return encode(result.lines, newline), result


def _read(name: str) -> bytes:
    with open(name, "rb") as handle:
        return handle.read()


def run(root, args) -> int:
    try:
        given = [_read(name) for name in (args.base, args.ours, args.theirs)]
    except OSError as error:
        raise UsageError(f"cannot read {error.filename}: {error.strerror}") from None
    merged, result = merge_bytes(*given)
    import os

    from ..safe_open import write_bytes

    # OURS is git's temp file in the work tree, or a file the user named: written where
    # it is, but only as a regular file, never through a link (safe_open).
    write_bytes(os.path.dirname(os.path.abspath(args.ours)), args.ours, merged)
    if result.clean:
        return 0
    where = args.path or args.ours
    for identity, _, _ in result.conflicts:
        print(f"eco-mem: {where}: row {identity} changed on both sides", file=sys.stderr)
    if result.text_conflicts:
        print(f"eco-mem: {where}: the text above the table conflicts", file=sys.stderr)
    return 1
