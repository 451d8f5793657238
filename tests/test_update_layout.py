"""An install of the last flat-layout release, updated to the family folders.

The release before the restructure (commit 1c4eb1d, every module in one flat
`ecomem/` folder) is taken from this repository's own history, tagged v1.0.0
in a scratch template repo; this working tree is v2.0.0. After the update the
skill folder holds exactly what a fresh v2 install holds: no stale flat module
left behind (`ecomem/store.py` next to `ecomem/store/` would be one), none
missing. Both update paths are driven: plain `copier update` and the host's
own upgrade (`ops.py upgrade`). The source-tree scripts leave: the v2 skill
holds one runtime file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import (
    SKILL,
    assert_no_traceback,
    commit_all,
    copy_template,
    git,
    init_repo,
    run_ops,
    run_script,
    snapshot_template,
    template_from_history,
    update_project,
)

pytestmark = pytest.mark.start_early(seconds=90)  # see tests/conftest.py

FLAT_RELEASE = "1c4eb1d"  # the last commit with the flat ecomem/ layout
PACKAGE = f"{SKILL}/scripts/ecomem"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("layouts") / "eco-mem"
    init_repo(repo)
    template_from_history(repo, FLAT_RELEASE)
    commit_all(repo, "template v1.0.0 (flat layout)")
    git(repo, "tag", "v1.0.0")
    snapshot_template(repo, "v2.0.0")
    return repo


@pytest.fixture(scope="module")
def fresh(template: Path, tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """The skill's files in a fresh v2 install."""
    host = init_repo(tmp_path_factory.mktemp("fresh") / "host")
    copy_template(template, host, vcs_ref="v2.0.0")
    return skill_files(host)


def skill_files(host: Path) -> set[str]:
    root = host / SKILL
    return {
        str(path.relative_to(host))
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def install_v1(template: Path, dst: Path) -> None:
    copy_template(template, dst, vcs_ref="v1.0.0")
    assert (dst / PACKAGE / "store.py").is_file()  # really the flat layout
    commit_all(dst, "install eco-mem v1 (flat)")


def test_copier_update_leaves_exactly_the_new_file_set(
    template: Path, dst: Path, fresh: set[str]
) -> None:
    install_v1(template, dst)

    update_project(dst, vcs_ref="v2.0.0")

    assert skill_files(dst) == fresh
    verify = run_script(dst, "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_the_operators_upgrade_command_leaves_exactly_the_new_file_set(
    template: Path, dst: Path, fresh: set[str]
) -> None:
    install_v1(template, dst)

    # The flat release's install recorded no trust; the operator names the template.
    result = run_ops(dst, "upgrade", "--template", str(template), "--vcs-ref", "v2.0.0")

    assert result.returncode == 0, result.stdout + result.stderr
    assert skill_files(dst) == fresh
    verify = run_script(dst, "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr


TEAM_LINE = "# Team patch: log every verify run to our dashboard."


def test_a_team_edit_to_the_old_source_leaves_with_it(
    template: Path, dst: Path, fresh: set[str]
) -> None:
    # What Copier does, pinned: a file the new release no longer renders is deleted
    # with the team's edit in it. Every module of the source-tree layout leaves (the
    # runtime is one file now), so a team patch goes too. No conflict, exit 0: the
    # loss shows only in `git diff`.
    install_v1(template, dst)
    for name in ("verify.py", "lazy_re.py"):
        path = dst / PACKAGE / name
        path.write_text(path.read_text(encoding="utf-8") + TEAM_LINE + "\n", encoding="utf-8")
    commit_all(dst, "team patch")

    # The flat release's install recorded no trust; the operator names the template.
    result = run_ops(dst, "upgrade", "--template", str(template), "--vcs-ref", "v2.0.0")

    assert result.returncode == 0, result.stdout + result.stderr
    assert_no_traceback(result)
    assert skill_files(dst) == fresh
    assert not (dst / PACKAGE).exists()
    assert f"-{TEAM_LINE}" in git(dst, "diff", "HEAD", "--", f"{PACKAGE}/lazy_re.py")
    status = git(dst, "status", "--porcelain", "--untracked-files=all")
    assert ".rej" not in status and not [line for line in status.splitlines() if line[:2] == "UU"]
