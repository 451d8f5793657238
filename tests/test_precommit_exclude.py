"""The install keeps a host's pre-commit hooks out of eco-mem's files.

Hooks such as ensure-dunder-all read no folder settings: only pre-commit's top-level
`exclude` keeps them out. The real copier installs into hosts with a
.pre-commit-config.yaml (and without one, and with an exclude of their own); the
real pre-commit validates the result and runs a local hook that fails on every file
in a folder, so only the exclude lets it pass; uninstall gives the bytes back.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from .helpers import (
    MEMORY,
    PROJECT,
    SKILL,
    commit_all,
    copy_template,
    git,
    init_repo,
    run_ops,
    run_script,
    update_project,
)

CONFIG = ".pre-commit-config.yaml"
# Fails on any file it is given below the root, as ensure-dunder-all rewrites every
# module: the host's own files sit at the root, so only eco-mem's folders reach it.
HOST_CONFIG = """\
# The team's hooks.
repos:
  - repo: local
    hooks:
      - id: no-nested-files
        name: no nested files
        language: fail
        entry: a hook that rejects every file below the root
        exclude: ^[^/]*$|^\\.claude/settings\\.json$
"""
# Without a final newline: the block must give it back exactly so.
UNTERMINATED = HOST_CONFIG.rstrip("\n")
EXPECTED = (
    r"^(\.agents/skills/eco-mem|\.agents/memory)/|^\.claude/skills/eco-mem$|^\.claude/biome\.jsonc$"
)


def install(tmp_path: Path, template_repo: Path, files: dict[str, str], **data) -> Path:
    host = init_repo(tmp_path / "host")
    for name, text in files.items():
        (host / name).write_bytes(text.encode("utf-8"))
    commit_all(host, "host")
    copy_template(template_repo, host, **data)
    commit_all(host, "install eco-mem")
    return host


def pre_commit(host: Path, *args: str) -> subprocess.CompletedProcess:
    """The real pre-commit from the test venv, with its store inside the test's folder."""
    env = {**os.environ, "PRE_COMMIT_HOME": str(host.parent / "pre-commit-home")}
    return subprocess.run(
        [str(Path(sys.executable).with_name("pre-commit")), *args],
        cwd=host,
        env=env,
        capture_output=True,
        text=True,
    )


def test_install_appends_an_exclude_that_keeps_hooks_out(tmp_path, template_repo):
    host = install(tmp_path, template_repo, {CONFIG: HOST_CONFIG})
    text = (host / CONFIG).read_text(encoding="utf-8")
    assert text.startswith(HOST_CONFIG)
    assert text.count("# eco-mem:begin") == 1
    loaded = yaml.safe_load(text)
    assert loaded["exclude"] == EXPECTED
    assert loaded["repos"] == yaml.safe_load(HOST_CONFIG)["repos"]
    checked = pre_commit(host, "validate-config", CONFIG)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = pre_commit(host, "run", "--all-files")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "(no files to check)Skipped" in ran.stdout  # every file below the root excluded
    # docs/install.md shows this very block.
    page = (PROJECT / "docs/install.md").read_text(encoding="utf-8")
    shown = page.split("```yaml\n# eco-mem:begin\n", 1)[1].split("```", 1)[0]
    assert text.endswith("\n# eco-mem:begin\n" + shown)

    # The same hook without the block fails on eco-mem's files: the exclude is what passes.
    (host / CONFIG).write_text(HOST_CONFIG, encoding="utf-8")
    commit_all(host, "drop the exclude")
    failed = pre_commit(host, "run", "--all-files")
    assert failed.returncode == 1
    assert f"{SKILL}/SKILL.md" in failed.stdout and f"{MEMORY}/semantic/INDEX.md" in failed.stdout


def test_a_second_run_and_an_update_change_nothing(tmp_path, template_repo):
    host = install(tmp_path, template_repo, {CONFIG: HOST_CONFIG})
    before = (host / CONFIG).read_bytes()
    assert before.count(b"# eco-mem:begin") == 1
    again = run_ops(host, "blocks")
    assert again.returncode == 0, again.stderr
    assert CONFIG not in again.stdout
    update_project(host)
    assert (host / CONFIG).read_bytes() == before
    assert git(host, "status", "--porcelain", "--", CONFIG) == ""


