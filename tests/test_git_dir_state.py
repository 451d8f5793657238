"""Nothing a commit holds is state: the lock, the write journal and the driver copy live
in the git dir, and a branch of memory data never changes `.git`.

Each test is a reproduction from issue #27 with real git and the rendered scripts: a
branch that commits a write journal and a link into `.git/hooks`, a branch that changes
the merge driver's code, a merge stopped on a catalog while the incoming branch changed
the scripts. The attack is in the commits; the victim runs the unchanged commands.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import (
    MEMORY,
    SKILL,
    assert_no_traceback,
    change_runtime_module,
    commit_all,
    git,
    run_ops,
    runtime_module,
)
from tests.memory_helpers import fact, mem

WORKING = f"{MEMORY}/working"
SEMANTIC = f"{MEMORY}/semantic"
EVIL_HOOK = '#!/bin/sh\necho pwned > "$(git rev-parse --show-toplevel)/PWNED"\n'


def git_fingerprint(repo: Path) -> str:
    """One hash over every byte (and link) of .git/hooks, .git/config and .git/info."""
    digest = hashlib.sha256()
    dot = repo / ".git"
    paths = [dot / "config"]
    for folder in ("hooks", "info"):
        paths += sorted((dot / folder).rglob("*")) if (dot / folder).exists() else []
    for path in paths:
        digest.update(os.fsencode(path.relative_to(dot)) + b"\0")
        if path.is_symlink():
            digest.update(b"link:" + os.fsencode(os.readlink(path)))
        elif path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def plant_journal_branch(host: Path, name: str = "notes") -> None:
    """A branch adding only memory data: the journal (its old place) with a payload, and a
    committed link from the working drawer into .git/hooks (reproduction 1)."""
    git(host, "checkout", "-q", "-b", name)
    pending = host / WORKING / ".eco-mem.pending"
    pending.mkdir()
    (pending / "0").write_text(EVIL_HOOK, encoding="utf-8")
    (pending / "0").chmod(0o755)
    manifest = '[{"path": "working/hooks/pre-commit", "existed": true}]'
    (pending / "manifest.json").write_text(manifest, encoding="utf-8")
    (host / WORKING / "hooks").symlink_to("../../../.git/hooks")
    (host / SEMANTIC / "config.md").symlink_to("../../../.git/config")
    git(host, "add", "-f", "--", WORKING, SEMANTIC)
    git(host, "commit", "-q", "-m", "notes")
    git(host, "checkout", "-q", "main")


def test_a_committed_journal_and_hooks_link_never_write_into_git(host: Path) -> None:
    plant_journal_branch(host)
    git(host, "checkout", "-q", "notes")
    before = git_fingerprint(host)

    found = mem(host, "find", "deploy")

    assert_no_traceback(found)
    assert found.returncode == 0, found.stderr
    assert git_fingerprint(host) == before
    assert not (host / ".git/hooks/pre-commit").exists()
    git(host, "commit", "-q", "--allow-empty", "-m", "after")  # no hook of theirs runs
    assert not (host / "PWNED").exists()
    # verify reports the branch's files as what they are: a stray folder and links.
    report = mem(host, "verify")
    assert report.returncode == 1
    for rule, path in (
        ("structure.extra-directory", f"{WORKING}/.eco-mem.pending"),
        ("drift.path-escapes", f"{WORKING}/hooks"),
        ("drift.path-escapes", f"{SEMANTIC}/config.md"),
    ):
        assert rule in report.stdout and path in report.stdout, report.stdout


@pytest.fixture(scope="module")
def pristine(pristine: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default render with one fact committed, for revise, confirm and forget."""
    seeded = tmp_path_factory.mktemp("seeded") / "host"
    shutil.copytree(pristine, seeded, symlinks=True)
    assert fact(seeded, "Deploys need a tag").returncode == 0
    commit_all(seeded, "a fact")
    return seeded


