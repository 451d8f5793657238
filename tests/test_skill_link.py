"""A clone with core.symlinks=false (Git for Windows' default) writes the Claude Code
skill link as a plain file: verify names it and gives the fix, and the fix works."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers import commit_all, copy_of, copy_template, git, init_repo, run_script

LINK = ".claude/skills/eco-mem"
RULE = "skill.link-checked-out-as-file"


@pytest.fixture(scope="module")
def origin(default_render: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    host = copy_of(default_render, tmp_path_factory.mktemp("origin"))
    commit_all(host, "Install eco-mem")
    return host


def clone(origin: Path, tmp_path: Path, *config: str) -> Path:
    target = tmp_path / "clone"
    git(tmp_path, "clone", "-q", *config, str(origin), str(target))
    return target


def findings(host: Path) -> list[dict]:
    result = run_script(host, "verify", "--json")
    return json.loads(result.stdout)["findings"]


def test_a_link_checked_out_as_a_file_is_named_with_its_fix(origin: Path, tmp_path: Path) -> None:
    host = clone(origin, tmp_path, "-c", "core.symlinks=false")
    assert not os.path.islink(host / LINK) and (host / LINK).is_file()
    assert git(host, "status", "--porcelain") == ""  # git itself sees nothing wrong

    [finding] = [f for f in findings(host) if f["rule"] == RULE]
    assert finding["path"] == LINK and finding["severity"] == "warning"
    assert run_script(host, "verify").returncode == 0  # a warning: commits still pass

    # The fix the message gives, run as written.
    message = finding["message"]
    assert "`git config core.symlinks true`" in message
    restore = f"rm {LINK} && git checkout -- {LINK}"
    assert f"`{restore}`" in message
    git(host, "config", "core.symlinks", "true")
    subprocess.run(restore, shell=True, cwd=host, check=True)
    assert os.path.islink(host / LINK) and (host / LINK / "SKILL.md").is_file()
    assert [f for f in findings(host) if f["rule"] == RULE] == []


def test_the_host_folder_link_checked_out_as_a_file_is_named(
    template_repo: Path, tmp_path: Path
) -> None:
    """`.claude/skills -> ../.agents/skills` is the host's link, and fails the same way."""
    host = init_repo(tmp_path / "host")
    (host / ".agents/skills").mkdir(parents=True)
    (host / ".claude").mkdir()
    (host / ".claude/skills").symlink_to("../.agents/skills")
    copy_template(template_repo, host)
    commit_all(host, "Install eco-mem")
    cloned = clone(host, tmp_path, "-c", "core.symlinks=false")
    assert [(f["path"], f["rule"]) for f in findings(cloned)] == [(".claude/skills", RULE)]


def test_a_real_link_and_a_host_file_of_that_name_are_not_findings(
    origin: Path, tmp_path: Path
) -> None:
    host = clone(origin, tmp_path)
    assert os.path.islink(host / LINK)
    assert findings(host) == []
    # A file there that names no folder is the host's own business, not a lost link.
    (host / LINK).unlink()
    (host / LINK).write_text("notes about skills\n", encoding="utf-8")
    assert findings(host) == []


def test_a_target_outside_the_repository_is_never_looked_for(origin: Path, tmp_path: Path) -> None:
    """A fork's file naming `../../../../root` must not tell CI whether that folder exists."""
    host = clone(origin, tmp_path)
    (host / LINK).unlink()
    (host / LINK).write_text("../../../../../../../../../../" + str(tmp_path).lstrip("/"))
    assert findings(host) == []
