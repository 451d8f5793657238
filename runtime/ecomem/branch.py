"""Which branch is checked out, and is it the default one: read from .git, no git spawned.

verify runs on every commit, and a travelling desk is fine on a task branch but an
error on the default branch, so it asks this on every run. Two small files answer:
HEAD (the branch checked out) and refs/remotes/origin/HEAD (what the clone's remote
calls its default), both in the layout git itself writes, worktrees included.

CI often checks out a commit, not a branch (a detached HEAD: GitLab always, GitHub on
pull requests). Only then are the CI's own variables read: they name the branch being
built (and GitLab's the default). Without them a detached HEAD counts as on the default
branch when its commit is that branch's tip (refs/heads/NAME or refs/remotes/origin/NAME,
loose or packed):

  GitLab          CI_DEFAULT_BRANCH names the default; the branch built is
                  CI_COMMIT_BRANCH, else CI_MERGE_REQUEST_SOURCE_BRANCH_NAME, else
                  CI_COMMIT_REF_NAME unless CI_COMMIT_TAG says it is a tag
  GitHub Actions  on pull_request(_target) events GITHUB_HEAD_REF, else GITHUB_REF_NAME
                  when GITHUB_REF_TYPE is branch; the default comes from
                  --default-branch (the workflow passes it)

An empty variable counts as unset.
"""

from __future__ import annotations

import os
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


def ci_branches(environ) -> tuple[str | None, str | None]:
    """(the default branch, the branch being built) as the CI's variables name them."""

    def get(name: str) -> str | None:
        return environ.get(name) or None

    if get("CI_DEFAULT_BRANCH") or get("GITLAB_CI"):
        built = get("CI_COMMIT_BRANCH") or get("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME")
        if built is None and not get("CI_COMMIT_TAG"):
            built = get("CI_COMMIT_REF_NAME")
        return get("CI_DEFAULT_BRANCH"), built
    if get("GITHUB_ACTIONS"):
        if get("GITHUB_EVENT_NAME") in ("pull_request", "pull_request_target"):
            return None, get("GITHUB_HEAD_REF")
        if get("GITHUB_REF_TYPE") == "branch":
            return None, get("GITHUB_REF_NAME")
    return None, None


def _tips(common: Path, names: tuple[str, ...]) -> dict[str, str]:
    """{commit: branch name} of the local and origin refs of `names`, loose or packed."""
    # A ref name never holds "..", so a name with one cannot lead the read out of .git.
    names = tuple(name for name in names if ".." not in name and not name.startswith("/"))
    wanted = {f"{prefix}{name}": name for name in names for prefix in (HEADS, ORIGIN)}
    tips = {}
    for ref, name in wanted.items():
        commit = read_small(common / ref)
        if commit:
            tips[commit] = name
    try:
        with open(common / "packed-refs", encoding="utf-8") as packed:
            for line in packed:
                commit, _, ref = line.strip().partition(" ")
                if ref in wanted:
                    tips.setdefault(commit, wanted[ref])
    except (OSError, UnicodeDecodeError):
        pass
    return tips


def on_default_branch(root: Path, given: str | None = None, environ=None) -> tuple[bool, str]:
    """(is this checkout on the default branch, the default's name as judged)."""
    dirs = git_dirs(root)  # read once: every question starts from the same .git
    branch = current_branch(dirs)
    default = given or default_branch(dirs)
    if branch is None and dirs is not None:  # a detached HEAD: a commit, not a branch
        ci_default, branch = ci_branches(os.environ if environ is None else environ)
        default = given or ci_default or default
        if branch is None:
            head = read_small(dirs[0] / "HEAD")
            names = (default,) if default else FALLBACK
            tip_of = _tips(dirs[1], names).get(head) if head else None
            return tip_of is not None, tip_of or default or FALLBACK[0]
    if default:
        return branch == default, default
    return branch in FALLBACK, branch if branch in FALLBACK else FALLBACK[0]
