"""Copier's own update refuses an installed version that is no release of this template.

`copier update` renders the installed version (the answers file's `_commit`)
before the new one, and that render imports the installed version's Jinja
extensions. A commit can set `_commit` to anything the template repository
serves: the head of a pull request nobody merged, a fork's commit. Copier
renders the new version's `_message_before_update` first, with this
extension loaded from the new version, so the message's filter can stop the
update, in one line, before the old render imports anything. That covers a
plain `copier update`, Renovate's, and the `upgrade` command of an older
install. `--quiet` skips Copier's messages, and with them this check:
eco-mem's own upgrade and fleet pin releases themselves (SECURITY.md).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import yaml
from jinja2 import Environment
from jinja2.ext import Extension

TEMPLATE = Path(__file__).resolve().parents[1]  # Copier's checkout of the new version


def _load_release_tags():
    """eco_mem_ops/release_tags.py of this checkout, loaded by its file: the one reader
    of release tags that upgrade and the fleet import too. Copier's checkout is no
    package anyone can import, so it is loaded as extensions/protocol.py loads the
    runtime's protocol.py, without writing bytecode into the checkout Copier renders."""
    spec = importlib.util.spec_from_file_location(
        "eco_mem_release_tags", TEMPLATE / "eco_mem_ops" / "release_tags.py"
    )
    module = importlib.util.module_from_spec(spec)
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module


release_tags = _load_release_tags()
HEX = release_tags.HEX


def release_commits(template: Path = TEMPLATE) -> dict[str, str]:
    """Each release tag of the template repository at `template`, and its commit."""
    try:
        return release_tags.tag_commits(template)
    except release_tags.ReleaseTagError:
        return {}  # no tags to read: no release, so the update is refused


def is_release(commit: str, releases: dict[str, str], template: Path = TEMPLATE) -> bool:
    """Whether `commit`, read as git reads it in Copier's checkout, is a released commit.

    The text alone is not enough: git reads `abc1234` as a branch of that name before a
    hash, and `refs/v1.0.0` before the tag `v1.0.0`, and Copier checks out the old
    version by the same reading, from the same clone."""
    if not commit or commit.startswith("-"):
        return False
    resolved = subprocess.run(
        [
            "git",
            "-C",
            str(template),
            "rev-parse",
            "--verify",
            "--quiet",
            "--end-of-options",
            f"{commit}^{{commit}}",
        ],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return bool(HEX.fullmatch(resolved)) and resolved in releases.values()


def installed_release(copier_conf) -> str:
    """Nothing, for Copier to print before an update; refuses one whose installed
    version is no release (UserMessageError, which Copier prints as one line)."""
    from copier.errors import UserMessageError  # only Copier renders copier.yml

    answers_file = Path(copier_conf["dst_path"]) / copier_conf["answers_file"]
    try:
        answers = yaml.safe_load(answers_file.read_text(encoding="utf-8")) or {}
    except (OSError, UnicodeError, yaml.YAMLError):
        answers = {}
    commit = str(answers.get("_commit", "") if isinstance(answers, dict) else "")
    releases = release_commits()
    if is_release(commit, releases):
        return ""  # Copier prints an empty line: nothing to say when all is well
    newest = ", ".join(sorted(releases, key=release_tags.order, reverse=True)[:3]) or "none"
    raise UserMessageError(
        f"refused: _commit {commit!r} in {copier_conf['answers_file']} names no release of"
        " this template, and an update would render it, Python extensions included. Set"
        f" _commit to the release this repository has (releases: {newest}), commit, retry."
    )


class ReleasesExtension(Extension):
    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.filters["installed_release"] = installed_release