MEMORY_COMMANDS = {
    "find": ("find", "deploy"),
    "new": (
        *("new", "semantic", "--title", "Releases are signed", "--source", "verified"),
        *("--scope", "ci", "--expires", "never", "--body", "Checked the workflow."),
    ),
    "revise": ("revise", "deploys-need-a-tag", "--title", "Deploys need a signed tag"),
    "confirm": ("confirm", "deploys-need-a-tag"),
    "forget": ("forget", "deploys-need-a-tag"),
    "end-task": ("end-task", "task"),
    "verify": ("verify",),
    "review": ("review",),
    "context": ("context",),
}


@pytest.mark.parametrize("command", list(MEMORY_COMMANDS))
def test_a_branch_of_memory_data_never_changes_git_whatever_command_runs(
    host: Path, command: str
) -> None:
    plant_journal_branch(host)
    git(host, "checkout", "-q", "notes")
    if command == "end-task":
        assert mem(host, "new", "working", "--title", "Task").returncode == 0
    before = git_fingerprint(host)

    result = mem(host, *MEMORY_COMMANDS[command])

    assert_no_traceback(result)
    assert result.returncode in (0, 1), result.stderr
    assert git_fingerprint(host) == before
    assert not (host / ".git/hooks/pre-commit").exists()


# -- the driver copy changes only on purpose ------------------------------------------------


STATE = ("write.lock", "journal", "written")  # the writers' state and record, beside the copies


