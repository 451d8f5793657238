"""No write leaves the repository, lands on a non-file, or hides from git; errors stay one line.

Every case is a reproduction from a rendered host: a committed symlink at a path eco-mem
writes (the lock, .gitattributes, .gitignore, a drawer, a conflicted catalog), a host
ignore rule that swallows a new entry, a CLAUDE.md that links to a third file, a held
lock, a renamed catalog header, a closed or broken output stream. Real git, the real
rendered script, no mocks.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import (
    MEMORY,
    assert_exit,
    commit_all,
    copy_template,
    git,
    init_repo,
    run_ops,
    run_script,
)
from tests.memory_helpers import SCRIPT, fact, mem, rows, snapshot

LOCK = ".git/eco-mem/write.lock"  # the writers' lock, in the git dir (git_home.py)
OLD_LOCK = f"{MEMORY}/working/.eco-mem.lock"  # where it was before: memory data now
SEMANTIC = f"{MEMORY}/semantic"
NEW_FACT = (
    *("new", "semantic", "--title", "Deploys need a tag", "--source", "verified"),
    *("--scope", "ci", "--expires", "never", "--body", "Checked the workflow."),
)
SECRET = "export TOKEN=do-not-touch\n"


def one_line(result: subprocess.CompletedProcess, code: int) -> str:
    assert_exit(result, code)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "This is a bug" not in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file outside the repository that no eco-mem command may change."""
    path = tmp_path / "elsewhere" / "profile.txt"
    path.parent.mkdir()
    path.write_text(SECRET, encoding="utf-8")
    return path


# -- the lock ----------------------------------------------------------------------------


def git_state(host: Path) -> Path:
    folder = host / ".git/eco-mem"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-file", "dangling"])
def test_a_lock_that_links_out_stops_the_write_and_touches_nothing(
    host: Path, victim: Path, dangling: bool
) -> None:
    target = victim.with_name("missing") if dangling else victim
    git_state(host)
    (host / LOCK).symlink_to(target)
    before = snapshot(host)

    line = one_line(mem(host, *NEW_FACT), 2)

    assert "write.lock" in line and "link" in line
    assert victim.read_text(encoding="utf-8") == SECRET
    assert not victim.with_name("missing").exists()
    assert snapshot(host) == before


def test_a_committed_link_where_the_lock_was_is_data_never_followed(host: Path) -> None:
    # Before 0.4 the lock lived in the working drawer; a link a branch commits there
    # now is only a file of memory: no write goes through it, and verify flags it.
    readme = host / "README.md"
    readme.write_text("# Host\n", encoding="utf-8")
    (host / OLD_LOCK).symlink_to(Path("../../../README.md"))

    assert mem(host, *NEW_FACT).returncode == 0

    assert readme.read_text(encoding="utf-8") == "# Host\n"
    found = mem(host, "verify", "--json")
    assert "drift.path-escapes" in found.stdout and OLD_LOCK in found.stdout


def test_a_hard_linked_lock_is_refused_and_the_other_name_keeps_its_bytes(
    host: Path, victim: Path
) -> None:
    os.link(victim, git_state(host) / "write.lock")

    line = one_line(mem(host, *NEW_FACT), 2)

    assert "write.lock" in line and "hard link" in line
    assert victim.read_text(encoding="utf-8") == SECRET


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_at_the_lock_path_is_refused_without_blocking(host: Path) -> None:
    git_state(host)
    os.mkfifo(host / LOCK)

    line = one_line(mem(host, *NEW_FACT, timeout=20), 2)

    assert "write.lock" in line and "FIFO" in line


HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.write(fd, f"{os.getpid()}\\n".encode())
print("held", flush=True)
time.sleep(60)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_a_held_lock_times_out_in_one_line_naming_the_holder_pid(host: Path) -> None:
    git_state(host)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(host / LOCK)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        before = snapshot(host)
        line = one_line(mem(host, *NEW_FACT, env={"ECO_MEM_LOCK_TIMEOUT": "1"}), 2)
    finally:
        holder.kill()
        holder.wait()

    assert f"pid {holder.pid}" in line and "internal error" not in line
    assert snapshot(host) == before


