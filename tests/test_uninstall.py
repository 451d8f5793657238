"""`eco_mem.pyz uninstall` gives a host back its own bytes.

A repository shaped like a real one (its own AGENTS.md, CLAUDE.md, a .gitignore whose
rules hide the install and re-include a path, .gitattributes, .claude/settings.json, a
symlink, CRLF and unterminated files) is snapshotted, gets eco-mem with the real copier,
writes a fact with `new`, and is uninstalled; every byte outside memory is compared.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import (
    ANSWERS,
    MEMORY,
    SKILL,
    build_files,
    commit_all,
    copy_template,
    git,
    init_repo,
    run_ops,
    run_script,
    work_tree_bytes,
)
from tests.memory_helpers import fact

HOST = {
    "README.md": "# Tidewater\n\nExports audits.\n",
    # The team's own guide, CRLF, its last line without an ending.
    "AGENTS.md": "# Contributor guide\r\n\r\nRun `make test` before pushing.\r\nNo tabs.",
    "CLAUDE.md": "# Claude notes\n\nKeep answers short.\n",
    # Dotfolders hidden, one re-included: track has to add its own block.
    ".gitignore": "*.log\n.*\n!.gitignore\n!.gitattributes\n!/.claude/\n/.claude/*\n"
    "!/.claude/settings.json\nbuild/\n",
    ".gitattributes": "*.png binary\n*.sh text eol=lf",
    ".claude/settings.json": '{\n  "permissions": {"allow": ["Bash(make test)"]}\n}\n',
    "docs/v1/guide.md": "Version one.\n",
    "scripts/build.cmd": "@echo off\r\necho building\r\n",
    "src/app.py": "print('hi')\n",
}


def tree(root: Path) -> dict[str, bytes | str]:
    """Every path outside .git: file bytes, or the target of a symlink."""
    found: dict[str, bytes | str] = {}
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if name != ".git"]
        for name in files + [s for s in subfolders if os.path.islink(os.path.join(folder, s))]:
            path = Path(folder, name)
            relpath = path.relative_to(root).as_posix()
            found[relpath] = os.readlink(path) if path.is_symlink() else path.read_bytes()
    return found


@pytest.fixture(scope="module")
def installed(template_repo: Path, tmp_path_factory: pytest.TempPathFactory):
    """(the host with eco-mem and one fact committed, its bytes before, its config before,
    the commit before the install)."""
    host = init_repo(tmp_path_factory.mktemp("real") / "host")
    build_files(host, HOST)
    (host / "docs/latest").symlink_to("v1")
    git(host, "add", "-A", "--force")
    git(host, "commit", "-q", "-m", "host")
    before, config = tree(host), (host / ".git/config").read_bytes()
    start = git(host, "rev-parse", "HEAD").strip()
    copy_template(template_repo, host, ci="github-actions")
    commit_all(host, "install eco-mem")
    assert fact(host, "Build runs make test").returncode == 0
    commit_all(host, "a fact")
    assert run_script(host, "verify").returncode == 0
    return host, before, config, start


@pytest.fixture
def repo(installed, tmp_path: Path) -> Path:
    copy = tmp_path / "host"
    shutil.copytree(installed[0], copy, symlinks=True)
    return copy


def uninstall(root: Path, *args: str):
    return run_ops(root, "uninstall", *args)


def test_memory_kept_every_other_byte_is_the_hosts(installed, repo: Path) -> None:
    _, before, config, start = installed
    done = uninstall(repo)
    assert done.returncode == 0, done.stderr
    after = tree(repo)
    # The host's .gitignore (`.*`) would hide the kept memory: the block stays, cut to the
    # rules on the way to it, so what the team writes there still reaches a commit.
    before = dict(before)  # the module's fixture: the next test needs it whole
    ignore = after.pop(".gitignore").decode()
    host_ignore = before.pop(".gitignore").decode()
    assert ignore.startswith(host_ignore + "\n# eco-mem:begin\n")
    kept_rules = ignore[len(host_ignore) :].splitlines()[3:-1]
    assert kept_rules and all(".agents/" in rule for rule in kept_rules), kept_rules
    assert not any("skills" in rule or "claude" in rule for rule in kept_rules)
    assert {path: data for path, data in after.items() if not path.startswith(MEMORY)} == before
    for drawer in ("working", "semantic", "episodic", "procedural"):
        assert (repo / MEMORY / drawer / "INDEX.md").is_file()
    assert (repo / MEMORY / "semantic/build-runs-make-test.md").is_file()
    assert (repo / MEMORY / "working/.gitignore").is_file()  # desks stay out of git
    assert not (repo / MEMORY / ".ignore").exists()  # it named a command that is gone
    assert not (repo / MEMORY / "working/.eco-mem.lock").exists()
    assert "Build runs make test" in (repo / MEMORY / "semantic/INDEX.md").read_text()
    assert (repo / ".git/config").read_bytes() == config  # the merge driver's section is gone
    assert f"kept {MEMORY}/" in done.stdout
    # Committed, the tree differs from the one before the install by the memory alone.
    git(repo, "add", "-A")
    changed = git(repo, "diff", "--cached", "--name-only", start).split()
    assert changed and all(
        path.startswith(MEMORY + "/") for path in changed if path != ".gitignore"
    )
    assert f"{MEMORY}/semantic/build-runs-make-test.md" in changed


def test_memory_removed_the_tree_is_the_one_before_the_install(installed, repo: Path) -> None:
    _, before, config, start = installed
    done = uninstall(repo, "--memory")
    assert done.returncode == 0, done.stderr
    assert tree(repo) == before
    assert (repo / ".git/config").read_bytes() == config
    git(repo, "add", "-A")
    assert git(repo, "write-tree").strip() == git(repo, "rev-parse", f"{start}^{{tree}}").strip()


def test_dry_run_lists_every_change_and_makes_none(installed, repo: Path) -> None:
    bytes_before = work_tree_bytes(repo)
    config = (repo / ".git/config").read_bytes()
    listed = uninstall(repo, "--dry-run", "--json", "--memory")
    assert listed.returncode == 0, listed.stderr
    assert work_tree_bytes(repo) == bytes_before
    assert (repo / ".git/config").read_bytes() == config
    plan = json.loads(listed.stdout)
    assert plan["dry_run"] is True and plan["refused"] is None
    steps = {change["step"] for change in plan["changes"]}
    assert steps == {
        "instruction blocks",
        "gitignore block",
        "gitattributes block",
        "merge driver",
        "claude link",
        "claude hook",
        "workflow",
        "answers",
        "memory",
        "skill",
        "empty folders",
    }
    done = uninstall(repo, "--json", "--memory")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["changes"] == plan["changes"]
    text = uninstall(repo, "--dry-run")  # the script is gone: nothing left to run it
    assert text.returncode != 0 and not (repo / SKILL).exists()


def test_a_dirty_tree_is_refused_and_nothing_changes(repo: Path) -> None:
    (repo / "src/app.py").write_text("print('changed')\n", encoding="utf-8")
    bytes_before = work_tree_bytes(repo)
    refused = uninstall(repo)
    assert refused.returncode == 2
    assert "uncommitted changes" in refused.stderr and refused.stdout == ""
    assert work_tree_bytes(repo) == bytes_before
    listed = uninstall(repo, "--dry-run")  # a dry run still lists, and says it would refuse
    assert listed.returncode == 0 and "a real run would refuse" in listed.stdout


def test_a_malformed_marker_stops_before_any_change(repo: Path) -> None:
    claude = repo / "CLAUDE.md"
    claude.write_text(claude.read_text() + "<!-- eco-mem:begin -->\n", encoding="utf-8")
    commit_all(repo, "a stray marker")
    bytes_before = work_tree_bytes(repo)
    refused = uninstall(repo)
    assert refused.returncode == 2
    assert "CLAUDE.md:" in refused.stderr and "nothing removed" in refused.stderr
    assert work_tree_bytes(repo) == bytes_before


def test_a_second_run_finds_nothing(installed, repo: Path) -> None:
    """With the answers file gone, the operator's second run says so and changes nothing."""
    assert uninstall(repo).returncode == 0
    commit_all(repo, "eco-mem removed")
    bytes_before = work_tree_bytes(repo)
    shown = run_ops(repo, "uninstall", "--help")
    assert shown.returncode == 0 and "exit codes" in shown.stdout
    again = uninstall(repo)
    assert again.returncode == 2 and again.stdout == ""
    assert again.stderr.count("\n") == 1 and "eco-mem is not installed there" in again.stderr
    assert work_tree_bytes(repo) == bytes_before


