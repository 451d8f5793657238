"""Whether a path stays where it should: the one escape check every command and rule uses.

Memory names files in two ways: as text in a row or a field (judged as text, so a
crafted row cannot make a reader leave the repository) and as a file on disk (judged
after resolving symlinks, so a link cannot lead a reader out either).
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path


def escapes(relpath: str) -> bool:
    """True when `relpath`, read as text, is absolute or climbs out of its folder."""
    normal = posixpath.normpath(relpath)
    return relpath.startswith("/") or "\\" in relpath or normal == ".." or normal.startswith("../")


def inside(path: Path, folder: Path) -> bool:
    """True when `path`, symlinks resolved, is `folder` or lies under it."""
    resolved, real_folder = path.resolve(), folder.resolve()
    return resolved == real_folder or real_folder in resolved.parents


def resolved_inside(real: str, real_folder: str) -> bool:
    """`inside` for paths both already resolved (os.path.realpath): no file system call."""
    return real == real_folder or real.startswith(real_folder.rstrip(os.sep) + os.sep)


def not_a_repo_file(relpath: str, memory_dir: str) -> str | None:
    """Why `relpath`, read as text, cannot name a file of the repository's own: absolute,
    climbing out, inside `.git`, or inside the memory folder. None when it can."""
    if not relpath or escapes(relpath):
        return "must be a relative path inside the repository (no '/' start, '..' or '\\')"
    normal = posixpath.normpath(relpath)
    if normal == ".":
        return "names the repository itself; name a file"
    if normal == ".git" or normal.startswith(".git/"):
        return "lies inside .git; name a file of the work tree"
    memory = posixpath.normpath(memory_dir)
    if normal == memory or normal.startswith(memory + "/"):
        return "lies inside the memory folder; memory cannot be its own evidence"
    return None
