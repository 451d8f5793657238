"""Desks and git: a plain desk never touches a tracked file, a travelling desk rides its
task branch and never reaches the default branch, and memory checks out LF everywhere.

Real git and real copier in temp dirs: clones, branches, merges, an upgrade.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers import (
    MEMORY,
    PROJECT,
    SKILL,
    commit_all,
    copy_template,
    git,
    init_repo,
    run_ops,
    run_script,
    snapshot_template,
)
from tests.memory_helpers import adopt, fact, mem, verify_findings

DESK = f"{MEMORY}/working/port-auth.md"
WORKING_INDEX = f"{MEMORY}/working/INDEX.md"
# main just before desks lost their rows: `new working` still added one to the INDEX.
BEFORE_REDESIGN = "e02da5cfbb36be574fe6d2b2d71b660e6e02e720"


def status(repo: Path) -> str:
    return git(repo, "status", "--porcelain")


def open_desk(repo: Path, *extra: str) -> subprocess.CompletedProcess:
    result = mem(repo, "new", "working", "--title", "Port auth", "--goal", "auth on v2", *extra)
    assert result.returncode == 0, result.stderr
    return result


def clone(source: Path, target: Path, *args: str) -> Path:
    git(source.parent, "clone", "-q", *args, str(source), str(target))
    git(target, "config", "user.name", "Test")
    git(target, "config", "user.email", "test@example.invalid")
    return target


def test_a_plain_desk_leaves_git_status_clean_from_open_to_end(host: Path) -> None:
    assert status(host) == ""
    open_desk(host)
    assert status(host) == ""
    assert "| fix" not in (host / WORKING_INDEX).read_text()  # no row anywhere
    listed = mem(host, "find", "unrelated words")
    assert listed.stdout.splitlines()[0] == f"{DESK} | auth on v2"
    with (host / DESK).open("a") as desk:
        desk.write("- read the old handler\n")
    assert status(host) == ""
    ended = mem(host, "end-task", "port-auth")
    assert ended.returncode == 0, ended.stderr
    assert "- read the old handler" in ended.stdout
    assert status(host) == "" and not (host / DESK).exists()


def test_the_load_step_points_at_open_desks(host: Path) -> None:
    block = (host / "AGENTS.md").read_text()
    assert f"`{MEMORY}/working/`" in block and "desks" in block
    skill = (host / SKILL / "SKILL.md").read_text()
    assert (
        "open desks, the rules that apply, matching rows" in skill and len(skill.encode()) <= 4096
    )


def test_commit_all_with_a_desk_open_then_a_fresh_clone_verifies_clean(host: Path) -> None:
    open_desk(host)
    git(host, "commit", "-q", "-a", "--allow-empty", "-m", "work in progress")
    copy = clone(host, host.parent / "clone")
    assert not (copy / DESK).exists()
    assert verify_findings(copy) == []
    assert verify_findings(host) == []


# -- travelling desks ---------------------------------------------------------------


@pytest.fixture
def origin(host: Path) -> Path:
    """A bare remote holding the installed host, as a hosting service would."""
    bare = host.parent / "origin.git"
    git(host.parent, "clone", "-q", "--bare", str(host), str(bare))
    return bare


def test_two_sessions_in_fresh_clones_carry_one_desk_and_it_never_reaches_main(
    origin: Path, tmp_path: Path
) -> None:
    first = clone(origin, tmp_path / "session-1")
    git(first, "checkout", "-q", "-b", "task")
    said = open_desk(first, "--travel")
    assert "travels with this branch" in said.stderr
    assert status(first) == f"A  {DESK}\n"
    (first / DESK).write_text((first / DESK).read_text() + "- step 1 done\n")
    git(first, "commit", "-q", "-am", "session 1")
    assert verify_findings(first) == []
    git(first, "push", "-q", "origin", "task")

    second = clone(origin, tmp_path / "session-2", "-b", "task")
    # Another clone wrote it: named until adopted, the one step a fresh clone takes
    # (docs/teamwork.md; tests/test_branch_provenance.py holds the rest).
    assert "desk `port-auth`" in mem(second, "find").stdout
    assert "step 1 done" not in mem(second, "context").stdout
    assert adopt(second, "port-auth").returncode == 0
    listed = mem(second, "find")
    assert listed.stdout.splitlines()[0] == f"{DESK} | auth on v2"
    assert "- step 1 done" in (second / DESK).read_text()
    assert verify_findings(second) == []
    ended = mem(second, "end-task", "port-auth")
    assert ended.returncode == 0 and "staged: removal" in ended.stderr, ended.stderr
    assert status(second) == f"D  {DESK}\n"
    git(second, "commit", "-q", "-m", "task done")
    assert "port-auth" not in git(second, "ls-files", f"{MEMORY}/working")

    git(second, "checkout", "-q", "main")
    git(second, "merge", "-q", "--no-ff", "task", "-m", "merge task")
    assert not (second / DESK).exists()
    assert verify_findings(second) == []


def test_a_branch_merged_with_its_desk_fails_verify_on_the_default_branch(
    origin: Path, tmp_path: Path
) -> None:
    work = clone(origin, tmp_path / "work")
    git(work, "checkout", "-q", "-b", "task")
    open_desk(work, "--travel")
    git(work, "commit", "-q", "-m", "desk rides along")
    git(work, "checkout", "-q", "main")
    git(work, "merge", "-q", "--squash", "task")
    git(work, "commit", "-q", "-m", "squashed, desk and all")

    result = run_script(work, "verify")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{DESK}: error [working.tracked-desk]" in result.stdout
    assert "(main)" in result.stdout and f"git rm --cached {DESK}" in result.stdout
    # CI names the default branch itself (actions/checkout sets no origin/HEAD).
    assert run_script(work, "verify", "--default-branch", "trunk").returncode == 0


def test_desks_travel_by_default_when_the_repository_says_so(
    template_repo: Path, dst: Path
) -> None:
    copy_template(template_repo, dst, desks_travel=True)
    commit_all(dst, "install")
    git(dst, "checkout", "-q", "-b", "task")
    open_desk(dst)
    assert status(dst) == f"A  {DESK}\n"
    local = mem(dst, "new", "working", "--title", "Scratch", "--local")
    assert local.returncode == 0, local.stderr
    assert status(dst) == f"A  {DESK}\n"
    assert "--local" in (dst / SKILL / "SKILL.md").read_text()


# -- upgrade and the migration of committed desk rows --------------------------------


def render_commit(repo: Path, commit: str, tag: str) -> Path:
    """The template as it was at `commit` of this project, committed into `repo` and tagged."""
    repo.mkdir(parents=True, exist_ok=True)
    if not (repo / ".git").exists():
        init_repo(repo)
    archive = subprocess.run(
        ["git", "-C", str(PROJECT), "archive", commit, "copier.yml", "template", "extensions"],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(repo)], input=archive, check=True)
    commit_all(repo, f"template {tag}")
    git(repo, "tag", tag)
    return repo


def test_committed_desk_rows_move_out_on_update_and_the_desk_survives(
    tmp_path: Path, dst: Path
) -> None:
    template = render_commit(tmp_path / "template", BEFORE_REDESIGN, "v1.0.0")
    copy_template(template, dst, vcs_ref="v1.0.0")
    commit_all(dst, "install eco-mem")
    opened = mem(dst, "new", "working", "--title", "Port auth", "--goal", "auth on v2")
    assert opened.returncode == 0, opened.stderr
    assert "| port-auth |" in (dst / WORKING_INDEX).read_text()
    git(dst, "commit", "-q", "-am", "the row the old layout let through")
    desk = (dst / DESK).read_bytes()
    snapshot_template(template, "v2.0.0")

    # An install this old recorded no trusted source: the operator names it.
    result = run_ops(
        dst, "upgrade", "--template", str(template), "--", "--defaults", "--vcs-ref", "v2.0.0"
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "| port-auth |" not in (dst / WORKING_INDEX).read_text()
    assert (dst / DESK).read_bytes() == desk
    assert verify_findings(dst) == []
    commit_all(dst, "upgrade")
    again = run_ops(dst, "restore-indexes")  # idempotent: nothing left to move
    assert (again.returncode, again.stdout, status(dst)) == (0, "", "")


def test_upgrade_runs_with_a_desk_open_and_leaves_it_byte_identical(
    tmp_path: Path, dst: Path
) -> None:
    template = snapshot_template(tmp_path / "template", "v1.0.0")
    copy_template(template, dst, vcs_ref="v1.0.0")
    commit_all(dst, "install eco-mem")
    open_desk(dst)
    (dst / DESK).write_bytes((dst / DESK).read_bytes() + b"- half done\n")
    desk = (dst / DESK).read_bytes()
    snapshot_template(
        template,
        "v2.0.0",
        lambda repo: (
            (repo / "template" / "{{memory_path}}" / ".ignore.jinja").open("a").write("x\n")
        ),
    )

    # An install this old recorded no trusted source: the operator names it.
    result = run_ops(
        dst, "upgrade", "--template", str(template), "--", "--defaults", "--vcs-ref", "v2.0.0"
    )

    assert result.returncode == 0, result.stdout + result.stderr
    assert "upgraded v1.0.0 -> v2.0.0" in result.stdout
    assert (dst / DESK).read_bytes() == desk
    assert mem(dst, "find").stdout.splitlines()[0].startswith(DESK)


# -- line ends: a Windows clone ----------------------------------------------------------


def test_a_crlf_clone_verifies_clean_before_and_after_a_memory_command(
    host: Path, tmp_path: Path
) -> None:
    fact(host, "Deploys run from main")
    commit_all(host, "a fact")
    windows = tmp_path / "windows"
    git(tmp_path, "-c", "core.autocrlf=true", "clone", "-q", str(host), str(windows))
    git(windows, "config", "core.autocrlf", "true")
    assert b"\r" not in (windows / MEMORY / "semantic/INDEX.md").read_bytes()
    assert verify_findings(windows) == []
    assert fact(windows, "Tests run in parallel").returncode == 0
    assert verify_findings(windows) == []
    assert (
        status(windows)
        == f" M {MEMORY}/semantic/INDEX.md\n?? {MEMORY}/semantic/tests-run-in-parallel.md\n"
    )


def test_an_older_crlf_clone_is_fixed_by_the_documented_step(
    tmp_path: Path, template_repo: Path
) -> None:
    old = render_commit(tmp_path / "template", BEFORE_REDESIGN, "v1.0.0")
    upstream = init_repo(tmp_path / "upstream")
    copy_template(old, upstream, vcs_ref="v1.0.0")
    commit_all(upstream, "install, before .gitattributes")
    windows = tmp_path / "windows"
    git(tmp_path, "-c", "core.autocrlf=true", "clone", "-q", str(upstream), str(windows))
    git(windows, "config", "core.autocrlf", "true")
    assert {rule for rule, _ in verify_findings(windows)} == {"file.crlf"}
    copy_template(template_repo, upstream, overwrite=True)  # the release with the block
    # A copy over an install deletes nothing; the source-tree runtime left the template
    # with this release, as `copier update` would take it out.
    git(upstream, "rm", "-r", "-q", f"{SKILL}/scripts/ecomem", f"{SKILL}/scripts/eco_mem.py")
    commit_all(upstream, "eco-mem with eol=lf")
    git(windows, "pull", "-q")
    assert {rule for rule, _ in verify_findings(windows)} == {"file.crlf"}  # not yet

    # docs/teamwork.md, "Windows": the one step for an existing clone.
    paths = [MEMORY, SKILL]
    git(windows, "rm", "--cached", "-r", "-q", *paths)
    git(windows, "checkout", "HEAD", "--", *paths)

    assert verify_findings(windows) == []
    assert status(windows) == ""


def test_a_memory_command_never_leaves_mixed_line_ends(host: Path) -> None:
    index = host / MEMORY / "semantic/INDEX.md"
    index.write_bytes(index.read_bytes().replace(b"\n", b"\r\n"))
    assert fact(host, "Deploys run from main").returncode == 0
    # The whole file is written back with LF, as .gitattributes and verify want it.
    assert b"\r" not in index.read_bytes()
    assert verify_findings(host) == []


def test_find_never_reads_a_desk_that_links_out_and_says_why_a_desk_is_unreadable(
    host: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Not ours\n\n## Goal\nAWS_KEY=from-outside-the-repo\n", encoding="utf-8")
    working = host / MEMORY / "working"
    (working / "link.md").symlink_to(outside)
    (working / "latin.md").write_bytes(b"# Desk: caf\xe9\n")

    found = mem(host, "find")

    assert found.returncode == 0, found.stderr
    assert "from-outside-the-repo" not in found.stdout + found.stderr
    assert "link.md: a link leading out of the drawer, not read" in found.stderr
    assert "latin.md" in found.stderr and "file.encoding" in found.stderr


@pytest.mark.parametrize("query", ["???", "!!! ..."])
def test_find_with_nothing_to_search_for_matches_no_row(host: Path, query: str) -> None:
    assert fact(host, "Staging Postgres listens on port 6543").returncode == 0

    found = mem(host, "find", query)

    assert found.returncode == 0 and found.stdout == ""
    assert "no matching row" in found.stderr


def test_a_desk_goal_with_a_pipe_is_escaped_once_in_find_and_raw_in_json(host: Path) -> None:
    assert (
        mem(host, "new", "working", "--title", "Pipes", "--goal", "make a | b work").returncode == 0
    )

    plain = mem(host, "find")
    as_json = mem(host, "find", "--json")

    assert plain.stdout.splitlines()[0].endswith("pipes.md | make a \\| b work")
    assert '"goal": "make a | b work"' in as_json.stdout
