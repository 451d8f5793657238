"""Edges found on real repositories (issue 16): files from outside the repository, names
that carry paths, pipes in find's output, and a block written through a link.
Each runs the rendered script in a real git repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import (
    MEMORY,
    PROJECT,
    assert_exit,
    commit_all,
    copy_template,
    git,
    init_repo,
    run_ops,
    run_script,
)
from tests.memory_helpers import mem, refused_rules, rows, snapshot, verify_findings

PROCEDURE = ("new", "procedural", "--name", "Bump deps", "--use-when", "monthly")
CHECKLIST = "Proven on: 2026-10-02\n\n1. run it\n2. commit\n"


def assert_refused_cleanly(result: subprocess.CompletedProcess, rule: str) -> None:
    assert result.returncode == 1, result.stdout + result.stderr
    assert refused_rules(result) == [rule], result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.stderr


# -- 1. --checklist-file reads only regular files inside the repository -----------------


def test_a_checklist_inside_the_repository_is_staged(host: Path) -> None:
    (host / "docs").mkdir()
    (host / "docs/steps.md").write_text(CHECKLIST, encoding="utf-8")

    result = mem(host, *PROCEDURE, "--checklist-file", "docs/steps.md")

    assert result.returncode == 0, result.stderr
    assert (host / MEMORY / "procedural/bump-deps.md").read_text().endswith(CHECKLIST)
    assert verify_findings(host) == []


def test_a_checklist_from_stdin_is_staged(host: Path) -> None:
    result = mem(host, *PROCEDURE, "--checklist-file", "-", stdin=CHECKLIST)

    assert result.returncode == 0, result.stderr
    assert (host / MEMORY / "procedural/bump-deps.md").read_text().endswith(CHECKLIST)


def outside_paths(host: Path, tmp_path: Path) -> dict[str, str]:
    """Each way out, and the rule it must meet."""
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("1. not for memory\n", encoding="utf-8")
    (host / "leak.md").symlink_to(secret)
    (host / "linked").symlink_to(tmp_path, target_is_directory=True)
    (host / "fifo.md").parent.mkdir(exist_ok=True)
    os.mkfifo(host / "fifo.md")
    (host / "big.md").write_text("1. step\n" * 40000, encoding="utf-8")
    return {
        "/etc/passwd": "checklist.outside",
        str(secret): "checklist.outside",
        "../outside-secret.txt": "checklist.outside",
        "leak.md": "checklist.outside",
        "linked/outside-secret.txt": "checklist.outside",
        ".git/config": "checklist.outside",
        "docs/../.git/HEAD": "checklist.outside",
        "fifo.md": "checklist.file",
        "big.md": "checklist.file",
        "missing.md": "checklist.file",
        ".": "checklist.file",
    }


def test_a_checklist_from_outside_the_repository_is_refused(host: Path, tmp_path: Path) -> None:
    cases = outside_paths(host, tmp_path)
    before = snapshot(host)
    for given, rule in cases.items():
        result = mem(host, *PROCEDURE, "--checklist-file", given, timeout=20)
        assert_refused_cleanly(result, rule)
        assert snapshot(host) == before, given
    assert rows(host, "procedural") == []


def test_revise_reads_its_checklist_with_the_same_check(host: Path, tmp_path: Path) -> None:
    assert mem(host, *PROCEDURE, "--checklist-file", "-", stdin=CHECKLIST).returncode == 0
    (host / "leak.md").symlink_to("/etc/hostname")
    before = snapshot(host)

    result = mem(host, "revise", "Bump deps", "--checklist-file", "leak.md")

    assert_refused_cleanly(result, "checklist.outside")
    assert snapshot(host) == before


# -- 2. procedure names are words, not paths ------------------------------------------


@pytest.mark.parametrize("name", ["../../x", "notes/release", "a\\b", ".."])
def test_a_procedure_name_with_path_parts_is_refused(host: Path, name: str) -> None:
    before = snapshot(host)

    result = mem(host, "new", "procedural", "--name", name, "--use-when", "x", "--points-to", ".")

    assert result.returncode == 2, result.stderr
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    assert snapshot(host) == before


# -- 3. find keeps a title's pipe inside its cell ------------------------------------------


def test_find_escapes_pipes_so_each_line_splits_into_its_cells(host: Path) -> None:
    title = "Pipe output through tee | grep"
    args = ("new", "semantic", "--title", title, "--source", "verified", "--scope", "repo")
    assert mem(host, *args, "--expires", "never", "--body", "Checked.").returncode == 0

    line = mem(host, "find", "tee").stdout.strip()

    assert line.split(" | ")[1] == "Pipe output through tee \\| grep"
    assert len(line.split(" | ")) == 4  # path (the slug is its stem), title, as_of, source


# -- 4. blocks names the file whose bytes changed ---------------------------------------


@pytest.fixture
def linked_host(template_repo: Path, tmp_path: Path) -> Path:
    """logfire's layout: CLAUDE.md is the file, AGENTS.md a link to it."""
    host = init_repo(tmp_path / "host")
    (host / "CLAUDE.md").write_text("# Project rules\n\nKeep it short.\n", encoding="utf-8")
    (host / "AGENTS.md").symlink_to("CLAUDE.md")
    commit_all(host, "instructions")
    return host


def test_blocks_through_a_link_names_the_real_file_and_the_link(
    template_repo: Path, linked_host: Path
) -> None:
    copy_template(template_repo, linked_host)
    claude = linked_host / "CLAUDE.md"
    assert (linked_host / "AGENTS.md").is_symlink()
    assert claude.read_text().startswith("# Project rules\n\nKeep it short.\n")
    assert "eco-mem:begin" in claude.read_text() and "@AGENTS.md" not in claude.read_text()
    block = claude.read_text()
    claude.write_text(block.replace("## Agent memory (eco-mem)", "## stale"), encoding="utf-8")

    result = run_ops(linked_host, "blocks")

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "updated: CLAUDE.md (through the link AGENTS.md)"
    assert claude.read_text() == block
    assert run_ops(linked_host, "blocks").stdout.strip() == "blocks already current"
    assert git(linked_host, "status", "--porcelain", "--", "AGENTS.md") == ""


