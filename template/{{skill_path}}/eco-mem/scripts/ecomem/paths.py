"""Whether a path stays where it should: the one escape check every command and rule uses.

Memory names files in two ways: as text in a row or a field (judged as text, so a
crafted row cannot make a reader leave the repository) and as a file on disk (judged
after resolving symlinks, so a link cannot lead a reader out either).
"""

from __future__ import annotations

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
