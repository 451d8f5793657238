"""Read a memory file defensively: never crash, never read more than needed.

Memory files are plain UTF-8 markdown with LF line ends. Anything else is a
finding about the file, and its content is not checked further.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..findings import ERROR, Finding

MAX_BYTES = 1024 * 1024
BOM = b"\xef\xbb\xbf"


def read_lines(path: str | Path, relpath: str) -> tuple[list[str] | None, list[Finding]]:
    """Return (lines without line ends, findings); lines is None when unreadable."""
    try:
        with open(path, "rb") as handle:
            # Ask the size first: read(MAX_BYTES + 1) would allocate a 1 MiB
            # buffer for every three-line note.
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(MAX_BYTES + 1) if size > MAX_BYTES else handle.read()
    except OSError as error:
        return None, [
            Finding(relpath, 0, "file.unreadable", ERROR, f"cannot read: {error.strerror}")
        ]
    if len(data) > MAX_BYTES:
        message = f"larger than {MAX_BYTES // 1024} KiB; memory entries are short notes, split or delete it"
        return None, [Finding(relpath, 0, "file.too-large", ERROR, message)]
    if b"\0" in data:
        return None, [
            Finding(
                relpath, 0, "file.binary", ERROR, "binary content; only markdown belongs in memory"
            )
        ]
    findings = []
    if data.startswith(BOM):
        findings.append(
            Finding(relpath, 1, "file.bom", ERROR, "starts with a UTF-8 BOM; save without it")
        )
        data = data[len(BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return None, [
            Finding(relpath, line, "file.encoding", ERROR, "not valid UTF-8; re-save as UTF-8")
        ]
    if "\r" in text:
        line = text.count("\n", 0, text.index("\r")) + 1
        findings.append(
            Finding(
                relpath,
                line,
                "file.crlf",
                ERROR,
                "CR line ends; use LF (\\n) only (a CRLF clone: docs/teamwork.md, Windows)",
            )
        )
    return text.splitlines(), findings
