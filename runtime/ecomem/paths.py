"""Whether a path stays where it should: the one escape check every command and rule uses.

Memory names files in two ways: as text in a row or a field (judged as text, so a
crafted row cannot make a reader leave the repository) and as a file on disk (judged
after resolving symlinks, so a link cannot lead a reader out either).

Whatever names a file of the repository (a procedural pointer, a citation, a checklist
file) passes one rule, `text_problem`, on the path as written and again on where its
symlinks lead (`link_problem`): not absolute, not climbing out, not the repository itself,
nothing under a `.git` folder at any depth in any letter case, nothing in the memory folder.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from . import protocol
from .path_rule import is_git_dir


def escapes(relpath: str) -> bool:
    """True when `relpath`, read as text, is absolute or climbs out of its folder."""
    normal = posixpath.normpath(relpath)
    return relpath.startswith("/") or "\\" in relpath or normal == ".." or normal.startswith("../")


def inside(path: Path, folder: Path) -> bool:
    """True when `path`, symlinks resolved, is `folder` or lies under it."""
    resolved, real_folder = path.resolve(), folder.resolve()
    return resolved == real_folder or real_folder in resolved.parents


# Big enough for any checklist or cited file memory should hold; a larger one is refused
# before it is read, so a command never pulls a huge or endless file into memory.
READ_LIMIT = 256 * 1024
CLIMBS = "is absolute or climbs out with '..'; name a file inside the repository"
IN_GIT = "is under .git; name a file in the working tree"
IN_MEMORY = "lies inside the memory folder; memory cannot be its own evidence"
THE_REPOSITORY = "names the repository itself; name a file"
LINKS_OUT = "leads out of the repository through a symlink"
# The reasons that mean "outside the repository", as opposed to "not a readable file".
OUTSIDE = frozenset([CLIMBS, IN_GIT, LINKS_OUT])


def text_problem(relpath: str, memory_dir: str) -> str | None:
    """Why `relpath`, read as text, cannot name a file of the repository's own (absolute,
    climbing out, the repository itself, under any `.git` folder, or inside `memory_dir`,
    in any letter case); None when it can. No file system call: verify runs it on every
    citation and pointer."""
    if not relpath or escapes(relpath):
        return CLIMBS
    normal = posixpath.normpath(relpath)
    if normal == ".":
        return THE_REPOSITORY
    folded = normal.casefold()
    # The substring tests first: most paths hold neither, and skip the walk.
    if (".git" in folded or "~" in folded) and any(map(is_git_dir, normal.split("/"))):
        return IN_GIT
    memory = posixpath.normpath(memory_dir).casefold()
    if folded == memory or folded.startswith(memory + "/"):
        return IN_MEMORY
    # A package store (`init PATH`) is memory too, whichever store is in use.
    root_memory = posixpath.normpath(protocol.ROOT_MEMORY_DIR).casefold()
    if root_memory in folded and f"/{root_memory}/" in f"/{folded}/":
        return IN_MEMORY
    return None


def link_problem(root: Path, relpath: str, memory_dir: str) -> str | None:
    """`text_problem` for where `relpath` really leads once symlinks are resolved:
    LINKS_OUT when that is outside `root`. Call it after `text_problem(relpath)` passed."""
    real = _real_relpath(root, relpath)
    if real is None:
        return LINKS_OUT
    if real == ".":
        return THE_REPOSITORY
    return text_problem(real, memory_dir)


# (root, relpath) -> where it leads, repo-relative (None: out of the repository). Package
# stores point at the same files (the one SKILL.md, shared docs): resolve each once a run.
_REAL: dict[tuple[str, str], str | None] = {}


def _real_relpath(root: Path, relpath: str) -> str | None:
    key = (os.fspath(root), relpath)
    if key not in _REAL:
        path = root / relpath
        inner = inside(path, root)
        _REAL[key] = path.resolve().relative_to(root.resolve()).as_posix() if inner else None
    return _REAL[key]


def repo_file(
    root: Path, given: str, memory_dir: str, limit: int = READ_LIMIT
) -> tuple[Path | None, str]:
    """The regular file `given` names inside the repository at `root`, or None and why not.

    `given` is read relative to `root`. Refused: what `text_problem` refuses, as written
    and once symlinks are resolved (a link out of `root`, into `.git` or into memory),
    what is not a regular file (a FIFO would block, a device never ends), more than
    `limit` bytes. The reason is one lowercase clause, for the caller's message; it is
    in OUTSIDE when the file lies outside the repository.
    """
    problem = text_problem(given, memory_dir) or link_problem(root, given, memory_dir)
    if problem is not None:
        return None, problem
    resolved = (root / given).resolve()
    try:
        info = resolved.stat()
    except OSError:
        return None, "does not exist"
    import stat

    if not stat.S_ISREG(info.st_mode):
        return None, "is not a regular file"
    if info.st_size > limit:
        return None, f"is {info.st_size} bytes, over the {limit}-byte limit"
    return resolved, ""


def read_repo_file(path: Path, limit: int = READ_LIMIT) -> bytes:
    """At most `limit` bytes of a file `repo_file` accepted; ValueError if it grew past that."""
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"grew past the {limit}-byte limit while being read")
    return data


def resolved_inside(real: str, real_folder: str) -> bool:
    """`inside` for paths both already resolved (os.path.realpath): no file system call."""
    return real == real_folder or real.startswith(real_folder.rstrip(os.sep) + os.sep)