@pytest.mark.parametrize("dangling", [False, True], ids=["to-a-file", "dangling"])
def test_blocks_never_writes_through_a_link_that_leads_out(
    rendered: Path, tmp_path: Path, dangling: bool
) -> None:
    # A host AGENTS.md that links outside the repository (a dotfile, another checkout):
    # following it would append our block to some other file on the machine.
    outside = tmp_path / "elsewhere" / "profile.txt"
    outside.parent.mkdir()
    if not dangling:
        outside.write_text("export PATH=/usr/bin\n", encoding="utf-8")
    host = tmp_path / "copy"
    shutil.copytree(rendered, host, symlinks=True)
    (host / "AGENTS.md").unlink()
    (host / "AGENTS.md").symlink_to(outside)

    result = run_ops(host, "blocks")

    assert_exit(result, 2)
    assert "AGENTS.md is a link leading out of the repository" in result.stderr
    assert outside.exists() is not dangling
    if not dangling:
        assert outside.read_text(encoding="utf-8") == "export PATH=/usr/bin\n"


# -- 6. track settles a nested .gitignore and root rules in one round ---------------------


def test_track_writes_the_root_block_and_every_nested_line_in_one_round(
    template_repo: Path, tmp_path: Path
) -> None:
    from copier.errors import CopierError

    from tests.helpers import build_files

    # OpenShadingLanguage's layout: a tool folder ignoring its skills, and `.claude/` at the root.
    host = init_repo(tmp_path / "host")
    build_files(host, {".agents/.gitignore": "skills/*\n", ".gitignore": ".claude/\n"})
    commit_all(host, "host ignore rules")

    with pytest.raises(CopierError):
        copy_template(template_repo, host)
    root_after_copy = (host / ".gitignore").read_text()
    assert "!/.claude/" in root_after_copy  # the root half is written by the failed copy
    assert (host / ".agents/.gitignore").read_text() == "skills/*\n"  # the host's file, as it was

    advice = run_script(host, "track")
    assert advice.returncode == 1 and "Traceback" not in advice.stderr
    assert "stay on disk" in advice.stderr and "root .gitignore block is already current" in (
        advice.stderr
    )
    lines = [line.strip() for line in advice.stderr.splitlines() if line.startswith("    ")]
    assert lines and all(line.startswith(("!/skills/", "/skills/")) for line in lines)
    assert (host / ".gitignore").read_text() == root_after_copy

    with (host / ".agents/.gitignore").open("a", encoding="utf-8") as nested:
        nested.write("".join(line + "\n" for line in lines))
    clean = run_script(host, "track")
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "")
    assert (host / ".gitignore").read_text() == root_after_copy
    assert run_script(host, "verify").returncode == 0
    git(host, "add", "-A")
    tracked = git(host, "ls-files")
    assert ".claude/skills/eco-mem" in tracked and ".agents/skills/eco-mem/SKILL.md" in tracked


# -- 5. upgrade says how to get Copier with the template's extension ----------------------

SYSTEM_PYTHON = Path("/usr/bin/python3")


def _lacks(python: Path, module: str) -> bool:
    probe = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True)
    return probe.returncode != 0


@pytest.mark.skipif(
    not SYSTEM_PYTHON.is_file() or not _lacks(SYSTEM_PYTHON, "copier_template_extensions"),
    reason="needs a system Python without copier-template-extensions",
)
def test_upgrade_names_the_missing_extension_and_how_to_add_it(
    rendered: Path, tmp_path: Path
) -> None:
    host = tmp_path / "host"
    import shutil

    shutil.copytree(rendered, host, symlinks=True)
    commit_all(host, "install eco-mem")
    # A Copier whose own Python lacks the extension, as `pipx install copier` leaves it.
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "copier").write_text(f"#!{SYSTEM_PYTHON}\nraise SystemExit(3)\n", encoding="utf-8")
    (tools / "copier").chmod(0o755)
    env = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}"}
    script = PROJECT / "ops.py"  # the operator's, from this checkout

    result = subprocess.run(
        # `-- --defaults`: asks for an update, so the up-to-date answer does not apply.
        [sys.executable, "-I", str(script), "upgrade", "--root", str(host), "--", "--defaults"],
        capture_output=True, text=True, env=env, cwd=host,
    )  # fmt: skip

    assert result.returncode == 2, result.stdout + result.stderr  # upgrade: cannot start here
    assert "Traceback" not in result.stderr
    assert "cannot import copier_template_extensions" in result.stderr
    for setup in (
        "pipx inject copier copier-template-extensions",
        "uv tool install copier --with copier-template-extensions",
        "pip install copier copier-template-extensions",
    ):
        assert setup in result.stderr
    assert git(host, "status", "--porcelain") == ""

    if _lacks(SYSTEM_PYTHON, "copier"):  # no copier at all: the same commands
        bare = {**os.environ, "PATH": "/usr/bin:/bin"}
        missing = subprocess.run(
            [str(SYSTEM_PYTHON), "-I", str(script), "upgrade", "--root", str(host), "--", "--defaults"],
            capture_output=True, text=True, env=bare, cwd=host,
        )  # fmt: skip
        assert missing.returncode == 2 and "Traceback" not in missing.stderr
        assert "copier not found" in missing.stderr
        assert "pipx inject copier copier-template-extensions" in missing.stderr
