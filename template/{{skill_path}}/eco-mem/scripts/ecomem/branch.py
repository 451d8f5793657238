"""Which branch is checked out, and is it the default one: read from .git, no git spawned.

verify runs on every commit, and a travelling desk is fine on a task branch but an
error on the default branch, so it asks this on every run. Two small files answer:
HEAD (the branch checked out) and refs/remotes/origin/HEAD (what the clone's remote
calls its default), both in the layout git itself writes, worktrees included.
"""

from __future__ import annotations

from pathlib import Path

from .git import git_dirs, read_small

HEADS = "refs/heads/"
ORIGIN = "refs/remotes/origin/"
# Without origin/HEAD (a repository never cloned, or CI's shallow checkout without
# --default-branch) these names are taken for the default branch.
FALLBACK = ("main", "master")


def _symref(path: Path, prefix: str) -> str | None:
    text = read_small(path)
    if text.startswith("ref:"):
        ref = text[4:].strip()
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return None


def current_branch(dirs: tuple[Path, Path] | None) -> str | None:
    """The branch checked out; None when HEAD is detached or this is not a repository."""
    return _symref(dirs[0] / "HEAD", HEADS) if dirs else None


def default_branch(dirs: tuple[Path, Path] | None) -> str | None:
    """The branch origin/HEAD names (set by `git clone`), None when the clone has none."""
    return _symref(dirs[1] / "refs/remotes/origin/HEAD", ORIGIN) if dirs else None


def on_default_branch(root: Path, given: str | None = None) -> tuple[bool, str]:
    """(is the checked-out branch the default one, the default's name as judged)."""
    dirs = git_dirs(root)  # read once: both questions start from the same .git
    branch = current_branch(dirs)
    default = given or default_branch(dirs)
    if default:
        return branch == default, default
    return branch in FALLBACK, branch if branch in FALLBACK else FALLBACK[0]
