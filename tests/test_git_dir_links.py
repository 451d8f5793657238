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

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import (
    ANSWERS,
    MEMORY,
    PROJECT,
    SKILL,
    assert_exit,
    commit_all,
    copier_cli,
    git,
    init_repo,
    replace_in,
    run_ops,
    run_script,
    work_tree_bytes,
)
from tests.memory_helpers import fact

COPIER_NOTES = ("No git tags found", "Keeping template version", "/", "  warn(")


def copy_cli(template: Path, host: Path, *data: str) -> subprocess.CompletedProcess:
    options = [option for pair in data for option in ("--data", pair)]
    return copier_cli(
        "copy", "-q", "--trust", "--defaults", *options, str(template), str(host), cwd=host
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

    remembered = assert_exit(run_ops(host, "upgrade", "--remember-source=/tmp/evil"), 2)
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
        [sys.executable, "-I", str(PROJECT / "ops.py"), "upgrade", "--root", "."],
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


# Finding 3 of the second review: code run from the git dir. `track` refused a
# `.git/eco-mem` link, but the `resolve` handover and the driver command git runs
# still went through it. Every reader of code from there now applies `safe_home`'s
# rule: no link from the git dir down, no git dir inside the work tree.
PLANTED = "open({marker!r}, 'w').close()\n"
CATALOG = f"{MEMORY}/semantic/INDEX.md"
ROW = "| {0} | {0} | 2026-12-01 | verified | {0}.md |\n"


def plant_committed_copy(host: Path, marker: Path, folder: str = "notes") -> Path:
    """A committed folder shaped like `.git/eco-mem`: a `resolve.py` and a copy of the
    driver named as git's config names it, each of them touching `marker` when run."""
    copy = next((host / ".git/eco-mem").glob("merge-driver-*")).name
    planted = host / folder
    (planted / copy).mkdir(parents=True)
    payload = PLANTED.format(marker=str(marker))
    (planted / "resolve.py").write_text(payload, encoding="utf-8")
    (planted / copy / "driver.py").write_text(payload + "raise SystemExit(1)\n", "utf-8")
    commit_all(host, folder)
    return planted / copy


def git_home_linked_to_committed_code(host: Path, marker: Path) -> None:
    """`.git/eco-mem` a link to a folder a commit fills (what an install through
    `.claude/skills -> ../.git` left before v0.4.0 refused it; or any other link)."""
    plant_committed_copy(host, marker)
    shutil.rmtree(host / ".git/eco-mem")
    (host / ".git/eco-mem").symlink_to("../notes")


def rows_that_conflict_as_text(host: Path) -> None:
    """Branch `theirs` and main each add a row at the end of one catalog: git's text
    merge conflicts, so the driver's Python has to run."""
    index = host / CATALOG
    git(host, "checkout", "-q", "-b", "theirs")
    index.write_text(index.read_text(encoding="utf-8") + ROW.format("theirs"), "utf-8")
    commit_all(host, "theirs")
    git(host, "checkout", "-q", "main")
    index.write_text(index.read_text(encoding="utf-8") + ROW.format("ours"), "utf-8")
    commit_all(host, "ours")


def merge(host: Path, cwd: Path | None = None) -> subprocess.CompletedProcess:
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return subprocess.run(
        ["git", "merge", "--no-edit", "theirs"],
        cwd=cwd or host,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": path},  # `python3` for the driver: this interpreter
    )


def assert_gits_own_conflict(host: Path, merged: subprocess.CompletedProcess) -> None:
    """The driver refused in one line and left git's text merge, markers and all."""
    assert merged.returncode == 1, merged.stdout + merged.stderr
    text = (host / CATALOG).read_text(encoding="utf-8")
    assert "<<<<<<<" in text and "| ours |" in text and "| theirs |" in text, text
    assert "this catalog merges as text; run eco_mem.pyz verify" in merged.stderr
    assert not list((host / ".git").glob("eco-mem-merge-*"))


def test_resolve_never_runs_a_launcher_through_a_git_dir_eco_mem_link(host: Path) -> None:
    marker = host.parent / "committed-code-ran"
    git_home_linked_to_committed_code(host, marker)

    result = run_script(host, "resolve")

    assert not marker.exists()
    assert_exit(result, 2)
    assert ".git/eco-mem is a link or not a folder" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_merge_never_runs_a_driver_through_a_git_dir_eco_mem_link(host: Path) -> None:
    marker = host.parent / "committed-code-ran"
    git_home_linked_to_committed_code(host, marker)
    rows_that_conflict_as_text(host)

    merged = merge(host)

    assert not marker.exists()
    assert_gits_own_conflict(host, merged)


def test_neither_the_driver_nor_resolve_runs_a_copy_folder_that_is_a_link(host: Path) -> None:
    # `.git/eco-mem` is a real folder, but the copy git's config names is a link.
    marker = host.parent / "committed-code-ran"
    planted = plant_committed_copy(host, marker)
    copy = host / ".git/eco-mem" / planted.name
    shutil.rmtree(copy)
    copy.symlink_to(planted)
    rows_that_conflict_as_text(host)

    merged = merge(host)
    resolved = run_script(host, "resolve")

    assert not marker.exists()
    assert_gits_own_conflict(host, merged)
    assert_exit(resolved, 2)
    assert "run `eco_mem.pyz track`" in resolved.stderr


def test_a_merge_never_runs_a_copy_in_a_git_dir_inside_the_work_tree(host: Path) -> None:
    # The repository's git dir reached through a `.git` file naming a work-tree folder:
    # its copy is a file of the work tree like any other.
    marker = host.parent / "committed-code-ran"
    rows_that_conflict_as_text(host)
    (host / ".git").rename(host / "gd")
    (host / ".git").write_text("gitdir: gd\n", encoding="utf-8")
    entry = next((host / "gd/eco-mem").glob("merge-driver-*/driver.py"))
    entry.write_text(PLANTED.format(marker=str(marker)), encoding="utf-8")

    merged = merge(host)
    resolved = run_script(host, "resolve")

    assert not marker.exists()
    assert merged.returncode == 1 and "<<<<<<<" in (host / CATALOG).read_text("utf-8")
    assert "this catalog merges as text" in merged.stderr
    assert_exit(resolved, 2)
    assert "lies inside its work tree" in resolved.stderr


def test_the_driver_merges_rows_from_a_subfolder_and_with_a_git_dir_linked_outside(
    host: Path, tmp_path: Path
) -> None:
    # The check must not refuse what is safe: a `.git` that is a link to a folder
    # outside the work tree, and a merge started from a folder below the top.
    outside = tmp_path / "git-dir-elsewhere"
    (host / ".git").rename(outside)
    (host / ".git").symlink_to(outside)
    rows_that_conflict_as_text(host)

    merged = merge(host, cwd=host / MEMORY)

    assert merged.returncode == 0, merged.stdout + merged.stderr
    text = (host / CATALOG).read_text(encoding="utf-8")
    assert "<<<<<<<" not in text and "| ours |" in text and "| theirs |" in text


def test_verify_names_a_git_dir_eco_mem_link_and_track_works_once_it_is_gone(
    host: Path,
) -> None:
    link_git_home_into_the_skill(host)

    found = assert_exit(run_script(host, "verify", "--json"), 1)

    findings = json.loads(found.stdout)["findings"]
    assert [(f["path"], f["rule"]) for f in findings] == [(".git/eco-mem", "git.state-home")]
    assert "`rm .git/eco-mem`" in findings[0]["message"]
    assert "catalog merge driver refuses to run" in findings[0]["message"]
    (host / ".git/eco-mem").unlink()
    assert_exit(run_script(host, "track"), 0)
    assert_exit(run_script(host, "verify"), 0)


def test_uninstall_removes_a_git_dir_eco_mem_link_and_nothing_it_leads_to(host: Path) -> None:
    marker = host.parent / "committed-code-ran"
    git_home_linked_to_committed_code(host, marker)
    before = {path: data for path, data in work_tree_bytes(host).items() if "notes" in path.parts}

    run_ops(host, "uninstall")

    assert not os.path.lexists(host / ".git/eco-mem")
    after = work_tree_bytes(host)
    assert {path: after.get(path) for path in before} == before
    assert not marker.exists()


def test_track_replaces_a_copy_folder_that_is_a_link_and_keeps_what_it_led_to(
    host: Path,
) -> None:
    marker = host.parent / "committed-code-ran"
    planted = plant_committed_copy(host, marker)
    copy = host / ".git/eco-mem" / planted.name
    shutil.rmtree(copy)
    copy.symlink_to(planted)
    before = work_tree_bytes(host)

    tracked = assert_exit(run_script(host, "track"), 0)

    assert "driver" in tracked.stdout
    assert copy.is_dir() and not copy.is_symlink() and (copy / "driver.py").is_file()
    assert work_tree_bytes(host) == before
    rows_that_conflict_as_text(host)
    merged = merge(host)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert not marker.exists()


def test_track_disarms_an_older_driver_command_that_runs_through_the_link(host: Path) -> None:
    # A clone an older eco-mem set up: its command ran the copy without looking where
    # it was, and the link makes track refuse to write a copy. The command is
    # replaced all the same, by one whose check refuses the link.
    marker = host.parent / "committed-code-ran"
    copy = next((host / ".git/eco-mem").glob("merge-driver-*")).name
    older = (
        f'python3 -I -S "$(git rev-parse --git-common-dir)/eco-mem/{copy}/driver.py" %O %A %B %P'
    )
    git(host, "config", "merge.eco-mem-catalog.driver", older)
    git_home_linked_to_committed_code(host, marker)

    tracked = assert_exit(run_script(host, "track"), 2)

    assert len(tracked.stderr.strip().splitlines()) == 1
    assert "merge driver refuses to run until then" in tracked.stderr
    assert "cd -P" in git(host, "config", "merge.eco-mem-catalog.driver")
    rows_that_conflict_as_text(host)
    assert_gits_own_conflict(host, merge(host))
    assert not marker.exists()
