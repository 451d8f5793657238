"""Reproductions from the third security review (secrev-3): variants the fixes for
secrev-2's findings still let through. Each is xfail(strict=True) until fixed.

Every test drives the real copier and git on real repositories in tmp dirs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import ANSWERS, commit_all, git, init_repo, snapshot_template
from tests.test_answers_source_trust import environment, install, release, upgrade


def attacker_repo(tmp_path: Path, marker: Path) -> Path:
    """A template whose task touches `marker`: v0.0.1 for the old render, v9.0.0 new."""
    evil = init_repo(tmp_path / "evil")
    (evil / "copier.yml").write_text(
        f'_answers_file: {ANSWERS}\n_tasks: ["touch {marker}"]\n', encoding="utf-8"
    )
    commit_all(evil, "a")
    git(evil, "tag", "v0.0.1")
    (evil / "README.md").write_text("new\n", encoding="utf-8")
    commit_all(evil, "b")
    git(evil, "tag", "v9.0.0")
    return evil


@pytest.mark.xfail(strict=True, reason="secrev-3 finding 1: file:// host part")
def test_a_file_url_with_a_host_part_never_clones_what_git_reads_it_as(tmp_path: Path) -> None:
    """`_src_path: file://h/<abs path of the host>/evil.git`.

    The trust check reads everything after `file://` as a path from the folder the
    script runs in (h/... in the work tree, where a committed link leads to the
    trusted template). git ignores the host part of a file URL and opens
    /<abs path>/evil.git: a bare repository committed in the work tree."""
    template = snapshot_template(tmp_path / "template", tag="v0.0.1")
    env = environment()
    host = init_repo(tmp_path / "host")
    install(str(template), host, env)

    marker = tmp_path / "attacker-ran"
    evil = attacker_repo(tmp_path, marker)
    git(tmp_path, "clone", "-q", "--bare", str(evil), str(host / "evil.git"))
    tail = f"{str(host.resolve()).lstrip('/')}/evil.git"
    decoy = host / "h" / tail
    decoy.parent.mkdir(parents=True)
    decoy.symlink_to(template)
    answers = host / ANSWERS
    text = answers.read_text(encoding="utf-8")
    line = f"_src_path: {template}\n"
    assert line in text
    answers.write_text(text.replace(line, f"_src_path: file://h/{tail}\n"), encoding="utf-8")
    commit_all(host, "an innocent-looking commit")
    release(template, "v0.0.2")

    result = upgrade(host, env)
    assert not marker.exists(), result.stdout + result.stderr