def driver_state(repo: Path) -> dict[str, bytes]:
    """The driver's config entry and every file of its copies in the common dir."""
    common = Path(git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    state = {"config": git(repo, "config", "merge.eco-mem-catalog.driver").encode()}
    for path in sorted((common / "eco-mem").rglob("*")):
        relative = path.relative_to(common)
        wanted = "__pycache__" not in relative.parts and relative.parts[1] not in STATE
        if wanted and path.is_file():
            state[str(relative)] = path.read_bytes()
    return state


def branch_changing_the_driver(host: Path, module: str, line: str, name: str = "driver") -> None:
    git(host, "checkout", "-q", "-b", name)
    entry = f"ecomem/{module}"
    change_runtime_module(host, entry, runtime_module(host, entry) + line)
    commit_all(host, f"change {module}")
    git(host, "checkout", "-q", "main")


def test_memory_commands_never_carry_a_branchs_driver_code_into_the_clone(
    host: Path, tmp_path: Path
) -> None:
    assert "driver set" in mem(host, "track").stdout or driver_state(host)["config"]
    branch_changing_the_driver(host, "commands/merge_catalog.py", "# a branch's own driver\n")
    before = driver_state(host)
    # In a worktree of the branch, and after checking it out: find, new, verify.
    tree = tmp_path / "tree"
    git(host, "worktree", "add", "-q", str(tree), "driver")
    for where in (tree, host):
        if where == host:
            git(host, "worktree", "remove", "--force", str(tree))
            git(host, "checkout", "-q", "driver")
        for command in (("find", "deploy"), MEMORY_COMMANDS["new"], ("verify",)):
            assert_no_traceback(mem(where, *command))
        assert driver_state(host) == before
    # `track`, run on purpose, is what writes a new copy.
    assert "driver set" in mem(host, "track").stdout
    assert driver_state(host) != before


def test_resolve_runs_the_copy_git_runs_not_the_incoming_branchs_scripts(
    host: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran-the-branchs-code"
    branch_changing_the_driver(
        host, "store/merge.py", f"\nopen({str(marker)!r}, 'w').close()\n", name="theirs"
    )
    git(host, "checkout", "-q", "theirs")
    assert (
        mem(host, "revise", "deploys-need-a-tag", "--title", "Deploys need two tags").returncode
        == 0
    )
    marker.unlink(missing_ok=True)  # their own commands ran their own code: fine
    commit_all(host, "theirs revises")
    git(host, "checkout", "-q", "main")
    assert (
        mem(
            host, "revise", "deploys-need-a-tag", "--title", "Deploys need a tag, signed"
        ).returncode
        == 0
    )
    commit_all(host, "ours revises")

    merged = subprocess.run(
        ["git", "merge", "--no-edit", "theirs"], cwd=host, capture_output=True, text=True
    )
    assert merged.returncode != 0  # the row changed on both sides: a human decides
    assert not marker.exists()  # git ran the copy in the git dir

    resolved = mem(host, "resolve")

    assert_no_traceback(resolved)
    assert resolved.returncode == 1, resolved.stdout + resolved.stderr
    assert "need a human" in resolved.stdout
    assert not marker.exists()


def conflict_with_changed_scripts(host: Path, marker: Path, where: Path) -> None:
    """A merge in `where` (the host or a worktree of it) stopped on a row both sides
    revised, the incoming branch having changed several modules of the work tree's
    scripts to write `marker` when imported (the F2 reproduction of the second review)."""
    git(host, "checkout", "-q", "-b", "theirs")
    title = ("--title", "Deploys need two tags")
    assert mem(host, "revise", "deploys-need-a-tag", *title).returncode == 0
    for module in ("git.py", "__init__.py", "cli.py", "boundary.py", "commands/resolve.py"):
        entry = f"ecomem/{module}"
        line = f"\nopen({str(marker)!r}, 'a').write({module!r} + '\\n')\n"
        change_runtime_module(host, entry, runtime_module(host, entry) + line)
    commit_all(host, "theirs revises and changes the scripts")
    git(host, "checkout", "-q", "main")
    title = ("--title", "Deploys need a tag, signed")
    assert mem(host, "revise", "deploys-need-a-tag", *title).returncode == 0
    commit_all(host, "ours revises")
    if where != host:
        git(host, "worktree", "add", "-q", "-b", "ours", str(where), "main")
    merged = subprocess.run(
        ["git", "merge", "--no-edit", "theirs"], cwd=where, capture_output=True, text=True
    )
    assert merged.returncode != 0, merged.stdout  # the row changed on both sides
    assert not marker.exists()  # git ran the copy in the git dir
    assert runtime_module(where, "ecomem/git.py").endswith("'git.py' + '\\n')\n")


@pytest.mark.parametrize("in_worktree", [False, True], ids=["clone", "worktree"])
def test_resolve_imports_nothing_of_the_work_tree_before_the_copy_runs(
    host: Path, tmp_path: Path, in_worktree: bool
) -> None:
    marker = tmp_path / "ran-the-branchs-code"
    where = tmp_path / "tree" if in_worktree else host
    conflict_with_changed_scripts(host, marker, where)

    resolved = subprocess.run(
        [sys.executable, "-X", "importtime", str(where / SKILL / "scripts/eco_mem.pyz"), "resolve"],
        cwd=where,
        capture_output=True,
        text=True,
    )

    assert not marker.exists(), marker.read_text()
    imported = [line for line in resolved.stderr.splitlines() if line.startswith("import time:")]
    assert imported and not [line for line in imported if "ecomem" in line]
    assert resolved.returncode == 1, resolved.stdout + resolved.stderr
    assert "need a human" in resolved.stdout


def test_resolve_without_the_copy_says_run_track_and_never_runs_the_work_tree(
    host: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran-the-branchs-code"
    conflict_with_changed_scripts(host, marker, host)
    shutil.rmtree(host / ".git/eco-mem")  # a fresh clone: no copy in its git dir
    index = (host / SEMANTIC / "INDEX.md").read_bytes()

    resolved = mem(host, "resolve")

    assert resolved.returncode == 2 and resolved.stdout == ""
    assert len(resolved.stderr.splitlines()) == 1 and "track" in resolved.stderr, resolved.stderr
    assert not marker.exists()
    assert (host / SEMANTIC / "INDEX.md").read_bytes() == index  # git's conflict, as it was


# -- bounds ----------------------------------------------------------------------------------


def test_a_one_cell_row_is_one_line_in_the_driver_and_in_resolve(
    host: Path, tmp_path: Path
) -> None:
    git(host, "config", "--remove-section", "merge.eco-mem-catalog")  # git stops: resolve
    index = host / SEMANTIC / "INDEX.md"
    git(host, "checkout", "-q", "-b", "theirs")
    assert fact(host, "Builds use make").returncode == 0
    commit_all(host, "theirs")
    git(host, "checkout", "-q", "main")
    assert fact(host, "Builds use ninja").returncode == 0
    index.write_text(index.read_text(encoding="utf-8") + "| slug |\n", encoding="utf-8")
    commit_all(host, "ours")
    ours, base = index.read_bytes(), git(host, "show", "main~1:" + f"{SEMANTIC}/INDEX.md")
    theirs = git(host, "show", f"theirs:{SEMANTIC}/INDEX.md")

    merged = subprocess.run(
        ["git", "merge", "--no-edit", "theirs"], cwd=host, capture_output=True, text=True
    )
    resolved = mem(host, "resolve")

    assert merged.returncode != 0
    assert_no_traceback(resolved)
    assert resolved.returncode == 1 and "IndexError" not in resolved.stdout + resolved.stderr
    assert "1 cell(s)" in resolved.stdout
    # The driver's own entry, by hand: the same one line, OURS holds git's text merge.
    files = {"base": base.encode(), "ours": ours, "theirs": theirs.encode()}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    driver = mem(host, "merge-catalog", *(str(tmp_path / name) for name in files))
    assert_no_traceback(driver)
    assert driver.returncode == 1 and driver.stderr.count("\n") == 1, driver.stderr
    assert "merged as plain text" in driver.stderr


def test_a_settings_file_nested_a_thousand_deep_is_one_line_in_blocks(host: Path) -> None:
    settings = host / ".claude/settings.json"
    settings.parent.mkdir(exist_ok=True)
    text = '{"a": ' + "[" * 1000 + "]" * 1000 + "}\n"
    settings.write_text(text, encoding="utf-8")

    result = run_ops(host, "blocks")

    assert_no_traceback(result)
    assert "RecursionError" not in result.stderr and "internal error" not in result.stderr
    assert result.returncode in (0, 1, 2)  # blocks goes on without the hook, or stops
    assert "nested deeper" in result.stderr and len(result.stderr.splitlines()) == 1
    assert settings.read_text(encoding="utf-8") == text


def test_each_work_tree_keeps_its_lock_in_its_own_git_dir(host: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    git(host, "worktree", "add", "-q", "-b", "side", str(tree))

    assert mem(tree, *MEMORY_COMMANDS["new"]).returncode == 0
    assert fact(host, "Tags are signed").returncode == 0

    assert (host / ".git/worktrees/tree/eco-mem/write.lock").is_file()
    assert (host / ".git/eco-mem/write.lock").is_file()
    assert not list(tree.rglob(".eco-mem*")) and not list((host / MEMORY).rglob(".eco-mem*"))


def test_even_a_real_journal_never_puts_a_file_into_git(host: Path) -> None:
    # Defence in depth: the git dir's own journal, naming a path through a link into
    # .git/hooks, is refused like any write; find still answers.
    (host / WORKING / "hooks").symlink_to("../../../.git/hooks")
    journal = host / ".git/eco-mem/journal"
    journal.mkdir(parents=True)
    (journal / "0").write_text(EVIL_HOOK, encoding="utf-8")
    manifest = f'[{{"path": "{WORKING}/hooks/pre-commit", "existed": true}}]'
    (journal / "manifest.json").write_text(manifest, encoding="utf-8")
    before = git_fingerprint(host)

    write = mem(host, *MEMORY_COMMANDS["new"])
    read = mem(host, "find", "deploy")

    assert write.returncode == 2 and len(write.stderr.splitlines()) == 1, write.stderr
    assert "leads into .git" in write.stderr
    assert read.returncode == 0 and "leads into .git" in read.stderr
    assert git_fingerprint(host) == before
    assert not (host / ".git/hooks/pre-commit").exists()
