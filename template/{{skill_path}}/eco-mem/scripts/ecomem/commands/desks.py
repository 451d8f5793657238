"""Desks in git: a plain desk stays local (ignored); a travelling desk is committed with
its task branch, so a fresh clone of the branch (a cloud agent's next session) finds it.

The commands stage what they did, and nothing else: `new working --travel` stages the
new desk past the ignore rule (`git add -f`), and ending or forgetting a tracked desk
stages its removal, so the branch that merges carries no desk.
"""

from __future__ import annotations

from pathlib import Path

from .. import protocol
from ..git import git


def travels(args) -> bool:
    """--travel, or the repository's default (the desks_travel question) unless --local."""
    if getattr(args, "local", False):
        return False
    return bool(getattr(args, "travel", False) or protocol.DESKS_TRAVEL)


def stage_new(root: Path, relpath: str) -> str | None:
    """Stage a travelling desk; the reason it could not be, or None."""
    try:
        done = git(root, "add", "-f", "--", relpath)
    except OSError as error:
        return f"git not runnable ({error})"
    return None if done.returncode == 0 else (done.stderr.strip() or "git add failed")


def stage_removal(root: Path, relpath: str) -> bool:
    """If git tracks this (now deleted) desk, stage its removal. True when it did."""
    try:
        if git(root, "ls-files", "--error-unmatch", "--", relpath).returncode != 0:
            return False
        return git(root, "rm", "--cached", "-q", "--", relpath).returncode == 0
    except OSError:
        return False
