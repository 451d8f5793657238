"""Read a memory file defensively: never crash, never read more than needed.

Memory files are plain UTF-8 markdown with LF line ends. Anything else is a
finding about the file, and its content is not checked further.
"""

from __future__ import annotations

import os
import stat

MAX_BYTES = 1024 * 1024
# The longest line a memory file may hold. No note needs more, and text far past what a
# reader sees is where an order would hide; it also bounds what one line can cost every
# reader (verify, review, find, the session digest, the merge driver): a file holding a
# longer line is reported and not read, like one over MAX_BYTES.
MAX_LINE = 16384
BOM = b"\xef\xbb\xbf"
# Characters str.splitlines() ends a line at besides \n and \r: vertical tab, form feed,
# the file, group and record separators, NEL, and the line and paragraph separators. A
# reader (markdown, a model) sees one line where the rules would judge two, so a phrase
# split by one would pass: like CR, each is a finding about the file.
LINE_BREAKS = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def read_lines(path: str | os.PathLike[str], relpath: str) -> tuple[list[str] | None, list]:
    """Return (lines without line ends, findings); lines is None when unreadable."""
    try:
        with open(path, "rb") as handle:
            # Ask the size first: read(MAX_BYTES + 1) would allocate a 1 MiB
            # buffer for every three-line note.
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(MAX_BYTES + 1) if size > MAX_BYTES else handle.read()
    except OSError as error:
        return None, [_error(relpath, 0, "file.unreadable", f"cannot read: {error.strerror}")]
    return decode(data, relpath)


def decode(data: bytes, relpath: str) -> tuple[list[str] | None, list]:
    """The `file.*` rules on a file's bytes: (lines, findings); lines is None when unusable.

    The loader runs them on what is on disk, the write gate on what a write would put there.
    """
    if len(data) > MAX_BYTES:
        message = f"larger than {MAX_BYTES // 1024} KiB; memory entries are short notes, split or delete it"
        return None, [_error(relpath, 0, "file.too-large", message)]
    if b"\0" in data:
        return None, [
            _error(relpath, 0, "file.binary", "binary content; only markdown belongs in memory")
        ]
    findings = []
    if data.startswith(BOM):
        findings.append(_error(relpath, 1, "file.bom", "starts with a UTF-8 BOM; save without it"))
        data = data[len(BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return None, [_error(relpath, line, "file.encoding", "not valid UTF-8; re-save as UTF-8")]
    if "\r" in text:
        line = text.count("\n", 0, text.index("\r")) + 1
        findings.append(
            _error(
                relpath,
                line,
                "file.crlf",
                "CR line ends; use LF (\\n) only (a CRLF clone: docs/teamwork.md, Windows)",
            )
        )
    if not text.isascii() or any(char in text for char in LINE_BREAKS[:5]):
        breaks = [text.find(char) for char in LINE_BREAKS if char in text]
        if breaks:
            first = min(breaks)
            findings.append(
                _error(
                    relpath,
                    text.count("\n", 0, first) + 1,
                    "file.line-separator",
                    f"holds {text[first]!r}, a line end other than \\n that the rules would split at; use \\n",
                )
            )
    lines = text.splitlines()
    longest = longest_line(lines) if len(text) > MAX_LINE else None
    if longest is not None:
        line, length = longest
        message = (
            f"line of {length} characters, over the cap of {MAX_LINE}; split or delete it,"
            " the file is not read until then"
        )
        return None, [*findings, _error(relpath, line, "file.line-too-long", message)]
    return lines, findings


def longest_line(lines: list[str]) -> tuple[int, int] | None:
    """(1-based line, length) of the first line over MAX_LINE, or None when none is."""
    for number, line in enumerate(lines, 1):
        if len(line) > MAX_LINE:
            return number, len(line)
    return None


def over_bounds(data: bytes) -> str | None:
    """Why a file's bytes are past the caps (MAX_BYTES, MAX_LINE), or None when they fit.
    For readers that take bytes from elsewhere than the store (the merge driver)."""
    if len(data) > MAX_BYTES:
        return f"larger than {MAX_BYTES // 1024} KiB"
    # A line is at most as long in characters as in bytes: only then are they counted.
    if len(data) > MAX_LINE and any(len(line) > MAX_LINE for line in data.split(b"\n")):
        longest = longest_line(data.decode("utf-8", "replace").splitlines())
        if longest is not None:
            return f"line {longest[0]} of {longest[1]} characters, over the cap of {MAX_LINE}"
    return None


def read_unseen(path: str | os.PathLike[str], past_caps: list | None = None) -> list[str] | None:
    """An entry's lines, read without moving its access time; None when it cannot be.
    A file past the caps is not read either; `past_caps`, when given, gets why.

    The agent-experiment kit (eco_mem_ops/experiment/atime.py, outside the host) tells which memory files an agent
    opened by their access times, so a command that reads an entry on the agent's
    behalf, such as find checking citations, must leave no trace: O_NOATIME where the
    system allows it (Linux, for the file's owner), else the old times are put back.
    Symlinks, anything but a regular file and a file past the caps are not read.
    """
    path = os.fspath(path)
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):  # a FIFO would block, a link lead off
            return None
    except OSError:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    noatime = getattr(os, "O_NOATIME", 0)
    try:
        try:
            descriptor = os.open(path, flags | noatime)
            # No O_NOATIME here (macOS, Windows): the open went ahead, so put the time back.
            restore = None if noatime else os.fstat(descriptor)
        except PermissionError:
            descriptor = os.open(path, flags)
            restore = os.fstat(descriptor)
        with open(descriptor, "rb") as handle:
            status = os.fstat(handle.fileno())
            if not stat.S_ISREG(status.st_mode):
                return None
            too_large = status.st_size > MAX_BYTES  # said without reading a byte
            data = b"" if too_large else handle.read(MAX_BYTES + 1)
        if restore is not None:
            os.utime(path, ns=(restore.st_atime_ns, restore.st_mtime_ns))
        why = f"larger than {MAX_BYTES // 1024} KiB" if too_large else over_bounds(data)
        if why:
            if past_caps is not None:
                past_caps.append(why)
            return None
        return data.decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None


def _error(relpath: str, line: int, rule: str, message: str):
    """A `file.*` finding. findings (and the collections module behind it) load only when
    a file is bad: the session digest reads desks through here on every session start."""
    from ..findings import ERROR, Finding

    return Finding(relpath, line, rule, ERROR, message)