# -- memory files ------------------------------------------------------------------------


# -- host files written by track ------------------------------------------------------------


@pytest.mark.parametrize("name", [".gitattributes", ".gitignore"])
def test_track_never_appends_through_a_host_file_that_links_out(
    host: Path, victim: Path, name: str
) -> None:
    (host / name).unlink(missing_ok=True)
    (host / name).symlink_to(victim)
    if name == ".gitignore":  # give track something to re-include, so it must write
        (host / ".git/info/exclude").write_text(".agents/\n", encoding="utf-8")

    line = one_line(run_script(host, "track"), 2)

    assert f"{name} is a link leading out of the repository" in line
    assert victim.read_text(encoding="utf-8") == SECRET


def test_a_committed_gitattributes_link_stops_the_copy_and_keeps_the_target(
    template_repo: Path, tmp_path: Path, victim: Path
) -> None:
    from copier.errors import CopierError

    host = init_repo(tmp_path / "host")
    (host / ".gitattributes").symlink_to(victim)
    commit_all(host, "a link to a shared attributes file")

    with pytest.raises(CopierError):
        copy_template(template_repo, host)

    assert victim.read_text(encoding="utf-8") == SECRET


def test_a_gitattributes_link_inside_the_repository_is_written_through(host: Path) -> None:
    # A host that keeps its attributes in a shared file links to it; the block goes there.
    attributes = host / ".gitattributes"
    shared = host / "config" / "attributes"
    shared.parent.mkdir()
    shared.write_bytes(b"*.png binary\n")
    attributes.unlink()
    attributes.symlink_to(Path("config/attributes"))

    result = assert_exit(run_script(host, "track"), 0)

    assert attributes.is_symlink()
    text = shared.read_text(encoding="utf-8")
    assert text.startswith("*.png binary\n") and "merge=eco-mem-catalog" in text
    assert result.stdout.startswith(".gitattributes: eco-mem block refreshed")
    assert run_script(host, "track").stdout == ""


# -- resolve --------------------------------------------------------------------------------


def test_resolve_never_writes_through_a_conflicted_catalog_that_links_out(
    host: Path, victim: Path
) -> None:
    git(host, "checkout", "-q", "-b", "other")
    assert fact(host, "Beta fact from the other branch").returncode == 0
    commit_all(host, "beta")
    git(host, "checkout", "-q", "main")
    assert fact(host, "Alpha fact from main").returncode == 0
    commit_all(host, "alpha")
    git(host, "config", "--remove-section", "merge.eco-mem-catalog")  # as a fresh clone
    merged = subprocess.run(["git", "merge", "-q", "other"], cwd=host, capture_output=True)
    assert merged.returncode != 0  # both added the first row of an empty table
    index = host / SEMANTIC / "INDEX.md"
    index.unlink()
    index.symlink_to(victim)

    line = one_line(mem(host, "resolve"), 2)

    assert f"{SEMANTIC}/INDEX.md is a symlink" in line
    assert victim.read_text(encoding="utf-8") == SECRET


def test_the_merge_driver_never_writes_through_a_link(host: Path, tmp_path: Path) -> None:
    index = (host / SEMANTIC / "INDEX.md").read_bytes()
    for name in ("base", "theirs", "real-ours"):
        (tmp_path / name).write_bytes(index)
    (tmp_path / "ours").symlink_to(tmp_path / "real-ours")

    line = one_line(
        mem(host, "merge-catalog", *(str(tmp_path / name) for name in ("base", "ours", "theirs"))),
        2,
    )

    assert "ours is a symlink" in line
    assert (tmp_path / "real-ours").read_bytes() == index


# -- the one safe open, unit by unit ---------------------------------------------------------


