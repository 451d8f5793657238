"""Change several memory files so that all of the changes land or none does.

An entry file and its catalog row live in two files, and no file system renames two files
at once. So every change is journaled first: the old version of each target is kept (as a
hard link, which costs no copy) in the journal, then a manifest naming the targets is
written, then each target is replaced by its own atomic rename. Deleting the manifest is
the commit. Whoever finds a manifest later (the next memory command, under the lock) puts
every old version back; a journal without a manifest is simply removed.

The journal lives in this work tree's git dir (git_home.py), never in the work tree: a
branch can commit any file under the memory folder, and a journal found there would be
the branch's orders about which files to move where. Nothing here ever reads a folder
of the work tree as a journal; one that a commit left there is a stray folder to verify.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from .. import safe_open
from ..errors import UsageError
from ..git_home import JOURNAL, ensure_state_dir, leftover_journal
from ..paths import escapes
from ..safe_open import TEMP_PREFIX, remove, replace

MANIFEST = "manifest.json"


def write_atomic(root: Path, path: Path, text: str) -> None:
    """Replace `path` with `text` by rename: readers see the old file or the new one, never half.
    The path must be a regular file or nothing, inside the repository `root` (safe_open)."""
    replace(root, path, text.encode("utf-8"))


def _keep_old_version(target: Path, backup: Path) -> None:
    # A link to the entry itself (a symlink stays a symlink when it is put back).
    try:
        os.link(target, backup, follow_symlinks=False)
    except (OSError, NotImplementedError):  # no hard links here: copy instead
        shutil.copy2(target, backup, follow_symlinks=False)


def apply(root: Path, memory: Path, changes: list[tuple[Path, str | None]]) -> None:
    """Write (text) or delete (None) each target, in order, all or nothing. Hold the lock.
    No target may be a link, nor lead out of the repository `root`: all are checked
    before the first write, so a refusal leaves nothing to undo."""
    for target, text in changes:
        if text is not None:
            safe_open.target(root, target)
        else:
            safe_open.check_folder(root, target)
    pending = ensure_state_dir(root) / JOURNAL
    os.mkdir(pending, 0o700)
    manifest = []
    for number, (target, _text) in enumerate(changes):
        existed = os.path.lexists(target)
        if existed:
            _keep_old_version(target, pending / str(number))
        relpath = os.path.relpath(target, root).replace(os.sep, "/")
        manifest.append({"path": relpath, "existed": existed})
    _write_manifest(pending / MANIFEST, json.dumps(manifest))
    try:
        _note_writes(root, changes)
        for target, text in changes:
            if text is None:
                remove(root, target)
            else:
                write_atomic(root, target, text)
    except BaseException:
        roll_back(root, memory)
        raise
    os.unlink(pending / MANIFEST)  # the commit point
    shutil.rmtree(pending)


def _note_writes(root: Path, changes: list[tuple[Path, str | None]]) -> None:
    """Note in the git dir what this write puts on disk (store/record.py): this clone's own
    memory, read as today, never as a branch's. Noted before the first file lands, so a
    write that lands is always noted; one rolled back leaves hashes no file holds."""
    from ..store.record import noted_write

    items = []
    for target, text in changes:
        if text is None:
            continue
        relpath = os.path.relpath(target, root).replace(os.sep, "/")
        old = None
        if target.name == "INDEX.md" and target.is_file() and not target.is_symlink():
            old = target.read_bytes()
        items += noted_write(relpath, old, text.encode("utf-8"))
    from ..store.record import note

    note(root, items)


def _write_manifest(path: Path, text: str) -> None:
    """Write the manifest whole (temp file, fsync, rename): a half manifest would undo
    half a write. The git dir is ours, so no safe_open: it refuses paths in .git."""
    temp = path.with_name(f"{TEMP_PREFIX}{MANIFEST}")
    with open(temp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temp, path)
    safe_open.sync_folder(path.parent)


def roll_back(root: Path, memory: Path) -> bool:
    """Undo a change that did not commit. True if there was one to undo. Hold the lock.
    Only the journal in the git dir counts; each file it names is put back only in a
    folder inside the repository and under no .git (safe_open.check_folder)."""
    pending = leftover_journal(root)
    if pending is None:
        return False
    if os.path.islink(pending) or not os.path.isdir(pending):
        raise safe_open.UnsafeTarget(
            f"{pending} is not a folder eco-mem made (a link or a file); delete it, then run"
            " the command again"
        )
    manifest_path = pending / MANIFEST
    undone = False
    if os.path.isfile(manifest_path):
        manifest = _read_manifest(manifest_path)
        for number in range(len(manifest)):  # every backup is checked before any move
            if manifest[number]["existed"] and not os.path.lexists(pending / str(number)):
                raise _damaged(
                    manifest_path, f"the old version of {manifest[number]['path']} is missing"
                )
        for number in reversed(range(len(manifest))):
            item = manifest[number]
            # Its folder inside the repository and under no .git; the name itself is
            # replaced or removed, never followed, whatever sits there now.
            real = safe_open.check_folder(root, root / item["path"])
            if item["existed"]:
                os.replace(pending / str(number), real)
            elif os.path.lexists(real):
                os.unlink(real)
            _remove_temps(Path(real).parent)
        os.unlink(manifest_path)
        undone = True
    shutil.rmtree(pending)
    return undone


def _read_manifest(path: Path) -> list[dict]:
    """The list of files a stopped write touched, or a refusal to guess: undoing a write
    from a damaged record could delete memory, so a person decides."""
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(manifest, list) and all(
            isinstance(item, dict)
            and isinstance(item.get("path"), str)
            and not escapes(item["path"])
            and isinstance(item.get("existed"), bool)
            for item in manifest
        ):
            return manifest
        why = "it does not list files inside the repository"
    except (UnicodeDecodeError, ValueError) as error:
        why = str(error)
    raise _damaged(path, why)


def _damaged(path: Path, why: str) -> UsageError:
    return UsageError(
        f"{path} is damaged ({why}), so the write it records cannot be undone safely:"
        f" check the memory files with `git status` and `git diff`, then delete {path.parent}"
    )


def _remove_temps(folder: Path) -> None:
    # A write killed between creating its temp file and renaming it leaves the temp behind.
    for item in os.scandir(folder):
        if item.name.startswith(TEMP_PREFIX) and item.is_file(follow_symlinks=False):
            safe_open.remove(folder, item.path)
