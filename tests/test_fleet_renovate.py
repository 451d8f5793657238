"""Renovate's copier manager on an installed host: the same guarantees as `upgrade`.

Renovate (lib/modules/manager/copier/artifacts.ts) runs, in the folder of the
answers file, with `allowScripts` on and `ignoreScripts` off:

    copier update --skip-answered --defaults --trust --answers-file <basename> --vcs-ref <tag>

then commits whatever `git status` shows, conflicted files included with a
notice. These tests run that exact line through a shell, as Renovate does,
and check what lands: team rows byte for byte, the AGENTS.md block
refreshed, a deleted INDEX restored, and conflicts visible to git.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fleet import TEAM_MEMORY, TEAM_ROWS, two_releases
from tests.helpers import (
    ANSWERS,
    MEMORY,
    SKILL,
    build_files,
    commit_all,
    copy_template,
    git,
    replace_in,
    run_script,
)

pytestmark = pytest.mark.start_early(seconds=85)  # see tests/conftest.py

RENOVATE_COMMAND = (
    f"copier update --skip-answered --defaults --trust --answers-file {ANSWERS} --vcs-ref v2.0.0"
)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_releases(tmp_path_factory.mktemp("renovate-template") / "eco-mem")


def renovate(host: Path) -> subprocess.CompletedProcess:
    """Renovate's exec: `/bin/sh -c COMMAND` in the answers file's folder, copier on PATH."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return subprocess.run(
        ["/bin/sh", "-c", RENOVATE_COMMAND],
        cwd=host,
        env={**os.environ, "PATH": path},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def installed_v1(template: Path, host: Path) -> Path:
    copy_template(template, host, vcs_ref="v1.0.0")
    commit_all(host, "install eco-mem v1")
    return host


def test_team_rows_and_entries_byte_for_byte_and_blocks_refreshed(
    template: Path, dst: Path
) -> None:
    host = installed_v1(template, dst)
    build_files(host, TEAM_MEMORY)
    for drawer, row in TEAM_ROWS.items():
        with (host / MEMORY / drawer / "INDEX.md").open("a", encoding="utf-8") as index:
            index.write(row)
    commit_all(host, "team memory")
    team = {path: (host / path).read_bytes() for path in TEAM_MEMORY}

    result = renovate(host)

    assert result.returncode == 0, result.stderr
    for path, content in team.items():
        assert (host / path).read_bytes() == content, path
    for drawer, row in TEAM_ROWS.items():
        assert (host / MEMORY / drawer / "INDEX.md").read_text().endswith(row)
    # The blocks after-migration fired on this tag-to-tag update.
    # A block that is the whole file opens with a level-one heading (markdownlint).
    assert "\n# Memory for agents (eco-mem)\n" in (host / "AGENTS.md").read_text()
    assert "_commit: v2.0.0" in (host / ANSWERS).read_text()
    assert git(host, "diff", "--name-only", "--diff-filter=U") == ""
    assert run_script(host, "verify", "--today", "2026-11-30").returncode == 0


def test_a_deleted_index_is_restored_by_the_plain_update(template: Path, dst: Path) -> None:
    host = installed_v1(template, dst)
    (host / MEMORY / "episodic/INDEX.md").unlink()
    commit_all(host, "lost the episodic INDEX")

    result = renovate(host)

    assert result.returncode == 0, result.stderr
    restored = (host / MEMORY / "episodic/INDEX.md").read_text()
    assert "## Catalog" in restored
    # What Renovate then commits: the file shows up as new in git status.
    assert f"?? {MEMORY}/episodic/INDEX.md" in git(host, "status", "--porcelain", "-uall")


def test_a_conflict_stays_visible_to_git_and_in_the_file(template: Path, dst: Path) -> None:
    host = installed_v1(template, dst)
    replace_in(host / SKILL / "SKILL.md", "\n# eco-mem\n", "\n# eco-mem, our fork\n")
    commit_all(host, "fork the protocol")

    result = renovate(host)

    # Copier exits 0 over a conflict; Renovate finds it through git status.
    assert result.returncode == 0, result.stderr
    assert git(host, "diff", "--name-only", "--diff-filter=U").split() == [f"{SKILL}/SKILL.md"]
    skill = (host / SKILL / "SKILL.md").read_text()
    assert "<<<<<<< " in skill and "our fork" in skill and "eco-mem, v2" in skill