def test_safe_open_judges_the_place_a_write_lands(ecomem, tmp_path: Path) -> None:
    from ecomem import safe_open

    root = tmp_path / "repo"
    (root / ".git/hooks").mkdir(parents=True)
    (root / "folder").mkdir()
    (root / "file.md").write_text("x\n", encoding="utf-8")
    (root / "inside").symlink_to("file.md")
    (root / "hook").symlink_to(".git/hooks/post-checkout")
    (root / "out").symlink_to(tmp_path)
    refused = {
        "inside": {},  # a link, for eco-mem's own files
        "hook": {"follow": True},  # lands under .git
        "folder": {"follow": True},  # not a regular file
        "out/escaped.md": {"follow": True},  # a folder on the path leads out
    }
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "pipe")
        refused["pipe"] = {"follow": True}
    for name, options in refused.items():
        with pytest.raises(safe_open.UnsafeTarget) as caught:
            safe_open.write_text(root, root / name, "new\n", **options)
        assert name.split("/")[0] in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "escaped.md").exists()
    assert not (root / ".git/hooks/post-checkout").exists()

    safe_open.write_text(root, root / "inside", "through\n", follow=True)
    assert (root / "file.md").read_text(encoding="utf-8") == "through\n"
    safe_open.replace(root, root / "new.md", "fresh\n")
    assert (root / "new.md").read_text(encoding="utf-8") == "fresh\n"
    assert not [name for name in os.listdir(root) if name.startswith(safe_open.TEMP_PREFIX)]
    assert safe_open.remove(root, root / "inside") and (root / "file.md").exists()


def test_a_temp_name_taken_by_a_link_is_never_followed(ecomem, tmp_path: Path) -> None:
    from ecomem import safe_open

    root = tmp_path / "repo"
    root.mkdir()
    victim = tmp_path / "victim"
    victim.write_text(SECRET, encoding="utf-8")
    temp = root / f"{safe_open.TEMP_PREFIX}{os.getpid()}-INDEX.md"
    temp.symlink_to(victim)

    safe_open.replace(root, root / "INDEX.md", "rows\n")

    assert victim.read_text(encoding="utf-8") == SECRET
    assert (root / "INDEX.md").read_text(encoding="utf-8") == "rows\n"
    assert not os.path.lexists(temp)


def test_the_git_rule_ignores_letter_case_at_any_depth(ecomem, tmp_path: Path) -> None:
    from ecomem import safe_open

    root = tmp_path / "repo"
    for folder in (".GIT/hooks", "vendor/lib/.Git", "sub/git~1"):
        (root / folder).mkdir(parents=True)
    for path in (".GIT/hooks/pre-commit", "vendor/lib/.Git/config", "sub/git~1/config"):
        with pytest.raises(safe_open.UnsafeTarget, match=r"leads into \.git"):
            safe_open.replace(root, root / path, "x\n")
        assert not (root / path).exists()
    # A delete through a folder link into .git is refused the same way.
    (root / ".GIT/hooks/pre-commit").write_text("#!/bin/sh\n", encoding="utf-8")
    (root / "drawer").symlink_to(".GIT/hooks")
    with pytest.raises(safe_open.UnsafeTarget, match=r"leads into \.git"):
        safe_open.remove(root, root / "drawer/pre-commit")
    assert (root / ".GIT/hooks/pre-commit").exists()


def test_folders_are_made_only_where_a_file_may_be_written(ecomem, tmp_path: Path) -> None:
    # make_folders, which package stores, `.claude/` and upgrade's restored drawers
    # go through, keeps the file rule before it makes anything: not in `.git` at any
    # depth or in any case, directly or through a link, and not out of the repository.
    from ecomem import safe_open

    root = tmp_path / "repo"
    (root / ".git/hooks").mkdir(parents=True)
    (root / "pkg").mkdir()
    (root / "pkg/.agents").symlink_to("../.git/hooks")
    (root / "out").symlink_to(tmp_path)
    for folder in ("pkg/.agents/memory/working", ".GIT/memory", "vendor/.git./x", "out/x"):
        with pytest.raises(safe_open.UnsafeTarget, match=r"leads into \.git|out of the repository"):
            safe_open.make_folders(root, root / folder)
    assert sorted(os.listdir(root / ".git/hooks")) == []
    assert sorted(os.listdir(root)) == [".git", "out", "pkg"]
    assert os.listdir(tmp_path) == ["repo"]  # nothing made through `out` either
    safe_open.make_folders(root, root / "pkg/src/deep")  # an ordinary folder is made
    assert (root / "pkg/src/deep").is_dir()


