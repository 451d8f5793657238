"""No folder eco-mem renders or writes may be, or lead into, `.git` (review 3, #1 and #6).

A committed `.claude/skills -> ../.git` made Copier render the Claude link as
`.git/eco-mem -> ../.agents/skills/eco-mem`; `track` then wrote git's merge driver,
`resolve.py` and the trust record through it into the tracked skill, where a branch
could change the driver git runs on the next catalog merge. Each layer is tried here
with real copier, real git and the rendered scripts: the template refuses such a
folder before it renders anything, and the scripts refuse a git-dir `eco-mem` that is
a link and a git dir that lies inside the work tree.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import (
    ANSWERS,
    SKILL,
    assert_exit,
    commit_all,
    git,
    init_repo,
    replace_in,
    run_script,
    work_tree_bytes,
)
from tests.memory_helpers import fact

COPIER = str(Path(sys.executable).with_name("copier"))
COPIER_NOTES = ("No git tags found", "Keeping template version", "/", "  warn(")


def copy_cli(template: Path, host: Path, *data: str) -> subprocess.CompletedProcess:
    options = [option for pair in data for option in ("--data", pair)]
    return subprocess.run(
        [COPIER, "copy", "-q", "--trust", "--defaults", *options, str(template), str(host)],
        cwd=host,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def git_dir_listing(host: Path) -> list[str]:
    return sorted(str(path.relative_to(host)) for path in (host / ".git").rglob("*"))


def assert_refused_before_writing(done, host: Path, before, git_before, reason: str) -> None:
    assert done.returncode == 1, done.stderr
    said = [line for line in done.stderr.splitlines() if not line.startswith(COPIER_NOTES)]
    assert len(said) == 1 and reason in said[0], done.stderr
    assert "Traceback" not in done.stderr
    assert work_tree_bytes(host) == before
    assert git_dir_listing(host) == git_before  # nothing under .git either
    assert git(host, "status", "--porcelain") == ""


@pytest.mark.parametrize("target", ["../.git", "../.git/hooks", "../.GIT"])
def test_a_claude_folder_linked_into_git_is_refused_before_anything_is_written(
    template_repo: Path, tmp_path: Path, target: str
) -> None:
    host = init_repo(tmp_path / "host")
    (host / ".claude").mkdir()
    (host / ".claude/skills").symlink_to(target)
    commit_all(host, "a link into .git, committed before the install")
    before, git_before = work_tree_bytes(host), git_dir_listing(host)

    done = copy_cli(template_repo, host)

    reason = "claude_code: .claude/skills is inside .git"
    assert_refused_before_writing(done, host, before, git_before, reason)
    assert not os.path.lexists(host / ".git/eco-mem")
    assert not os.path.lexists(host / ".git/hooks/eco-mem")
    assert "merge-driver-" not in git(host, "ls-files")


@pytest.mark.parametrize(
    "answer", ["skill_path=lnk", "memory_path=lnk/memory", "skill_path=docs/.Git/skills"]
)
def test_a_path_answer_whose_real_path_is_in_git_is_refused_in_one_line(
    template_repo: Path, tmp_path: Path, answer: str
) -> None:
    host = init_repo(tmp_path / "host")
    (host / "lnk").symlink_to(".git")
    commit_all(host, "links into .git")
    before, git_before = work_tree_bytes(host), git_dir_listing(host)

    done = copy_cli(template_repo, host, answer)

    name = answer.split("=")[0]
    assert_refused_before_writing(done, host, before, git_before, f"{name}: ")
    # A `.git` part as written is the path rule's to refuse, a link into .git the layout's.
    assert "inside .git" in done.stderr


def test_a_ci_workflow_folder_linked_into_git_is_refused(
    template_repo: Path, tmp_path: Path
) -> None:
    host = init_repo(tmp_path / "host")
    (host / ".github").symlink_to(".git")
    commit_all(host, "a link into .git")
    before, git_before = work_tree_bytes(host), git_dir_listing(host)

    done = copy_cli(template_repo, host, "ci=github-actions")

    reason = "ci: .github/workflows is inside .git"
    assert_refused_before_writing(done, host, before, git_before, reason)


def link_git_home_into_the_skill(host: Path) -> None:
    """What an install through `.claude/skills -> ../.git` left: `.git/eco-mem` a link."""
    shutil.rmtree(host / ".git/eco-mem")
    (host / ".git/eco-mem").symlink_to(f"../{SKILL}")


def test_track_writes_no_driver_through_a_git_dir_eco_mem_that_is_a_link(host: Path) -> None:
    link_git_home_into_the_skill(host)
    git(host, "config", "--remove-section", "merge.eco-mem-catalog")
    before = work_tree_bytes(host)

    tracked = assert_exit(run_script(host, "track"), 2)

    assert ".git/eco-mem is a link or not a folder" in tracked.stderr
    assert len(tracked.stderr.strip().splitlines()) == 1
    assert work_tree_bytes(host) == before
    assert (
        not list((host / SKILL).glob("merge-driver-*"))
        and not (host / SKILL / "resolve.py").exists()
    )
    assert "eco-mem-catalog" not in git(host, "config", "--list")


def test_no_state_or_trust_record_goes_through_a_git_dir_eco_mem_link(host: Path) -> None:
    link_git_home_into_the_skill(host)
    before = work_tree_bytes(host)

    remembered = assert_exit(run_script(host, "upgrade", "--remember-source=/tmp/evil"), 2)
    written = assert_exit(fact(host, "Releases are signed"), 2)

    for result in (remembered, written):
        assert "is a link or not a folder" in result.stderr, result.stderr
    assert work_tree_bytes(host) == before
    assert not (host / SKILL / "template-source").exists()
    assert not (host / SKILL / "write.lock").exists()


def test_a_git_dir_inside_the_work_tree_keeps_no_state(host: Path) -> None:
    # The repository's git dir reached through a `.git` file naming a work-tree folder.
    (host / ".git").rename(host / "gd")
    (host / ".git").write_text("gitdir: gd\n", encoding="utf-8")
    (host / "gd/info").mkdir(exist_ok=True)
    shutil.rmtree(host / "gd/eco-mem")

    tracked = assert_exit(run_script(host, "track"), 2)
    written = assert_exit(fact(host, "Releases are signed"), 2)

    for result in (tracked, written):
        assert "lies inside its work tree" in result.stderr, result.stderr
    assert not (host / "gd/eco-mem").exists()


def test_a_local_upgrade_refuses_a_skill_path_linked_into_git(host: Path) -> None:
    (host / "lnk").symlink_to(".git")
    replace_in(host / ANSWERS, "skill_path: .agents/skills", "skill_path: lnk")
    commit_all(host, "a committed lnk -> .git, named by the answers")
    state = sorted(os.listdir(host / ".git/eco-mem"))
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    upgraded = subprocess.run(
        [sys.executable, str(host / SKILL / "scripts/eco_mem.py"), "upgrade"],
        cwd=host,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PATH": path},
    )

    assert_exit(upgraded, 2)
    assert "skill_path in .copier-answers.eco-mem.yml is inside .git" in upgraded.stderr
    assert sorted(os.listdir(host / ".git/eco-mem")) == state
    assert git(host, "status", "--porcelain") == ""
