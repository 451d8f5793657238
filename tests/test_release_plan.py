"""The release workflow's decision: which tag a commit on main gets, from real git repos.

Each case builds a repository with a pyproject.toml, a CHANGELOG.md and tags,
then runs .github/scripts/release_plan.py on it as the workflow does.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.helpers import PROJECT, commit_all, git, init_repo

SCRIPT = PROJECT / ".github/scripts/release_plan.py"
WORKFLOW = PROJECT / ".github/workflows/release.yml"

CHANGELOG = """# Changelog

## Unreleased

- work in progress

## v0.3.0 — 2027-01-10

### Protocol changes
- third

## 0.2.0

- second

## v0.1.0 — 2026-11-30

- first
"""


def repo_at(where: Path, version: str, tags: tuple[str, ...] = (), changelog: str = CHANGELOG):
    repo = init_repo(where)
    for tag in tags:  # each tag on its own commit, as releases are made
        git(repo, "commit", "-q", "--allow-empty", "-m", f"release {tag}")
        git(repo, "tag", tag)
    (repo / "pyproject.toml").write_text(
        f'[project]\nname = "demo"\nversion = "{version}"\n', encoding="utf-8"
    )
    (repo / "CHANGELOG.md").write_text(changelog, encoding="utf-8")
    commit_all(repo, f"version {version}")
    return repo


def plan(repo: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(repo), *extra],
        capture_output=True,
        text=True,
    )


def decided(repo: Path) -> dict:
    result = plan(repo, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_a_new_version_with_its_section_gets_its_tag_and_notes(tmp_path: Path) -> None:
    repo = repo_at(tmp_path / "r", "0.3.0", tags=("v0.1.0", "v0.2.0"))
    output, notes = tmp_path / "github-output", tmp_path / "notes.md"
    output.write_text("earlier=1\n")
    result = plan(repo, "--github-output", str(output), "--notes-file", str(notes))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "v0.3.0: create v0.3.0\n"
    assert output.read_text() == "earlier=1\ntag=v0.3.0\n"  # appended, as GitHub expects
    assert notes.read_text() == "### Protocol changes\n- third\n"


def test_the_first_release_of_a_repository_without_tags(tmp_path: Path) -> None:
    plan_ = decided(repo_at(tmp_path / "r", "0.2.0"))
    assert (plan_["tag"], plan_["newest_tag"], plan_["notes"]) == ("v0.2.0", None, "- second")


def test_a_tagged_version_gets_nothing(tmp_path: Path) -> None:
    repo = repo_at(tmp_path / "r", "0.2.0", tags=("v0.1.0", "v0.2.0"))
    output, notes = tmp_path / "out", tmp_path / "notes.md"
    result = plan(repo, "--github-output", str(output), "--notes-file", str(notes))
    assert result.returncode == 0
    assert result.stdout == "no tag: v0.2.0 is tagged already\n"
    assert output.read_text() == "tag=\n"
    assert not notes.exists()


def test_a_version_lower_than_the_newest_tag_is_refused(tmp_path: Path) -> None:
    repo = repo_at(tmp_path / "r", "0.2.0", tags=("v0.1.0", "v0.3.0"))
    output = tmp_path / "out"
    result = plan(repo, "--github-output", str(output))
    assert result.returncode == 1
    assert result.stderr == (
        "release_plan: pyproject.toml says 0.2.0, lower than the newest tag v0.3.0;"
        " versions only go up\n"
    )
    assert not output.exists()  # a refused plan tells the workflow nothing


def test_tags_compare_as_numbers_and_other_tags_are_ignored(tmp_path: Path) -> None:
    changelog = "## v0.10.0\n\n- ten\n"
    tags = ("v0.9.0", "v1.0.0-rc1", "v2", "latest", "release-5.0.0")
    plan_ = decided(repo_at(tmp_path / "r", "0.10.0", tags=tags, changelog=changelog))
    assert (plan_["tag"], plan_["newest_tag"], plan_["notes"]) == ("v0.10.0", "v0.9.0", "- ten")
    lower = plan(repo_at(tmp_path / "s", "0.9.5", tags=("v0.10.0",)))
    assert lower.returncode == 1 and "newest tag v0.10.0" in lower.stderr


def test_a_version_still_under_unreleased_waits(tmp_path: Path) -> None:
    plan_ = decided(repo_at(tmp_path / "r", "0.4.0", tags=("v0.3.0",)))
    assert plan_["tag"] is None
    assert plan_["reason"] == (
        "CHANGELOG.md has no '## v0.4.0' section yet; the release is cut when it does"
    )


def test_an_empty_section_is_refused(tmp_path: Path) -> None:
    repo = repo_at(tmp_path / "r", "0.4.0", changelog="## v0.4.0\n\n## v0.3.0\n\n- x\n")
    result = plan(repo)
    assert result.returncode == 1
    assert result.stderr == "release_plan: CHANGELOG.md's section for 0.4.0 is empty\n"


@pytest.mark.parametrize("version", ["0.3", "v0.3.0", "0.3.0rc1", ""])
def test_a_version_that_is_not_major_minor_patch_is_an_error(tmp_path: Path, version) -> None:
    result = plan(repo_at(tmp_path / "r", version))
    assert result.returncode == 2
    assert result.stderr.startswith("release_plan: ") and "MAJOR.MINOR.PATCH" in result.stderr
    assert result.stderr.count("\n") == 1


def test_outside_a_git_repository_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nversion = "1.0.0"\n')
    result = plan(tmp_path)
    assert result.returncode == 2 and result.stderr.startswith("release_plan: git tag")


def test_this_repository_is_never_refused(tmp_path: Path) -> None:
    """Its own version and CHANGELOG, with the history's tags made as the lead makes them."""
    repo = init_repo(tmp_path / "r")
    for tag in ("v0.1.0", "v0.2.0"):
        git(repo, "commit", "-q", "--allow-empty", "-m", tag)
        git(repo, "tag", tag)
    for name in ("pyproject.toml", "CHANGELOG.md"):
        (repo / name).write_bytes((PROJECT / name).read_bytes())
    commit_all(repo)
    plan_ = decided(repo)
    version = plan_["version"]
    if plan_["tag"]:  # the CHANGELOG has the version's section: its notes are that section
        assert plan_["tag"] == f"v{version}" and plan_["notes"]
        assert not re.search(r"^## ", plan_["notes"], re.M)
    # The v0.2.0 section, read from the real CHANGELOG, stops at v0.1.0's heading.
    (repo / "pyproject.toml").write_text('[project]\nversion = "0.2.0"\n')
    commit_all(repo)
    git(repo, "tag", "-d", "v0.2.0")
    notes = decided(repo)["notes"]
    assert notes.startswith("### Protocol changes\n") and "## v0.1.0" not in notes
    assert "First release" not in notes


