"""Change several memory files so that all of the changes land or none does.

An entry file and its catalog row live in two files, and no file system renames two files
at once. So every change is journaled first: the old version of each target is kept (as a
hard link, which costs no copy) in `working/.eco-mem.pending/`, then a manifest naming the
targets is written, then each target is replaced by its own atomic rename. Deleting the
manifest is the commit. Whoever finds a manifest later (the next memory command, under the
lock) puts every old version back; a pending folder without a manifest is simply removed.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from .. import safe_open
from ..errors import UsageError
from ..paths import escapes
from ..safe_open import TEMP_PREFIX, remove, replace
from ..store.load import WORKING_PENDING as PENDING_NAME

MANIFEST = "manifest.json"


def pending_path(memory: Path) -> Path:
    return memory / "working" / PENDING_NAME


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
    pending = pending_path(memory)
    os.mkdir(pending)
    manifest = []
    for number, (target, _text) in enumerate(changes):
        existed = os.path.lexists(target)
        if existed:
            _keep_old_version(target, pending / str(number))
        manifest.append({"path": os.path.relpath(target, memory), "existed": existed})
    write_atomic(root, pending / MANIFEST, json.dumps(manifest))
    try:
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


def roll_back(root: Path, memory: Path) -> bool:
    """Undo a change that did not commit. True if there was one to undo. Hold the lock."""
    pending = pending_path(memory)
    if os.path.islink(pending):  # only eco-mem makes this folder, and never as a link
        raise safe_open.UnsafeTarget(
            f"{pending} is a symlink, not a write journal eco-mem made; delete it, then run"
            " the command again"
        )
    if not os.path.isdir(pending):
        return False
    manifest_path = pending / MANIFEST
    undone = False
    if manifest_path.is_file():
        manifest = _read_manifest(manifest_path)
        for number in reversed(range(len(manifest))):
            item = manifest[number]
            target = memory / item["path"]
            safe_open.check_folder(root, target)
            if item["existed"]:
                os.replace(pending / str(number), target)
            elif os.path.lexists(target):
                os.unlink(target)
            _remove_temps(target.parent)
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
        why = "it does not list files inside the memory folder"
    except (UnicodeDecodeError, ValueError) as error:
        why = str(error)
    raise UsageError(
        f"{path} is damaged ({why}), so the write it records cannot be undone safely:"
        f" check the memory files with `git status` and `git diff`, then delete {path.parent}"
    )


def _remove_temps(folder: Path) -> None:
    # A write killed between creating its temp file and renaming it leaves the temp behind.
    for item in os.scandir(folder):
        if item.name.startswith(TEMP_PREFIX):
            os.unlink(item.path)
