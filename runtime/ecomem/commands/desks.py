"""Desks in git: a plain desk stays local (ignored); a travelling desk is committed with
its task branch, so a fresh clone of the branch (a cloud agent's next session) finds it.

The commands stage what they did, and nothing else: `new working --travel` stages the
new desk past the ignore rule (`git add -f`), and ending or forgetting a tracked desk
stages its removal, so the branch that merges carries no desk. On the default branch a
travelling desk is refused (branch.py decides, detached CI checkouts included).
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


def refuse_on_default_branch(root: Path) -> None:
    """Refuse a travelling desk on the default branch, before anything is written: staged
    there, it is the desk verify rejects as working.tracked-desk."""
    from ..branch import on_default_branch
    from ..errors import Refused
    from ..findings import ERROR, Finding

    on_default, default = on_default_branch(root)
    if on_default:
        message = (
            f"a travelling desk would be committed to the default branch ({default}), where"
            " desks never go: create the task branch first (git switch -c NAME), or pass --local"
        )
        where = f"{protocol.MEMORY_DIR}/working"
        raise Refused([Finding(where, 0, "working.tracked-desk", ERROR, message)])


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


def stage_relay(
    root: Path, promoted: list[str], catalogs: list[tuple[str, list[str] | None]]
) -> tuple[list[str], list[tuple[str, str]]]:
    """Stage what a travelling desk's end-task promoted: the new entries, and each catalog
    whose row it added if git's copy was the catalog as it stood before the write (else the
    catalog held someone's unstaged edits, which are not ours to commit).
    (paths staged, [(path, why not)])."""
    from ..store.rows import file_text

    staged: list[str] = []
    refused: list[tuple[str, str]] = []
    wanted = list(promoted)
    for relpath, before in catalogs:
        shown = git(root, "show", f":./{relpath}")
        if shown.returncode != 0:
            refused.append((relpath, "git does not track it; git add it with the entry"))
        elif before is None or shown.stdout != file_text(before):
            refused.append((relpath, "it held unstaged edits before; review and git add it"))
        else:
            wanted.append(relpath)
    for relpath in wanted:
        done = git(root, "add", "--", relpath)
        if done.returncode == 0:
            staged.append(relpath)
        else:
            reason = " ".join((done.stderr.strip() or "git add failed").split())
            refused.append((relpath, reason))
    return staged, refused
