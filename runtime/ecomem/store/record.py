"""What this clone wrote to memory: the record that tells its own memory from a branch's.

Memory a branch brings in reads as someone else's until the user adopts it
(store/provenance.py). What the memory commands wrote here is this clone's own, so each
write notes the hash of every file it wrote, and of every catalog row it added or
changed, in `<common git dir>/eco-mem/written`. No commit reaches that folder (git_home.py),
so nothing a branch holds can mark its own text as reviewed; a file whose current bytes
hash to a noted value is this clone's, whoever committed it since.

One line per item: `file HASH PATH` or `row HASH INDEX-PATH`, the hash a SHA-256 of the
file's bytes or of the row's line without its outer spaces. Lines are appended; past
MAX_BYTES the file is rewritten keeping each path's newest hashes.
"""

from __future__ import annotations

import hashlib
import os

NAME = "written"
MAX_BYTES = 512 * 1024
KEEP_PER_PATH = 8  # a compaction keeps a path's newest hashes: older bytes rarely return


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def row_digest(line: str) -> str:
    return digest(line.strip().encode("utf-8", "surrogateescape"))


def record_path(root) -> str | None:
    """The record's path in the common git dir, None outside git; a refusal when that
    folder is one a commit could reach (state.safe_home)."""
    from pathlib import Path

    from ..git import git_dirs
    from ..git_home import safe_home

    dirs = git_dirs(Path(root))
    if dirs is None:
        return None
    return os.path.join(os.fspath(safe_home(root, dirs[1])), NAME)


def read_record(root) -> set[tuple[str, str, str]]:
    """{(kind, hash, path)} noted so far; empty when there is none or it cannot be read."""
    try:
        path = record_path(root)
    except OSError:
        return set()
    if path is None or os.path.islink(path) or not os.path.isfile(path):
        return set()
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(MAX_BYTES * 2)
    except OSError:
        return set()
    found = set()
    for line in text.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[0] in ("file", "row"):
            found.add((parts[0], parts[1], parts[2]))
    return found


def note(root, items: list[tuple[str, str, str]]) -> None:
    """Append (kind, hash, repo-relative path) items to the record, in one write."""
    from ..git_home import open_state_file

    if not items:
        return
    path = record_path(root)
    if path is None:
        return  # no git: nothing to compare memory with, nothing to note
    os.makedirs(os.path.dirname(path), 0o700, exist_ok=True)
    if os.path.isfile(path) and os.path.getsize(path) > MAX_BYTES:
        _compact(root, path)
    text = "".join(f"{kind} {value} {where}\n" for kind, value, where in items if "\n" not in where)
    fd = open_state_file(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, text.encode("utf-8", "surrogateescape"))
    finally:
        os.close(fd)


def _compact(root, path: str) -> None:
    """Rewrite the record with each path's newest KEEP_PER_PATH hashes, by rename."""
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().splitlines()
    kept: dict[tuple[str, str], list[str]] = {}
    for line in lines:
        parts = line.split(" ", 2)
        if len(parts) == 3:
            kept.setdefault((parts[0], parts[2]), []).append(line)
    text = "".join(f"{line}\n" for newest in kept.values() for line in newest[-KEEP_PER_PATH:])
    temp = f"{path}.{os.getpid()}"
    with open(temp, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temp, path)


def noted_write(relpath: str, old: bytes | None, new: bytes) -> list[tuple[str, str, str]]:
    """What a write of `new` over `old` at `relpath` adds to the record: the file's hash,
    and for a catalog the rows it adds or changes (rows it only keeps stay as they were:
    a row a branch brought in is not made this clone's by a write beside it)."""
    items = [("file", digest(new), relpath)]
    if relpath.endswith("/INDEX.md"):
        before = set(table_lines(old.decode("utf-8", "replace"))) if old else set()
        items = [
            ("row", row_digest(line), relpath)
            for line in table_lines(new.decode("utf-8", "replace"))
            if line not in before
        ]
    return items


def table_lines(text: str) -> list[str]:
    """The lines of a catalog that are table rows (header and separator too), stripped."""
    return [line.strip() for line in text.splitlines() if line.lstrip().startswith("|")]
