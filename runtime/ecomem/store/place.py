"""Whether a memory folder may be read: the writers' rule (safe_open.py), kept by readers.

A commit can put a link where a drawer or the memory folder was. A working drawer that
leads to `../../../private/.agents/memory/working` would have `find` and the session
digest print another checkout's local desks, which git never shared. Writers already
refuse to land outside the repository or in `.git`; readers refuse the same places:

- a store's memory folder is read only when its real path (every link resolved) lies
  inside the repository and under no `.git` folder. A link that stays inside is a
  layout some hosts choose (`docs/memory -> ../memory-store`) and is read;
- a drawer only when it is a real folder in that memory folder, never a link;
- neither when it, or a folder above it inside the repository, holds a `.git`: another
  repository's checkout (a submodule a branch put there), whose files no review of this
  repository passed. No commit can hold a `.git` of its own, so a team's memory never does;
- an entry, a desk or a catalog never when it is a link (store/load.py, store/desks.py,
  find.py and textfile.read_unseen each check the file they open).

A folder refused here is not listed at all: verify reports it, the other readers skip
it and say so in one line. No pathlib: the session digest reads desks through here.
"""

from __future__ import annotations

import os

from ..safe_open import _in_git, _inside  # the writers' own tests of a resolved path

OUT = "leads out of the repository (or into .git) through a link"
LINKED = "is a link"
NESTED = "is another git repository's checkout (a submodule?)"


def refusal(root, memory_dir: str, drawer: str | None = None) -> str | None:
    """Why the memory folder `memory_dir` (repository-relative), or its `drawer`, must not
    be read: OUT or LINKED; None when it may be (or does not exist)."""
    root = os.fspath(root)
    real_root = os.path.realpath(root)
    memory = os.path.join(root, *memory_dir.split("/"))
    real_memory = os.path.realpath(memory)
    if not _inside(real_memory, real_root) or _in_git(real_memory, real_root):
        return OUT
    if drawer is None:
        return NESTED if _nested(root, memory_dir) else None
    folder = os.path.join(memory, drawer)
    if not os.path.islink(folder):  # then its real path is the real memory folder's child
        return NESTED if os.path.lexists(os.path.join(folder, ".git")) else None
    real = os.path.realpath(folder)
    return OUT if not _inside(real, real_root) or _in_git(real, real_root) else LINKED


def refused(root, memory_dir: str, drawer: str | None = None) -> str | None:
    """One line naming the folder that must not be read: the memory folder, else `drawer`
    (when given); None when both may be read."""
    why = refusal(root, memory_dir)
    if why:
        return f"{memory_dir}: the memory folder {why}; not read, run verify"
    why = refusal(root, memory_dir, drawer) if drawer else None
    if why:
        return f"{memory_dir}/{drawer}: the drawer {why}; not read, run verify"
    return None


def _nested(root: str, folder: str) -> bool:
    """Whether `folder` (repository-relative) or a folder above it inside `root` holds a
    `.git`: a few lstat calls, one per level."""
    parts = folder.split("/")
    return any(
        os.path.lexists(os.path.join(root, *parts[:depth], ".git"))
        for depth in range(len(parts), 0, -1)
    )
