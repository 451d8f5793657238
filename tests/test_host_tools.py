"""The formatters, linters and spell checkers a host runs over everything, with their
defaults, find nothing in what eco-mem installed and in the memory its commands wrote.

One bare host (no config for any tool), rendered once with the CI workflows, then a
fact, an episode, two procedures, a package store with a fact and a travelling desk
written through the commands.
Each tool then runs once from the host root, as the host's CI would. The npm tools come
from .ci/run's pinned install into .ci/node-tools, which the tests run themselves when a
tool is missing (node_tools.py); typos and codespell from the test extra.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from extensions.answers import answers_yaml

from .helpers import (
    MEMORY,
    SKILL,
    commit_all,
    copy_template,
    git,
    init_repo,
    run_ops,
    run_script,
)
from .node_tools import missing_or_skip, node_tool, package_script, pinned_packages

KNOWN = {"markdownlint-cli2": set()}


def python_tool(name: str) -> str:
    path = Path(sys.executable).with_name(name)
    if not path.is_file():
        pytest.fail(f"{name} is missing: pip install -e '.[test]'")
    return str(path)


@pytest.fixture(scope="module")
def host(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    host = init_repo(tmp_path_factory.mktemp("tools") / "host")
    copy_template(template_repo, host, ci="github-actions")
    (host / "scripts").mkdir()
    (host / "scripts/release.sh").write_text("#!/bin/sh\necho release\n", encoding="utf-8")
    (host / "ruff.toml.sample").write_text("line-length = 100\n", encoding="utf-8")
    commit_all(host, "install eco-mem")
    writes = [
        ("semantic", "--title", "The formatter is ruff format with line length 100",
         "--source", "verified", "--scope", "the whole repository", "--expires", "never",
         "--body", "Ruff formats Python here, with lines of at most 100 characters as the"
         " sample config says; wider lines fail the format check.",
         "--cite", 'ruff.toml.sample "line-length = 100"'),
        ("semantic", "--title", "Releases go out on Tuesdays", "--source", "derived",
         "--scope", "release process", "--expires", "2027-06-01",
         "--body", "The team ships on Tuesdays so that reviews land on Monday."),
        ("episodic", "--title", "Flaky migration test",
         "--context", "CI failed twice on the migration test after a dependency bump.",
         "--action", "Pinned the database image and ran the job again.",
         "--result", "The test passed three times in a row.",
         "--lesson", "Pin the database image when a migration test turns flaky."),
        ("procedural", "--name", "Cut a release", "--use-when", "shipping a new version",
         "--points-to", "scripts/release.sh"),
    ]  # fmt: skip
    for args in writes:
        assert run_script(host, "new", *args).returncode == 0, args
    checklist = host / "checklist.txt"
    checklist.write_text("- [ ] bump the version\n- [ ] tag the commit\n", encoding="utf-8")
    done = run_script(
        host, "new", "procedural", "--name", "Rotate the deploy key",
        "--use-when", "a deploy key is older than a year", "--checklist-file", "checklist.txt",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    checklist.unlink()
    # A package store: init writes its drawers, tool settings and AGENTS.md block.
    (host / "packages/api").mkdir(parents=True)
    (host / "packages/api/notes.txt").write_text("The api package.\n", encoding="utf-8")
    assert run_script(host, "init", "packages/api").returncode == 0
    done = run_script(
        host, "new", "semantic", "--store", "packages/api",
        "--title", "The api package answers in JSON only", "--source", "derived",
        "--scope", "packages/api", "--expires", "never",
        "--body", "Every handler in this package returns JSON.",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    git(host, "checkout", "-q", "-b", "task/login")
    done = run_script(
        host, "new", "working", "--title", "Fix the login redirect",
        "--goal", "login returns to the page the user came from", "--travel",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    commit_all(host, "memory")
    assert git(host, "status", "--porcelain") == ""
    return host


def run(host: Path, *command: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, cwd=host, capture_output=True, text=True, stdin=subprocess.DEVNULL
    )


def test_the_host_holds_what_the_commands_wrote(host: Path) -> None:
    tracked = git(host, "ls-files").split()
    memory = [path for path in tracked if "/memory/" in path and not path.endswith("INDEX.md")]
    assert len([path for path in memory if path.endswith(".md")]) == 6, memory  # one per write
    assert "packages/api/AGENTS.md" in tracked
    assert f"{SKILL}/scripts/eco_mem.pyz" in tracked  # the runtime: one file, not source


def test_prettier(host: Path) -> None:
    done = run(host, node_tool("prettier"), "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


# Hosts pin their own prettier: starlight's 3.3.3 wanted a blank line before our end
# marker that the current one does not ask for. .ci/run installs it under this alias.
PRETTIER_PINNED_BY_HOSTS = ("prettier-3.3.3",)


@pytest.mark.parametrize("package", ["prettier", *PRETTIER_PINNED_BY_HOSTS])
def test_prettier_versions_hosts_pin_leave_our_blocks_unchanged(host: Path, package: str) -> None:
    script = package_script(package, "bin/prettier.cjs")
    blocks = ["AGENTS.md", "CLAUDE.md", "packages/api/AGENTS.md"]
    done = run(host, "node", str(script), "--check", *blocks)
    assert done.returncode == 0, done.stdout + done.stderr


def test_oxfmt(host: Path) -> None:
    done = run(host, node_tool("oxfmt"), "--check", ".")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("command", ["format", "check"])
def test_biome_with_its_defaults_over_the_whole_render(host: Path, command: str) -> None:
    """Biome's default indent is tabs, prettier's and oxfmt's two spaces: the
    .claude/settings.json the install makes holds only our hook, and the nested
    .claude/biome.jsonc beside it keeps Biome off it. The walk also reaches the skill
    through the .claude/skills link, where the skill's own biome.jsonc must still apply."""
    assert (host / ".claude/settings.json").is_file() and (
        host / ".claude/skills/eco-mem"
    ).is_symlink()
    done = run(host, node_tool("biome"), command, "--colors=off", ".")
    flagged = set(re.findall(r"^(\S+?)(?::\d+:\d+)? \S+ ━", done.stdout + done.stderr, re.M))
    assert flagged == set() and done.returncode == 0, done.stdout + done.stderr