def test_a_hard_linked_file_is_never_written_through(ecomem, tmp_path: Path) -> None:
    from ecomem import safe_open

    root = tmp_path / "repo"
    root.mkdir()
    victim = tmp_path / "victim"
    victim.write_text(SECRET, encoding="utf-8")
    os.link(victim, root / "AGENTS.md")

    with pytest.raises(safe_open.UnsafeTarget, match="hard link"):
        safe_open.write_text(root, root / "AGENTS.md", "# Agents\n", follow=True)

    assert victim.read_text(encoding="utf-8") == SECRET
    # A rename-based write replaces the name here only: the other name keeps its bytes.
    safe_open.replace(root, root / "AGENTS.md", "# Agents\n")
    assert victim.read_text(encoding="utf-8") == SECRET


def test_a_hard_linked_agents_md_stops_blocks_with_one_line(host: Path, victim: Path) -> None:
    agents = host / "AGENTS.md"
    victim.write_text("# Host notes\n", encoding="utf-8")
    agents.unlink()
    os.link(victim, agents)

    line = one_line(run_ops(host, "blocks"), 2)

    assert "AGENTS.md" in line and "hard link" in line
    assert victim.read_text(encoding="utf-8") == "# Host notes\n"


@pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="POSIX only: Windows checks the path")
@pytest.mark.parametrize("write", ["replace", "in place", "remove"])
def test_a_folder_swapped_for_a_link_after_the_check_never_leads_the_write_out(
    ecomem, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: str
) -> None:
    """The race made deterministic: the swap happens right after the path check, the
    moment an attacker racing the writer aims for."""
    from ecomem import safe_open

    root = tmp_path / "repo"
    (root / "memory/working").mkdir(parents=True)
    (root / "memory/working/desk.md").write_text("desk\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "desk.md").write_text(SECRET, encoding="utf-8")
    checked = {"target": safe_open.target, "check_folder": safe_open.check_folder}

    def swap_after(name):
        def checked_then_swapped(*args, **kwargs):
            real = checked[name](*args, **kwargs)
            if not (root / "memory/working").is_symlink():  # target calls check_folder
                (root / "memory/working").rename(root / "memory/kept")
                (root / "memory/working").symlink_to(outside)
            return real

        return checked_then_swapped

    monkeypatch.setattr(safe_open, "target", swap_after("target"))
    monkeypatch.setattr(safe_open, "check_folder", swap_after("check_folder"))
    desk = root / "memory/working/desk.md"
    with pytest.raises(safe_open.UnsafeTarget, match="became a link"):
        if write == "replace":
            safe_open.replace(root, desk, "new\n")
        elif write == "in place":
            safe_open.write_text(root, desk, "new\n")
        else:
            safe_open.remove(root, desk)

    assert (outside / "desk.md").read_text(encoding="utf-8") == SECRET
    assert os.listdir(outside) == ["desk.md"]


# -- entries git would ignore ----------------------------------------------------------------


@pytest.fixture(scope="module")
def biome(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """biome's layout: `**/test.*` in .gitignore, CLAUDE.md a link to CONTRIBUTING.md."""
    host = init_repo(tmp_path_factory.mktemp("biome") / "host")
    (host / ".gitignore").write_text("target/\n**/test.*\n", encoding="utf-8")
    (host / "CONTRIBUTING.md").write_text("# Contributing\n\nRun the tests.\n", encoding="utf-8")
    (host / "CLAUDE.md").symlink_to("CONTRIBUTING.md")
    (host / "steps.md").write_text("- run `just test`\n", encoding="utf-8")
    commit_all(host, "biome-like host")
    copy_template(template_repo, host)
    commit_all(host, "install eco-mem")
    return host


@pytest.fixture
def biome_host(biome: Path, tmp_path: Path) -> Path:
    import shutil

    copy = tmp_path / "host"
    shutil.copytree(biome, copy, symlinks=True)
    return copy


def new_test_checklist(host: Path) -> subprocess.CompletedProcess:
    return mem(
        host,
        *("new", "procedural", "--name", "test", "--use-when", "before a push"),
        *("--checklist-file", "steps.md"),
    )


def test_new_re_includes_an_entry_the_host_ignores_so_it_reaches_the_commit(
    biome_host: Path,
) -> None:
    entry = f"{MEMORY}/procedural/test.md"
    gitignore = (biome_host / ".gitignore").read_text(encoding="utf-8")

    result = new_test_checklist(biome_host)

    assert_exit(result, 0)
    assert ".gitignore:2 `**/test.*`" in result.stderr and "re-includes it" in result.stderr
    after = (biome_host / ".gitignore").read_text(encoding="utf-8")
    assert after.startswith(gitignore)  # the host's lines, byte for byte
    assert "!/.agents/memory/procedural/*.md" in after
    check = subprocess.run(["git", "check-ignore", "-q", entry], cwd=biome_host)
    assert check.returncode == 1  # not ignored
    git(biome_host, "add", "-A")
    assert entry in git(biome_host, "diff", "--cached", "--name-only").splitlines()
    assert run_script(biome_host, "track").stdout == ""  # nothing more to do


def test_end_task_promoting_to_an_ignored_name_re_includes_it_too(biome_host: Path) -> None:
    assert mem(biome_host, "new", "working", "--title", "Flaky suite").returncode == 0

    result = mem(
        biome_host,
        *("end-task", "flaky-suite", "--promote-to", "semantic", "--title", "Test"),
        *("--source", "verified", "--scope", "ci", "--expires", "never", "--body", "Seen."),
    )

    assert_exit(result, 0)
    assert "re-includes it" in result.stderr
    entry = f"{MEMORY}/semantic/test.md"
    assert subprocess.run(["git", "check-ignore", "-q", entry], cwd=biome_host).returncode == 1


def test_new_refuses_an_entry_a_nested_ignore_rule_hides_and_writes_nothing(
    biome_host: Path,
) -> None:
    (biome_host / ".agents/.gitignore").write_text("**/test.*\n", encoding="utf-8")
    commit_all(biome_host, "a nested rule the root cannot override")
    before = snapshot(biome_host)
    gitignore = (biome_host / ".gitignore").read_bytes()

    line = one_line(new_test_checklist(biome_host), 1)

    assert "refused [git.ignored]" in line and ".agents/.gitignore:1" in line
    assert snapshot(biome_host) == before
    assert (biome_host / ".gitignore").read_bytes() == gitignore


def test_an_entry_git_keeps_costs_no_gitignore_change(host: Path) -> None:
    gitignore = host / ".gitignore"
    before = gitignore.read_bytes() if gitignore.exists() else None

    result = assert_exit(mem(host, *NEW_FACT), 0)

    assert ".gitignore" not in result.stderr
    assert (gitignore.read_bytes() if gitignore.exists() else None) == before


# -- CLAUDE.md linked to a third file ----------------------------------------------------------


def test_claude_md_linking_to_a_third_file_gets_the_import_there_and_says_why(
    biome: Path,
) -> None:
    contributing = (biome / "CONTRIBUTING.md").read_text(encoding="utf-8")

    assert (biome / "CLAUDE.md").is_symlink()
    assert contributing.startswith("# Contributing\n\nRun the tests.\n")
    assert "\n@AGENTS.md\n" in contributing  # what Claude Code reads now imports the block
    assert "eco-mem:begin" in (biome / "AGENTS.md").read_text(encoding="utf-8")
    assert run_ops(biome, "blocks").stdout.strip() == "blocks already current"


def test_blocks_names_the_third_file_and_what_it_means_for_claude_code(host: Path) -> None:
    (host / "CLAUDE.md").unlink()
    (host / "CONTRIBUTING.md").write_text("# Contributing\n", encoding="utf-8")
    (host / "CLAUDE.md").symlink_to("CONTRIBUTING.md")

    result = assert_exit(run_ops(host, "blocks"), 0)

    said = result.stdout.strip()
    assert said.startswith("updated: CONTRIBUTING.md (through the link CLAUDE.md")
    assert "never AGENTS.md" in said and "replace the link" in said
    assert (host / "CONTRIBUTING.md").read_text(encoding="utf-8").startswith("# Contributing\n")


def test_a_claude_md_link_out_is_refused_like_agents_md(host: Path, victim: Path) -> None:
    (host / "CLAUDE.md").unlink()
    (host / "CLAUDE.md").symlink_to(victim)
    agents = (host / "AGENTS.md").read_bytes()

    line = one_line(run_ops(host, "blocks"), 2)

    assert "CLAUDE.md is a link leading out of the repository" in line
    assert victim.read_text(encoding="utf-8") == SECRET
    assert (host / "AGENTS.md").read_bytes() == agents


# -- one-line errors ---------------------------------------------------------------------------


def test_revise_after_a_header_rename_is_refused_as_new_is(host: Path) -> None:
    assert fact(host, "Deploys need a tag").returncode == 0
    index = host / SEMANTIC / "INDEX.md"
    index.write_text(index.read_text().replace("| one-liner |", "| summary |"), encoding="utf-8")
    before = snapshot(host)

    revised = one_line(mem(host, "revise", "deploys-need-a-tag", "--title", "Tags"), 1)
    added = one_line(fact(host, "Another fact"), 1)

    assert "refused [catalog.columns]" in revised
    assert revised.split(": ", 1)[1] == added.split(": ", 1)[1]
    assert snapshot(host) == before


def closed(stream: str, *args: str) -> str:
    """A shell line that runs the script with `stream` closed (`>&-` or `2>&-`)."""
    redirect = ">&-" if stream == "stdout" else "2>&-"
    quoted = " ".join(f"'{arg}'" for arg in args)
    return f'"{sys.executable}" "{SCRIPT}" {quoted} {redirect}; echo "exit=$?"'


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")
def test_a_closed_stdout_loses_the_report_never_the_write_nor_the_exit_status(
    host: Path,
) -> None:
    done = subprocess.run(
        ["sh", "-c", closed("stdout", *NEW_FACT)], cwd=host, capture_output=True, text=True
    )

    assert done.stdout == "exit=0\n", done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert [row.split(" | ")[0] for row in rows(host, "semantic")] == ["| deploys-need-a-tag"]
    found = subprocess.run(
        ["sh", "-c", closed("stdout", "find", "tag")], cwd=host, capture_output=True, text=True
    )
    assert (found.stdout, found.stderr) == ("exit=0\n", "")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")
def test_a_closed_stderr_keeps_the_exit_status_of_a_refusal(host: Path) -> None:
    assert fact(host, "Deploys need a tag").returncode == 0
    before = snapshot(host)
    done = subprocess.run(
        ["sh", "-c", closed("stderr", *NEW_FACT)], cwd=host, capture_output=True, text=True
    )

    assert (done.stdout, done.stderr) == ("exit=1\n", "")
    assert "Traceback" not in done.stdout + done.stderr
    assert snapshot(host) == before


@pytest.mark.skipif(sys.platform == "win32", reason="pipes")
def test_a_reader_that_left_does_not_turn_a_landed_write_into_an_error(host: Path) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first byte
    try:
        done = subprocess.run(
            [sys.executable, str(host / SCRIPT), *NEW_FACT],
            cwd=host,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)

    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert (host / SEMANTIC / "deploys-need-a-tag.md").is_file()


@pytest.mark.skipif(sys.platform == "win32", reason="pipes")
def test_a_reader_that_left_a_reading_command_is_still_an_io_error(host: Path) -> None:
    # find only reads: its report is why it ran, so losing it is exit 2, quietly.
    assert fact(host, "Deploys need a tag").returncode == 0
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            [sys.executable, str(host / SCRIPT), "find", "tag"],
            cwd=host,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    finally:
        os.close(write_end)

    assert (done.returncode, done.stderr) == (2, "")
