"""A drawer or memory folder that is another repository (a submodule) is never read.

A branch can replace a drawer with a submodule: git then records one commit id there,
no blob, so nothing under it is memory this repository's review ever passed. Once
`git submodule update` checks it out, its facts and desks would read as this
repository's own. verify names it, and find and context read none of it.
Real git submodules, real copier.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import MEMORY, commit_all, copy_template, git, init_repo
from tests.memory_helpers import fact, mem

WORD = "zanzibar"  # in the submodule's fact only: a reader that shows it read the submodule


@pytest.fixture(scope="module")
def installed(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A host with one fact of its own, and a second install whose store lends a drawer."""
    base = tmp_path_factory.mktemp("nested")
    host = init_repo(base / "host")
    copy_template(template_repo, host)
    commit_all(host, "Install eco-mem")
    assert fact(host, "Deploys need a tag").returncode == 0
    commit_all(host, "A fact")
    other = init_repo(base / "other")
    copy_template(template_repo, other)
    assert fact(other, f"Staging lives in {WORD}").returncode == 0
    commit_all(other, "Another repository's memory")
    return base


def with_submodule(base: Path, tmp_path: Path, where: str, lent: str) -> Path:
    """A clone of the host whose `where` is replaced by a submodule of `other/lent`."""
    host = tmp_path / "host"
    shutil.copytree(base / "host", host, symlinks=True)
    source = tmp_path / "lent"
    git(tmp_path, "clone", "-q", str(base / "other"), str(source))
    if lent != ".":  # make the lent folder the submodule's root
        # Squelched: filter-branch otherwise prints its deprecation notice and waits 10 s.
        squelched = {**os.environ, "FILTER_BRANCH_SQUELCH_WARNING": "1"}
        git(source, "filter-branch", "-f", "--subdirectory-filter", lent, env=squelched)
    git(host, "rm", "-r", "-q", where)
    git(host, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source), where)
    commit_all(host, "Memory from elsewhere")
    return host


def shows_word(host: Path) -> bool:
    found = mem(host, "find", WORD, "--all")
    context = mem(host, "context")
    return WORD in found.stdout + found.stderr + context.stdout + context.stderr


def verify(host: Path) -> list[tuple[str, str]]:
    result = mem(host, "verify", "--json")
    return [(item["rule"], item["path"]) for item in json.loads(result.stdout)["findings"]]


def test_a_drawer_that_is_a_submodule_is_not_read(installed: Path, tmp_path: Path) -> None:
    drawer = f"{MEMORY}/semantic"
    host = with_submodule(installed, tmp_path, drawer, drawer)
    assert (host / drawer / ".git").is_file() and WORD in (host / drawer / "INDEX.md").read_text()
    assert ("structure.nested-repository", drawer) in verify(host)
    assert mem(host, "verify").returncode == 1
    assert not shows_word(host)
    # Nor is it written: a new fact would land in the other repository's checkout.
    before = (host / drawer / "INDEX.md").read_bytes()
    assert fact(host, "Builds run on Fridays").returncode != 0
    assert (host / drawer / "INDEX.md").read_bytes() == before


def test_a_memory_folder_that_is_a_submodule_is_not_read(installed: Path, tmp_path: Path) -> None:
    host = with_submodule(installed, tmp_path, MEMORY, MEMORY)
    assert ("structure.nested-repository", MEMORY) in verify(host)
    assert not shows_word(host)


def test_a_folder_above_the_memory_folder_that_is_a_submodule_is_named(
    installed: Path, tmp_path: Path
) -> None:
    """`.agents` itself lent by another repository: the memory inside it is theirs."""
    host = with_submodule(installed, tmp_path, ".agents", ".agents")
    assert ("structure.nested-repository", MEMORY) in verify(host)
    assert not shows_word(host)
