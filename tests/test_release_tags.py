"""The one reader of release tags (eco_mem_ops/release_tags.py) that upgrade, the fleet
and Copier's own update share: which tags are releases, their order, their commits."""

from __future__ import annotations

from pathlib import Path

import pytest

from eco_mem_fleet.releases import fetch as fleet_fetch
from eco_mem_ops import release_tags
from tests.helpers import PROJECT, git, init_repo


def test_releases_are_numbers_with_an_optional_v_and_pre_release() -> None:
    for tag in ("v1.2.3", "1.2", "v0.5.0rc1", "v1.0.0-beta.2", "v2.0.dev3"):
        assert release_tags.is_release(tag), tag
    for tag in ("latest", "v1.2.x", "-v1.0.0", "release-1.0", "v1.0.0+build"):
        assert not release_tags.is_release(tag), tag


def test_numbers_order_as_numbers_and_a_final_release_after_its_pre_releases() -> None:
    tags = ["v0.10.0", "v0.9.1", "v0.10.0rc1", "v1.0.0a1", "nightly"]
    assert sorted(tags[:4], key=release_tags.order) == [
        "v0.9.1",
        "v0.10.0rc1",
        "v0.10.0",
        "v1.0.0a1",
    ]
    assert release_tags.newest(tags) == "v0.10.0"  # a pre-release is never the default
    assert release_tags.newest(["v1.0.0rc1", "main"]) is None


@pytest.fixture
def tagged(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "template")
    git(repo, "tag", "v1.0.0")  # lightweight
    git(repo, "commit", "-q", "--allow-empty", "-m", "two")
    git(repo, "tag", "-a", "-m", "annotated", "v1.1.0")
    git(repo, "tag", "not-a-release")
    return repo


def test_tags_are_peeled_to_their_commits_and_other_tags_left_out(tagged: Path) -> None:
    head, first = git(tagged, "rev-parse", "HEAD", "HEAD~1").split()
    assert release_tags.tag_commits(tagged) == {"v1.0.0": first, "v1.1.0": head}


def test_the_fleet_and_the_extension_read_tags_with_this_module(
    tagged: Path, tmp_path: Path
) -> None:
    fetched = fleet_fetch(str(tagged), str(tmp_path / "snapshot"))
    assert fetched.commits == release_tags.tag_commits(tagged)
    assert fetched.newest() == "v1.1.0"
    source = (PROJECT / "extensions/releases.py").read_text(encoding="utf-8")
    assert '"eco_mem_ops" / "release_tags.py"' in source and "re.compile" not in source


def test_a_folder_with_no_release_tags_is_one_error(tmp_path: Path) -> None:
    bare = init_repo(tmp_path / "bare")
    with pytest.raises(release_tags.ReleaseTagError, match="has no release tags"):
        release_tags.fetch_releases(str(bare), tmp_path / "snapshot")