def test_the_workflow_runs_the_plan_on_main_with_pinned_actions() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    workflow = yaml.safe_load(text)
    triggers = workflow[True]  # YAML 1.1 reads a bare `on` as true
    assert triggers["push"]["branches"] == ["main"]
    assert "pyproject.toml" in triggers["push"]["paths"]
    assert workflow["permissions"] == {"contents": "read"}
    steps = workflow["jobs"]["tag"]["steps"]
    for step in steps:
        if "uses" in step:
            assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", step["uses"])
    for line in text.splitlines():
        if "uses:" in line:
            assert re.search(r"@[0-9a-f]{40} # v\d+\.\d+\.\d+$", line), line
    runs = " ".join(step.get("run", "") for step in steps)
    assert "python3 .github/scripts/release_plan.py" in runs
    assert "--github-output" in runs and "gh release create" in runs


def test_only_the_project_table_names_the_version(tmp_path: Path) -> None:
    repo = repo_at(tmp_path / "r", "0.2.0")
    (repo / "pyproject.toml").write_text(
        '[tool.other]\nversion = "9.0.0"\n\n[project]  # ours\nname = "demo"\n'
        "version = '0.2.0'  # the one\n\n[tool.more]\nversion = \"8.0.0\"\n"
    )
    commit_all(repo)
    assert decided(repo)["version"] == "0.2.0"
    (repo / "pyproject.toml").write_text('[tool.other]\nversion = "9.0.0"\n')
    result = plan(repo)
    assert result.returncode == 2 and "[project] version '' is not" in result.stderr
