"""The one reader of the template's release tags: which names are releases, how they
order, the commit each points to, and a folder holding only them.

Three callers read releases, each for its own refusal: the operator's upgrade and
restore-indexes (install/releases.py), the fleet (eco_mem_fleet/releases.py) and
Copier's own update (extensions/releases.py, which loads this file by its path from
Copier's checkout, where no package of ours is importable). So this module is
stdlib-only and imports nothing of eco-mem: a tag all three read the same way is
a release to all three.
"""

from __future__ import annotations

import os
import re
import subprocess

# A release tag as Copier orders them (PEP 440, a leading `v` allowed): numbers, and an
# optional pre-release part that `newest` skips, as Copier does by default.
RELEASE = re.compile(r"v?(\d+(?:\.\d+)*)((?:[.-]?(?:a|b|rc|alpha|beta|pre|preview|dev)\.?\d*)?)")
HEX = re.compile(r"[0-9a-f]{7,64}")
# Fetching a few hundred tags takes one git command; past this, one per batch.
BATCH = 200
PEELED = "%(refname:strip=2)%09%(objecttype)%09%(objectname)%09%(*objectname)"


class ReleaseTagError(Exception):
    """git could not list, fetch or read the tags; the message is one line."""


def is_release(tag: str) -> bool:
    return RELEASE.fullmatch(tag) is not None


def order(tag: str) -> tuple[tuple[int, ...], bool, str]:
    """Sort key: the numbers, then a final release after its pre-releases, then the name."""
    match = RELEASE.fullmatch(tag)
    numbers = tuple(int(part) for part in match.group(1).split(".")) if match else ()
    return numbers, not (match and match.group(2)), tag


def is_final(tag: str) -> bool:
    """A release with no pre-release part (what Copier picks by default)."""
    return order(tag)[1]


def newest(tags) -> str | None:
    """The highest final release among `tags`, or None."""
    final = [tag for tag in tags if is_release(tag) and is_final(tag)]
    return max(final, key=order) if final else None


def _git(cwd: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", "-C", str(cwd), *args],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _last_line(done: subprocess.CompletedProcess, what: str) -> str:
    return (done.stderr.strip().splitlines() or [f"git {what} failed"])[-1]


def tag_commits(repository) -> dict[str, str]:
    """{release tag: the commit it points to (annotated tags peeled)} in `repository`;
    ReleaseTagError when git cannot read its tags."""
    shown = _git(repository, "for-each-ref", f"--format={PEELED}", "refs/tags")
    if shown.returncode != 0:
        raise ReleaseTagError(_last_line(shown, "for-each-ref"))
    commits = {}
    for line in shown.stdout.splitlines():
        name, kind, target, peeled = [*line.split("\t"), "", "", ""][:4]
        commit = peeled if kind == "tag" else target
        if is_release(name) and HEX.fullmatch(commit):
            commits[name] = commit
    return commits


def remote_releases(where: str, cwd) -> list[str]:
    """The release tag names the repository at `where` (a URL or a path) serves."""
    listed = _git(cwd, "ls-remote", "--tags", "--refs", "--", where)
    if listed.returncode != 0:
        raise ReleaseTagError(f"cannot list the tags of {where}: {_last_line(listed, 'ls-remote')}")
    names = [
        line.rsplit("refs/tags/", 1)[-1]
        for line in listed.stdout.splitlines()
        if "\trefs/tags/" in line
    ]
    return [name for name in names if is_release(name)]


def fetch_releases(where: str, folder) -> dict[str, str]:
    """Make `folder` (new) a repository holding only the release tags of `where`, fetched
    now, and return tag_commits of it; ReleaseTagError when there are none or git fails."""
    folder = str(folder)
    parent = os.path.dirname(os.path.abspath(folder))
    names = remote_releases(where, cwd=parent)
    if not names:
        raise ReleaseTagError(f"{where} has no release tags (vMAJOR.MINOR.PATCH)")
    # Not bare: Copier takes a local template only when it is a work tree's root.
    made = _git(parent, "init", "--quiet", "--", folder)
    if made.returncode != 0:
        raise ReleaseTagError(
            f"cannot make a release snapshot in {folder}: {_last_line(made, 'init')}"
        )
    for start in range(0, len(names), BATCH):
        specs = [f"+refs/tags/{name}:refs/tags/{name}" for name in names[start : start + BATCH]]
        done = _git(
            folder, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--", where, *specs
        )
        if done.returncode != 0:
            raise ReleaseTagError(f"cannot fetch the tags of {where}: {_last_line(done, 'fetch')}")
    return tag_commits(folder)
