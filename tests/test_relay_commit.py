"""Issue 21: a travelling desk's relay reaches the commit, and desks never reach the
default branch, also where CI checks out a detached HEAD.

The teamwork recipe is read from docs/teamwork.md and run as written, in a rendered
host, with bash and real git; nothing here copies its commands.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers import MEMORY, PROJECT, assert_exit, commit_all, copy_template, git
from tests.memory_helpers import mem

DESK = f"{MEMORY}/working/fix-login.md"
EPISODIC_INDEX = f"{MEMORY}/episodic/INDEX.md"
# Set by GitHub Actions and GitLab CI; blanked so the host's own CI cannot steer a test.
CI_VARIABLES = (
    "GITLAB_CI",
    "CI_DEFAULT_BRANCH",
    "CI_COMMIT_BRANCH",
    "CI_COMMIT_REF_NAME",
    "CI_COMMIT_TAG",
    "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",
    "GITHUB_ACTIONS",
    "GITHUB_EVENT_NAME",
    "GITHUB_HEAD_REF",
    "GITHUB_REF_NAME",
    "GITHUB_REF_TYPE",
)
NO_CI = {name: "" for name in CI_VARIABLES}
IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}


def recipe() -> str:
    """The first sh block under the travelling-desks heading of docs/teamwork.md."""
    page = (PROJECT / "docs/teamwork.md").read_text(encoding="utf-8")
    section = page.split("### Travelling desks", 1)[1]
    block = re.search(r"^```sh\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)
    assert block, "no sh block under the travelling-desks heading"
    return block.group(1)


def status(repo: Path) -> str:
    return git(repo, "status", "--porcelain")


def open_desk(repo: Path, *extra: str, env: dict | None = None):
    return mem(
        repo, "new", "working", "--title", "Fix login", "--goal", "sessions", *extra, env=env
    )


def end_with_episode(repo: Path) -> subprocess.CompletedProcess:
    return mem(
        repo,
        *("end-task", "fix-login", "--promote-to", "episodic", "--title", "Idle logout"),
        *("--context", "sessions dropped", "--action", "raised the timeout"),
        *("--result", "sessions survive", "--lesson", "Check the idle timeout first"),
    )


# -- item 7: the relay reaches the commit ---------------------------------------------


def test_the_teamwork_recipe_commits_the_promoted_episode_with_the_desks_removal(
    host: Path,
) -> None:
    script = recipe() + '\nprintf "\\nFINAL=%s\\n" "$PWD"\n'
    env = {**os.environ, **NO_CI, **IDENTITY}
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=host,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    final = Path(done.stdout.rsplit("FINAL=", 1)[1].strip())
    assert final != host  # the second session ran in its own clone

    changed = git(final, "show", "--name-status", "--format=", "HEAD").split("\n")
    episode = next(line.split("\t")[1] for line in changed if line.startswith("A\t"))
    assert episode.startswith(f"{MEMORY}/episodic/") and "idle-sessions" in episode
    assert f"M\t{EPISODIC_INDEX}" in changed and f"D\t{DESK}" in changed
    assert status(final) == ""  # nothing of the relay was left out of the commit
    assert "staged: " + episode in done.stderr

    # The runner's clone is thrown away; what it pushed is all that is left.
    git(host, "switch", "-q", "main")
    git(host, "pull", "-q", "--no-rebase", "--no-edit", str(final), "fix-login")
    assert (host / episode).is_file() and not (host / DESK).exists()
    assert "| Idle sessions expired early |" in (host / EPISODIC_INDEX).read_text()
    assert_exit(mem(host, "verify", "--strict", env=NO_CI), 0)


def test_a_catalog_with_unstaged_edits_is_not_staged_and_the_command_says_so(
    host: Path,
) -> None:
    git(host, "switch", "-q", "-c", "fix-login")
    assert_exit(open_desk(host, "--travel", env=NO_CI), 0)
    git(host, "commit", "-q", "-m", "desk")
    index = host / EPISODIC_INDEX
    index.write_text(index.read_text().replace("## Catalog", "Edited by hand.\n\n## Catalog"))

    ended = end_with_episode(host)
    assert_exit(ended, 2)
    assert f"not staged: {EPISODIC_INDEX}: it held unstaged edits" in ended.stderr
    lines = status(host).splitlines()
    assert f"D  {DESK}" in lines and f" M {EPISODIC_INDEX}" in lines
    assert any(line.startswith(f"A  {MEMORY}/episodic/") for line in lines)


def test_a_plain_desk_relay_stages_nothing(host: Path) -> None:
    git(host, "switch", "-q", "-c", "fix-login")
    assert_exit(open_desk(host, env=NO_CI), 0)
    ended = end_with_episode(host)
    assert_exit(ended, 0)
    assert "staged:" not in ended.stderr
    assert all(line[0] in " ?" for line in status(host).splitlines())


# -- item 9: no travelling desk on the default branch ---------------------------------


def test_a_travelling_desk_on_the_default_branch_is_refused_and_nothing_is_written(
    host: Path,
) -> None:
    refused = open_desk(host, "--travel", env=NO_CI)
    assert_exit(refused, 1)
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "refused [working.tracked-desk]" in lines[0]
    assert "(main)" in lines[0] and "--local" in lines[0]
    assert status(host) == "" and not (host / DESK).exists()
    assert_exit(open_desk(host, "--local", env=NO_CI), 0)  # a local desk is fine there


def test_desks_that_travel_by_default_are_refused_on_the_default_branch(
    template_repo: Path, dst: Path
) -> None:
    copy_template(template_repo, dst, desks_travel=True)
    commit_all(dst, "install")
    assert_exit(open_desk(dst, env=NO_CI), 1)
    assert status(dst) == ""
    git(dst, "switch", "-q", "-c", "task")
    assert_exit(open_desk(dst, env=NO_CI), 0)
    assert status(dst) == f"A  {DESK}\n"


@pytest.fixture
def desk_on_master(host: Path) -> Path:
    """A host whose default branch, master, carries a tracked desk, as after a bad merge;
    `task` is one commit ahead of it."""
    git(host, "branch", "-m", "main", "master")
    git(host, "switch", "-q", "-c", "task")
    assert_exit(open_desk(host, "--travel", env=NO_CI), 0)
    git(host, "commit", "-q", "-m", "desk")
    git(host, "switch", "-q", "master")
    git(host, "merge", "-q", "--ff-only", "task")
    git(host, "switch", "-q", "task")
    git(host, "commit", "-q", "--allow-empty", "-m", "more work")
    return host


def tracked_desk(host: Path, *args: str, **ci: str) -> bool:
    result = mem(host, "verify", "--json", *args, env={**NO_CI, **ci})
    assert result.returncode in (0, 1), result.stderr
    return '"working.tracked-desk"' in result.stdout


def test_a_detached_head_at_the_default_branch_tip_fails_verify(desk_on_master: Path) -> None:
    host = desk_on_master
    git(host, "switch", "-q", "--detach", "master")
    assert tracked_desk(host, "--default-branch", "master")
    assert tracked_desk(host)  # without the option: the tip of main or master
    git(host, "pack-refs", "--all")  # packed refs are read too
    assert tracked_desk(host, "--default-branch", "master")
    # A detached commit that is not the default branch's tip is a task branch's.
    git(host, "switch", "-q", "--detach", "task")
    assert not tracked_desk(host, "--default-branch", "master")


def test_a_gitlab_style_checkout_with_only_the_remote_ref_fails_verify(
    desk_on_master: Path, tmp_path: Path
) -> None:
    clone = tmp_path / "ci"
    git(tmp_path, "clone", "-q", "--branch", "master", str(desk_on_master), str(clone))
    git(clone, "switch", "-q", "--detach", "origin/master")
    git(clone, "branch", "-q", "-D", "master")
    git(clone, "remote", "set-head", "origin", "-d")
    assert tracked_desk(clone, "--default-branch", "master")


def test_ci_variables_name_the_branch_a_detached_head_builds(desk_on_master: Path) -> None:
    host = desk_on_master
    git(host, "switch", "-q", "--detach", "task")
    gitlab = {"GITLAB_CI": "true", "CI_DEFAULT_BRANCH": "master"}
    assert tracked_desk(host, **gitlab, CI_COMMIT_REF_NAME="master")
    assert not tracked_desk(host, **gitlab, CI_COMMIT_REF_NAME="task")
    github = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "push", "GITHUB_REF_TYPE": "branch"}
    assert tracked_desk(host, "--default-branch", "master", **github, GITHUB_REF_NAME="master")
    # A pull request is built as its task branch, even at the default branch's tip.
    git(host, "switch", "-q", "--detach", "master")
    pull = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request"}
    assert not tracked_desk(host, "--default-branch", "master", **pull, GITHUB_HEAD_REF="task")
