"""The fleet's template, as the releases it holds: fetched once per run, pinned by commit.

A template repository serves much more than its releases: every pull request's
head on GitHub, any object of a local repository. An answers file's `_commit`
is a commit's word, so it may name any of that, and `copier update` renders
what it names (its Jinja extensions are Python). The fleet therefore fetches
the template's release tags once, at the start of a run, into a snapshot
folder of its own, and renders nothing else: its own scripts, installs and
upgrades all read that folder at a commit a release tag pointed to when the
run began. A tag moved mid-run changes nothing, and a `_commit` that names no
release is refused in its repository's row before anything is fetched for it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from eco_mem_ops import release_tags
from eco_mem_ops.release_tags import HEX


class NoReleases(Exception):
    """The template cannot be read, or holds no release tag; the run cannot start."""


@dataclasses.dataclass(frozen=True)
class Releases:
    """A snapshot folder holding only the release tags, and the commit each names."""

    folder: str
    commits: dict[str, str]  # tag -> commit

    def named(self, ref: object) -> str | None:
        """The release tag `ref` names (the tag itself, or at least 7 hex digits of the
        commit only release tags on one commit point to), else None."""
        text = str(ref or "")
        if text in self.commits:
            return text
        if not HEX.fullmatch(text):
            return None
        found = {commit for commit in self.commits.values() if commit.startswith(text)}
        if len(found) != 1:
            return None
        tags = [tag for tag, commit in self.commits.items() if commit in found]
        return max(tags, key=release_tags.order)

    def newest(self) -> str | None:
        return release_tags.newest(self.commits)

    def commit(self, tag: str) -> str:
        return self.commits[tag]

    def missing(self, tag: str, paths: tuple[str, ...]) -> list[str]:
        """Those of `paths` the release's tree lacks (read from the snapshot, nothing
        checked out)."""
        return [
            path
            for path in paths
            if subprocess.run(
                ["git", "-C", self.folder, "cat-file", "-e", f"{self.commit(tag)}:{path}"],
                capture_output=True,
                stdin=subprocess.DEVNULL,
            ).returncode
            != 0
        ]


def fetch(template: str, folder: str) -> Releases:
    """Fetch the release tags of `template` (URL or absolute path) into the new
    repository `folder` (release_tags.py reads them, as upgrade and Copier's own
    update do); NoReleases with a one-line reason when that fails."""
    try:
        commits = release_tags.fetch_releases(template, folder)
    except release_tags.ReleaseTagError as error:
        raise NoReleases(str(error)) from None
    return Releases(str(Path(folder).resolve()), commits)


@contextlib.contextmanager
def pinned_releases(
    program: str, template: str, wanted: str | None
) -> Iterator[tuple[Releases, str] | None]:
    """The run's snapshot and the release tag it acts on (`wanted`, else the newest),
    for as long as the run lasts; None, after one line on stderr, when there is none."""
    with tempfile.TemporaryDirectory(prefix="eco-mem-fleet-releases.") as scratch:
        try:
            releases = fetch(template, str(Path(scratch) / "releases"))
        except NoReleases as error:
            print(f"{program}: {error}", file=sys.stderr)
            yield None
            return
        tag = releases.named(wanted) if wanted else releases.newest()
        if tag is None:
            shown = ", ".join(sorted(releases.commits, key=release_tags.order)[-3:])
            what = f"--vcs-ref {wanted} names no release" if wanted else "no final release"
            print(f"{program}: {what} of {template} (releases: {shown})", file=sys.stderr)
            yield None
            return
        yield releases, tag