def test_host_files_under_our_names_stay(host: Path) -> None:
    """A workflow that does not run our verify, and a link elsewhere, are the host's."""
    build_files(host, {".github/workflows/eco-mem.yml": "name: ours, not theirs\n"})
    (host / ".claude/skills/eco-mem").unlink()
    (host / ".claude/skills/eco-mem").symlink_to("../../docs")
    commit_all(host, "host's own files")
    done = uninstall(host)
    assert done.returncode == 0, done.stderr
    assert (host / ".github/workflows/eco-mem.yml").read_text() == "name: ours, not theirs\n"
    assert os.readlink(host / ".claude/skills/eco-mem") == "../../docs"
    assert not (host / ANSWERS).exists() and not (host / SKILL).exists()
    assert not (host / "AGENTS.md").exists()  # it held our block alone: the install made it


def test_outside_git_it_refuses(tmp_path: Path, template_repo: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    copy_template(template_repo, plain)
    refused = uninstall(plain)
    assert refused.returncode == 2 and "not a git work tree" in refused.stderr
    assert (plain / SKILL / "SKILL.md").is_file()


def test_a_settings_file_the_install_created_goes_with_its_hook(host: Path) -> None:
    """The default install creates .claude/settings.json for the SessionStart hook; with
    the hook out, nothing of the host's is in it, so it goes, and .claude/ with it."""
    settings = host / ".claude/settings.json"
    assert "SessionStart" in settings.read_text(encoding="utf-8")
    done = uninstall(host, "--memory")
    assert done.returncode == 0, done.stderr
    assert not (host / ".claude").exists()


def test_a_normalised_crlf_file_without_a_final_newline_comes_back_byte_for_byte(
    template_repo: Path, tmp_path: Path
) -> None:
    # ShareX's .gitattributes: CRLF line ends, no final newline, and `* text=auto`, so
    # the blob git keeps has LF ends and history cannot tell what the file held.
    host = init_repo(tmp_path / "host")
    original = b"* text=auto\r\n*.png binary\r\n*.sln text eol=crlf"
    (host / ".gitattributes").write_bytes(original)
    (host / "README.md").write_text("# host\n", encoding="utf-8")
    commit_all(host, "host")
    copy_template(template_repo, host)
    commit_all(host, "install eco-mem")
    assert b"eco-mem" in (host / ".gitattributes").read_bytes()

    done = uninstall(host, "--memory")

    assert done.returncode == 0, done.stderr
    assert (host / ".gitattributes").read_bytes() == original


@pytest.mark.parametrize(
    ("command", "replacement"),
    [
        ("upgrade", "`python3 <eco-mem release checkout>/ops.py upgrade --root .`"),
        ("uninstall", "`python3 <eco-mem release checkout>/ops.py uninstall --root .`"),
    ],
)
def test_the_hosts_old_command_names_its_replacement_and_writes_nothing(
    host: Path, command: str, replacement: str
) -> None:
    """The repository keeps no install code: the old command prints the one command that
    replaces it, in one line, and exits 2, whatever options it used to take."""
    before = work_tree_bytes(host)

    for args in ([], ["--dry-run"], ["--template", "somewhere", "--", "--defaults"]):
        result = run_script(host, command, *args)

        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert result.stdout == ""
        assert result.stderr.count("\n") == 1 and replacement in result.stderr, result.stderr
        assert result.stderr.startswith(f"eco_mem.pyz {command}: ")
    assert work_tree_bytes(host) == before
    assert git(host, "status", "--porcelain") == ""
