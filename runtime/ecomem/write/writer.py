"""One memory write: locked, gated by verify's rules, applied all or nothing.

Every write command builds a list of drawer changes from the store as it is on disk, under
the lock, after any half-finished earlier write has been rolled back. The gate then judges
the changes; only a clean result reaches the disk.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path

from .. import protocol
from ..errors import Refused, UsageError
from ..findings import ERROR, Finding
from ..git_home import leftover_journal
from ..store.load import INDEX, Store, load_store
from ..store.rows import file_text
from . import gate, transaction
from .locking import store_lock


def memory_folder(root: Path) -> Path:
    memory = root / protocol.MEMORY_DIR
    if not (memory / "working").is_dir():
        raise UsageError(f"{protocol.MEMORY_DIR}/working not found; run copier copy or pass --root")
    return memory


def finish_interrupted(root: Path) -> bool:
    """For readers: roll back a write that a crash left half done, if any. True if one
    was undone. A journal that cannot be undone is told in one line and the read goes
    on: only writes stop on it, so `find` always answers."""
    if leftover_journal(root) is None:
        return False  # the common case costs one stat and no lock
    try:
        memory = memory_folder(root)
        with store_lock(root, memory):
            return transaction.roll_back(root, memory)
    except (UsageError, OSError) as error:
        print(f"eco_mem.pyz: a stopped write was not undone: {error}", file=sys.stderr)
        return False


Build = Callable[[Store, date], "tuple[list[gate.Change], dict]"]


def write(root: Path, build: Build) -> dict:
    """Run `build` on the current store, gate its changes, apply them. Returns its report."""
    memory = memory_folder(root)
    today = date.today()
    with store_lock(root, memory):
        transaction.roll_back(root, memory)
        store, _ = load_store(root)
        changes, report = build(store, today)
        _refuse_odd_files(store, changes)
        ordered = _ordered(memory, changes)
        fresh = _new_entries(root, ordered)
        asked = _ask_git(root, fresh)  # git answers while the gate runs
        findings = gate.check(store, changes, today)
        if findings:
            raise Refused(findings)
        _keep_in_git(root, fresh, asked)
        transaction.apply(root, memory, ordered)
    return report


def _refuse_odd_files(store: Store, changes: list[gate.Change]) -> None:
    """Every file a write touches is an entry directly in its drawer (names.is_entry_file),
    whichever command named it and from wherever (a row, a slug, a desk): one rule for
    all writers, judged before anything is written."""
    from ..store.entries import odd_file
    from ..store.names import is_entry_file

    for change in changes:
        if any(not is_entry_file(name) for name in change.files):
            raise Refused([odd_file(f"{store.relpath}/{change.drawer}/{INDEX}", 0)])


def _new_entries(root: Path, ordered: list[tuple[Path, str | None]]) -> list[str]:
    """The entry files this write creates, repo-relative (desks aside: they stay local)."""
    working = root / protocol.MEMORY_DIR / "working"
    return [
        os.path.relpath(target, root).replace(os.sep, "/")
        for target, text in ordered
        if text is not None and target.parent != working and not os.path.lexists(target)
    ]


def _ask_git(root: Path, fresh: list[str]):
    if not fresh:
        return None
    from ..gitsetup.track import IgnoreCheck

    return IgnoreCheck(root, fresh)


def _keep_in_git(root: Path, fresh: list[str], asked) -> None:
    """Re-include an entry file git's ignore rules would hide, or refuse the write
    before it starts."""
    if not fresh:
        return
    from ..gitsetup import track

    try:
        said = track.keep_new_entries(root, fresh, asked)
    except track.TrackError as error:
        path, _, message = str(error).partition(" ")
        raise Refused([Finding(path, 0, "git.ignored", ERROR, message)]) from None
    if said:
        print(said, file=sys.stderr)


def _ordered(memory: Path, changes: list[gate.Change]) -> list[tuple[Path, str | None]]:
    """New files first, then catalogs, then deletions: a crash mid-way (before the
    rollback runs) leaves at worst a file without a row, never a row naming nothing."""
    added, indexes, deleted = [], [], []
    for change in changes:
        folder = memory / change.drawer
        for name, lines in change.files.items():
            if lines is None:
                deleted.append((folder / name, None))
            else:
                added.append((folder / name, file_text(lines)))
        if change.index_lines is not None:
            indexes.append((folder / INDEX, file_text(change.index_lines)))
    return added + indexes + deleted