def test_uninstall_gives_the_config_back_byte_for_byte(tmp_path, template_repo):
    host = install(tmp_path, template_repo, {CONFIG: UNTERMINATED})
    assert "# eco-mem:end" in (host / CONFIG).read_text(encoding="utf-8")
    done = run_ops(host, "uninstall")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (host / CONFIG).read_bytes() == UNTERMINATED.encode("utf-8")


def test_the_hosts_own_exclude_is_left_alone_and_named(tmp_path, template_repo):
    own = "exclude: ^vendor/\n" + HOST_CONFIG
    host = install(tmp_path, template_repo, {CONFIG: own}, claude_code=False)
    assert (host / CONFIG).read_text(encoding="utf-8") == own
    said = run_ops(host, "blocks")
    assert said.returncode == 0
    assert (
        f"{CONFIG} has its own top-level exclude, so eco-mem added none:"
        r" join ^(\.agents/skills/eco-mem|\.agents/memory)/ to it with |"
    ) in said.stderr
    assert (host / CONFIG).read_text(encoding="utf-8") == own


def test_no_config_no_file(dst, template_repo):
    copy_template(template_repo, dst)
    assert not (dst / CONFIG).exists()
    assert not (dst / ".pre-commit-config.yml").exists()


@pytest.mark.parametrize(
    "config",
    [
        pytest.param("{repos: []}\n", id="flow-mapping"),
        pytest.param("repos: []\n---\nrepos: []\n", id="two-documents"),
    ],
)
def test_a_config_a_key_cannot_join_is_left_with_a_line(tmp_path, template_repo, config):
    host = install(tmp_path, template_repo, {".pre-commit-config.yml": config})
    assert (host / ".pre-commit-config.yml").read_text(encoding="utf-8") == config
    said = run_ops(host, "blocks")
    assert "is not one block mapping eco-mem can add a key to" in said.stderr


def test_the_yml_spelling_and_crlf_get_the_block_too(tmp_path, template_repo):
    crlf = "---\r\nrepos: []\r\n"
    host = install(tmp_path, template_repo, {".pre-commit-config.yml": crlf}, claude_code=False)
    data = (host / ".pre-commit-config.yml").read_bytes()
    assert data.startswith(crlf.encode()) and b"\n" not in data.replace(b"\r\n", b"")
    assert yaml.safe_load(data)["exclude"] == r"^(\.agents/skills/eco-mem|\.agents/memory)/"
    checked = pre_commit(host, "validate-config", ".pre-commit-config.yml")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_config_linked_out_of_the_repository_is_neither_written_nor_blocks_uninstall(
    tmp_path, template_repo
):
    outside = tmp_path / "shared-hooks.yaml"
    outside.write_text(HOST_CONFIG, encoding="utf-8")
    host = init_repo(tmp_path / "host")
    (host / CONFIG).symlink_to(outside)
    commit_all(host, "host")
    copy_template(template_repo, host)
    commit_all(host, "install eco-mem")
    assert outside.read_text(encoding="utf-8") == HOST_CONFIG
    said = run_ops(host, "blocks")
    assert said.returncode == 0
    assert "pre-commit exclude was left as it was" in said.stderr
    done = run_ops(host, "uninstall")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (host / CONFIG).is_symlink() and outside.read_text(encoding="utf-8") == HOST_CONFIG


def test_a_package_store_joins_the_exclude_at_the_next_blocks(tmp_path, template_repo):
    host = install(tmp_path, template_repo, {CONFIG: HOST_CONFIG}, claude_code=False)
    (host / "packages/web").mkdir(parents=True)
    made = run_script(host, "init", "packages/web")
    assert made.returncode == 0, made.stdout + made.stderr
    commit_all(host, "a package store")
    assert run_ops(host, "blocks").returncode == 0
    loaded = yaml.safe_load((host / CONFIG).read_text(encoding="utf-8"))
    assert loaded["exclude"] == (
        r"^(\.agents/skills/eco-mem|\.agents/memory|packages/web/\.agents/memory)/"
    )