def test_markdownlint(host: Path) -> None:
    done = run(host, node_tool("markdownlint-cli2"), "**/*.md")
    found = re.findall(r"^(\S+?):\d+(?::\d+)? \S+ (MD\d+)", done.stdout + done.stderr, re.M)
    assert {f"{path}: {rule}" for path, rule in found} == KNOWN["markdownlint-cli2"], done.stderr


def test_typos_with_hidden_files(host: Path) -> None:
    typos = python_tool("typos")
    walked = run(host, typos, "--hidden", "--exclude", ".git", "--format", "brief", ".")
    assert walked.returncode == 0, walked.stdout + walked.stderr
    # pre-commit names every file: the walk's .ignore files do not apply then.
    named = subprocess.run(
        [typos, "--hidden", "--format", "brief", "--file-list", "-"],
        cwd=host,
        input=git(host, "ls-files"),
        capture_output=True,
        text=True,
    )
    assert named.returncode == 0, named.stdout + named.stderr


def test_codespell_with_hidden_files(host: Path) -> None:
    done = run(host, python_tool("codespell"), "--check-hidden", "--skip", ".git", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_strict_python_tools_find_no_python_of_ours(host: Path) -> None:
    """black, flake8, isort and mypy --strict as a strict host's pre-commit runs them:
    on every tracked .py file. A render holds none (the runtime is eco_mem.pyz), and the
    tools still run on the list, so a .py that comes back fails here."""
    tracked = [path for path in git(host, "ls-files", "*.py").split("\n") if path]
    said = {}
    for name, *options in (
        ("black", "--check"),
        ("flake8",),
        ("isort", "--check-only"),
        ("mypy", "--strict"),
    ):
        tool = python_tool(name)  # each is pinned in the test extra
        if tracked:  # given no file, each of them stops with a usage error
            done = run(host, tool, *options, "--", *tracked)
            if done.returncode != 0:
                said[name] = done.stdout + done.stderr
    assert said == {} and tracked == [], (tracked, said)


def test_ruff_every_rule_and_format(host: Path) -> None:
    ruff = python_tool("ruff")
    linted = run(host, ruff, "check", "--select", "ALL", ".")
    assert linted.returncode == 0, linted.stdout + linted.stderr
    formatted = run(host, ruff, "format", "--check", ".")
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr


def test_uninstall_takes_the_tool_settings_away(host: Path, tmp_path: Path) -> None:
    copy = tmp_path / "host"
    shutil.copytree(host, copy, symlinks=True)
    done = run_ops(copy, "uninstall")
    assert done.returncode == 0, done.stdout + done.stderr
    names = {".prettierrc.yaml", ".oxfmtrc.json", "biome.jsonc", ".markdownlint.yaml"}
    left = [path for path in copy.rglob("*") if path.name in names | {"_typos.toml"}]
    assert left == []
    # The kept memory is the team's now; the files eco-mem made for its block are gone.
    assert (copy / MEMORY / "semantic" / "INDEX.md").is_file()
    assert not (copy / "AGENTS.md").exists() and not (copy / "CLAUDE.md").exists()


def test_an_edited_tool_settings_file_in_memory_fails_verify(host: Path, tmp_path: Path) -> None:
    """The memory folder is data a branch changes; a settings file there that names a
    plugin would have the host's own prettier load it. verify holds them to our bytes."""
    copy = tmp_path / "host"
    shutil.copytree(host, copy, symlinks=True)
    assert "structure.tool-settings" not in run_script(copy, "verify").stdout
    for package in ("", "packages/web/"):
        settings = copy / package / MEMORY / ".prettierrc.yaml"
        if not settings.is_file():
            continue
        settings.write_text(settings.read_text() + "plugins:\n  - ./evil.mjs\n")
    done = run_script(copy, "verify")
    assert done.returncode == 1 and "error [structure.tool-settings]" in done.stdout, done.stdout


def test_every_tool_settings_file_we_ship_is_held_to_the_release_wherever_it_sits(
    host: Path, tmp_path: Path
) -> None:
    """One table says what we ship and where (SHIPPED_TOOL_FILES): the memory root of
    every store, the skill folder, its scripts. An edit of any of them is a finding that
    names it, so a `plugins:` line cannot ride in beside the skill either."""
    from extensions.protocol import _contracts

    copy = tmp_path / "host"
    shutil.copytree(host, copy, symlinks=True)
    memories = [MEMORY, f"packages/api/{MEMORY}"]  # the fixture's `init` made the second
    folders = {"memory": memories, "skill": [SKILL], "scripts": [f"{SKILL}/scripts"]}
    edited = []
    for place, names in _contracts.SHIPPED_TOOL_FILES.items():
        for folder in folders[place]:
            for name in names:
                settings = copy / folder / name
                assert settings.is_file(), f"{folder}/{name} is shipped but absent"
                settings.write_text(settings.read_text() + "plugins:\n  - ./evil.mjs\n")
                edited.append(f"{folder}/{name}")
    done = run_script(copy, "verify", "--json")
    found = {
        f["path"]
        for f in json.loads(done.stdout)["findings"]
        if f["rule"] == "structure.tool-settings"
    }
    assert sorted(found) == sorted(edited)


def test_an_answers_file_whose_commit_is_all_digits_passes_prettier(tmp_path: Path) -> None:
    # A short commit id of digits alone reads as a number, so YAML quotes it; prettier
    # and oxfmt want double quotes there, where PyYAML's own choice is single ones.
    answers = {"_commit": "8189951", "_src_path": "/srv/eco-mem", "ci": "none", "x": "yes"}
    (tmp_path / ".copier-answers.eco-mem.yml").write_text(
        "# Written by Copier for eco-mem.\n" + answers_yaml(answers), encoding="utf-8"
    )
    done = run(tmp_path, node_tool("prettier"), "--check", ".copier-answers.eco-mem.yml")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_tests_bring_the_npm_tools_or_say_why_and_ci_never_skips(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh clone has no .ci/node-tools: the tests install .ci/run's pinned line
    themselves. Without npm they skip with the reason, and under CI they fail instead."""
    names = {spec.rsplit("@", 1)[0].split("@npm:")[0] for spec in pinned_packages()}
    assert {"prettier", "prettier-3.3.3", "oxfmt", "@biomejs/biome", "markdownlint-cli2"} <= names
    empty = tmp_path / "node-tools"
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm on it
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match="npm is not installed"):
        missing_or_skip(empty)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI must not skip them"):
        missing_or_skip(empty)


def test_a_block_written_before_the_end_marker_blank_line_is_rewritten_by_blocks(
    host: Path, tmp_path: Path
) -> None:
    """Hosts installed before carry blocks with no blank line before the end marker;
    `ops.py blocks` (every update runs it) rewrites them to the shape prettier keeps."""
    copy = tmp_path / "host"
    shutil.copytree(host, copy, symlinks=True)
    end = "<!-- eco-mem:end -->"
    current = {
        name: (copy / name).read_text(encoding="utf-8") for name in ("AGENTS.md", "CLAUDE.md")
    }
    for name, text in current.items():
        assert f"\n\n{end}" in text, name
        (copy / name).write_text(text.replace(f"\n\n{end}", f"\n{end}"), encoding="utf-8")

    done = run_ops(copy, "blocks")

    assert done.returncode == 0, done.stdout + done.stderr
    for name, text in current.items():
        assert (copy / name).read_text(encoding="utf-8") == text, name
