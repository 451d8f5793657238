"""The template's releases, fetched once into a folder of our own and pinned by commit.

`copier update` renders the version the answers file names (`_commit`) before
the new one, and a render imports that version's Jinja extensions: Python, run
with this user's environment. A template repository serves much more than its
releases (every pull request's head on GitHub, any object of a local clone),
so a trusted *name* is not enough: `_commit` could name any of it.

So every render `upgrade` and `restore-indexes` ask Copier for comes from a
snapshot: a local repository holding only the template's release tags, fetched
once, at the commits they pointed to then. `_commit` and `--vcs-ref` must name
one of those releases (by tag, or by the commit a tag points to); anything else
is refused before Copier starts, and nothing of it is fetched or rendered.
"""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from ecomem import protocol
from ecomem.errors import UsageError
from ecomem.git import git
from ecomem.safe_open import write_text

from .. import release_tags
from ..release_tags import HEX


class Release(NamedTuple):
    tag: str
    commit: str

    @property
    def order(self) -> tuple[tuple[int, ...], bool, str]:
        return release_tags.order(self.tag)


class Releases(NamedTuple):
    """The snapshot folder and the releases it holds."""

    folder: Path
    tags: tuple[Release, ...]

    def named(self, ref: str) -> Release | None:
        """The release `ref` names: a release tag, or a commit (at least 7 hex digits)
        that exactly one release's tag points to; None for anything else."""
        ref = str(ref or "")
        for release in self.tags:
            if release.tag == ref:
                return release
        if not HEX.fullmatch(ref):
            return None
        commits = {release.commit for release in self.tags if release.commit.startswith(ref)}
        if len(commits) != 1:
            return None
        on_it = [release for release in self.tags if release.commit in commits]
        return max(on_it, key=lambda release: release.order)

    def newest(self) -> Release | None:
        tag = release_tags.newest(release.tag for release in self.tags)
        return None if tag is None else next(r for r in self.tags if r.tag == tag)

    def listing(self, count: int = 3) -> str:
        ordered = sorted(self.tags, key=lambda release: release.order, reverse=True)
        return ", ".join(release.tag for release in ordered[:count]) or "none"


def fetch(where: str, folder: Path) -> Releases:
    """Make `folder` a repository holding only the release tags of the template at
    `where` (a URL or an absolute path), fetched now; UsageError when there are none."""
    try:
        release_tags.fetch_releases(where, folder)
    except release_tags.ReleaseTagError as error:
        raise UsageError(f"{error}; nothing to render") from None
    return read(folder)


def read(folder: Path) -> Releases:
    """The releases a snapshot made by `fetch` holds, each tag peeled to its commit."""
    try:
        commits = release_tags.tag_commits(folder)
    except release_tags.ReleaseTagError as error:
        raise UsageError(f"{folder} is no release snapshot: {error}") from None
    if not commits:
        raise UsageError(f"{folder} holds no release tags")
    return Releases(folder, tuple(Release(tag, commit) for tag, commit in commits.items()))


@contextlib.contextmanager
def snapshot(where: str, given: str = "") -> Iterator[Releases]:
    """The releases of the template at `where`: the snapshot `given` (made by the fleet
    once for its whole run), else one fetched now and removed afterwards."""
    if given:
        yield read(Path(given))
        return
    with tempfile.TemporaryDirectory(prefix="eco-mem-releases.") as scratch:
        yield fetch(where, Path(scratch) / "releases")


# A ref or commit id as git spells one. A `_commit` of any other shape is a branch's
# text, and the refusal reaches whoever ran upgrade (an agent, too): not repeated.
REF_SHAPED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+/-]{0,99}")


def release_of(releases: Releases, value: str, what: str, source: str) -> Release:
    """The release `value` names, or a one-line refusal that says what would render."""
    found = releases.named(value)
    if found is None:
        shown = repr(value) if REF_SHAPED.fullmatch(str(value)) else "(no ref; not shown)"
        raise UsageError(
            f"refused: {what} {shown} names no release of {source}, and only releases"
            f" are rendered (newest: {releases.listing()})"
        )
    return found


@contextlib.contextmanager
def answers_pinned(root: Path, releases: Releases, release: Release) -> Iterator[None]:
    """Point the answers file at the snapshot and the release's commit while Copier runs.

    Copier reads the old version's source and commit from the answers file alone.
    The edit is hidden from git with --skip-worktree (Copier refuses a dirty tree)
    and taken back afterwards: the `_src_path` line as the team wrote it, and the
    `_commit` Copier recorded, which names the release tag."""
    path = root / protocol.ANSWERS_FILE
    original = path.read_text(encoding="utf-8")
    source_line = re.search(r"(?m)^_src_path:.*$", original)
    pinned, count = re.subn(r"(?m)^_commit:.*$", f"_commit: {release.commit}", original)
    if source_line is None or count != 1:
        raise UsageError(f"{protocol.ANSWERS_FILE} has no single `_src_path:` and `_commit:` line")
    pinned = pinned.replace(source_line.group(0), f"_src_path: {json.dumps(str(releases.folder))}")
    hidden = git(root, "update-index", "--skip-worktree", "--", protocol.ANSWERS_FILE)
    if hidden.returncode != 0:
        raise UsageError(f"{protocol.ANSWERS_FILE} is not tracked by git; commit it first")
    try:
        write_text(root, path, pinned, follow=True)
        yield
    finally:
        git(root, "update-index", "--no-skip-worktree", "--", protocol.ANSWERS_FILE)
        now = path.read_text(encoding="utf-8") if path.is_file() else pinned
        if now == pinned:  # Copier stopped before it wrote: as it was
            write_text(root, path, original, follow=True)
        else:
            restored = re.sub(r"(?m)^_src_path:.*$", lambda _: source_line.group(0), now, count=1)
            write_text(root, path, restored, follow=True)
