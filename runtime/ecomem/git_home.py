"""Where the memory commands keep their own state: this work tree's git dir.

The lock, the write journal and its backups belong to one clone and one moment, never
to memory. Anything under the memory folder is something a commit can hold, so a
journal kept there could be written by whoever wrote the branch, and rolling it back
would move their files wherever they said. The git dir is out of every commit's
reach; a linked worktree has its own (`.git/worktrees/NAME`), so each work tree locks
and journals its own files. Found by reading the files git keeps (git.git_dirs), with
no git spawned and no hook run.

Only while that git dir is one no commit reaches: `safe_home` refuses a git dir that
lies among the work tree's own folders (a `.git` file pointing into the tree, or a
link), and an `eco-mem` there that is a link or not a folder (a committed
`.claude/skills -> ../.git` makes Copier render the Claude link as `.git/eco-mem`,
and everything written "into the git dir" would then land in the tracked skill).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .errors import UsageError
from .git import git_dirs
from .safe_open import CLOEXEC, NOFOLLOW, NONBLOCK, UnsafeTarget

HOME = "eco-mem"  # the same folder name as the driver copy's, in the common dir
LOCK = "write.lock"
JOURNAL = "journal"


def safe_home(root: Path, git_dir: Path) -> Path:
    """`git_dir/eco-mem`, once writing there cannot reach a commit; else a refusal.

    The git dir must be the work tree's own `.git` folder (not a link) or lie outside
    the work tree, and `eco-mem` in it, when there, a real folder, not a link.
    """
    real_root = os.path.realpath(root)
    real_git = os.path.realpath(git_dir)
    inside = os.path.relpath(real_git, real_root).split(os.sep)
    if inside[0] != os.pardir:
        dot = Path(root) / ".git"
        if inside[0] != ".git" or not stat.S_ISDIR(os.lstat(dot).st_mode):
            raise UnsafeTarget(
                f"the git dir of {root} lies inside its work tree, not in .git: eco-mem"
                " keeps no state where a commit could reach it"
            )
    home = git_dir / HOME
    if os.path.lexists(home) and not stat.S_ISDIR(os.lstat(home).st_mode):
        raise UnsafeTarget(
            f"{home} is a link or not a folder (a link into .git rendered it?); delete"
            " it, then run the command again"
        )
    return home


def state_dir(root: Path) -> Path:
    """`<git dir>/eco-mem` of the work tree `root`; a refusal outside git."""
    dirs = git_dirs(root)
    if dirs is None:
        raise UsageError(
            f"{root} is not a git work tree: eco-mem keeps its write lock and journal in"
            " the git dir; run `git init` there first"
        )
    return safe_home(root, dirs[0])


def ensure_state_dir(root: Path) -> Path:
    """The state folder, made if missing; a refusal if something else sits there."""
    folder = state_dir(root)
    if not os.path.lexists(folder):
        os.makedirs(folder, 0o700, exist_ok=True)
    if not stat.S_ISDIR(os.lstat(folder).st_mode):
        raise UnsafeTarget(f"{folder} is not a folder; delete it, then run the command again")
    return folder


def open_state_file(path: Path, flags: int) -> int:
    """os.open of a state file: created if missing, never through a link, a regular
    file with no other hard link, or a one-line refusal."""
    try:
        fd = os.open(path, flags | os.O_CREAT | NOFOLLOW | NONBLOCK | CLOEXEC, 0o600)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENXIO):
            raise UnsafeTarget(f"{path} is a link or a FIFO; delete it, then retry") from None
        raise
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        os.close(fd)
        raise UnsafeTarget(
            f"{path} is not a plain file of its own (a device, a FIFO or a hard link);"
            " delete it, then run the command again"
        )
    return fd


def leftover_journal(root: Path) -> Path | None:
    """The journal a stopped write left in the git dir, if any (never one in the tree)."""
    dirs = git_dirs(root)
    if dirs is None:
        return None
    try:
        path = safe_home(root, dirs[0]) / JOURNAL
    except UnsafeTarget:
        return None  # a journal a commit could hold is never acted on; writes refuse here
    return path if os.path.lexists(path) else None
