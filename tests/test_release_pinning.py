"""The operator renders only commits it released (SECURITY.md, promise 6).

`copier update` renders the version an answers file's `_commit` names before
the new one, importing that version's Jinja extensions. The template
repository serves more than its releases: here, a pull request nobody merged,
kept under refs/pull/1/head, whose extension leaves a mark when imported.
Whatever a repository's `_commit` says, `upgrade`, `restore-indexes` and the
fleet render only commits a release tag points to, fetched once per run, and
what they render never sees the token the fleet pushes with.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fleet import (
    clone_all,
    heads,
    make_origin,
    read_report,
    release_v2,
    run_module,
    seed_render,
    two_releases,
    write_config,
)
from tests.helpers import (
    ANSWERS,
    MEMORY,
    SKILL,
    built_once,
    copier_cli,
    copy_template,
    git,
    init_repo,
    run_ops,
    run_script,
    snapshot_template,
)

pytestmark = pytest.mark.start_early(seconds=155)  # see tests/conftest.py

TOKEN = "org-token-for-the-push-only"


def unmerged_pull_request(template: Path, mark: Path) -> str:
    """A commit on top of v1.0.0 whose extension writes `mark` (the environment's token
    and HOME) when Copier imports it; kept under refs/pull/1/head, on no branch."""
    work = template.parent / "pull-request"
    git(template, "worktree", "add", "-q", "--detach", str(work), "v1.0.0")
    extension = work / "extensions" / "protocol.py"
    extension.write_text(
        extension.read_text(encoding="utf-8")
        + "\nimport os as _os\n"
        + f"with open({str(mark)!r}, 'a') as _f:\n"
        + "    _f.write(repr((_os.environ.get('GITHUB_TOKEN'), _os.environ.get('HOME'))))\n",
        encoding="utf-8",
    )
    git(work, "commit", "-qam", "Fix a typo")
    commit = git(work, "rev-parse", "HEAD").strip()
    git(template, "update-ref", "refs/pull/1/head", commit)
    git(template, "worktree", "remove", "--force", str(work))
    return commit


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_releases(tmp_path_factory.mktemp("releases") / "eco-mem")


def installed_at_v1(template: Path, host: Path) -> Path:
    """A repository with v1.0.0 installed and committed: rendered once per template,
    then copied (git dir included), as these tests are about what follows."""

    def install(work: Path) -> None:
        (work / "README.md").write_text("# host\n", encoding="utf-8")
        copy_template(template, work, vcs_ref="v1.0.0")
        git(work, "add", "-A")
        git(work, "commit", "-qm", "install eco-mem")

    built_once(init_repo(host), template.parent / "installed-at-v1", install)
    return host


def pin_commit(host: Path, commit: str) -> None:
    """A commit to the repository that changes one line of its answers file."""
    answers = host / ANSWERS
    text = answers.read_text(encoding="utf-8")
    answers.write_text(text.replace("_commit: v1.0.0", f"_commit: {commit}"), encoding="utf-8")
    git(host, "commit", "-qam", "chore: tidy answers")


@pytest.mark.parametrize("named", ["commit", "refs/pull/1/head"])
def test_upgrade_refuses_a_commit_no_release_points_to(
    template: Path, tmp_path: Path, named: str
) -> None:
    mark = tmp_path / "imported"
    evil = unmerged_pull_request(template, mark)
    host = installed_at_v1(template, tmp_path / "host")
    pin_commit(host, evil if named == "commit" else named)
    before = (host / ANSWERS).read_bytes()

    result = run_ops(host, "upgrade", "--vcs-ref", "v2.0.0")

    assert result.returncode == 2, result.stdout + result.stderr
    assert "names no release" in result.stderr and "Traceback" not in result.stderr
    assert not mark.exists(), "the pull request's extension was imported"
    assert (host / ANSWERS).read_bytes() == before
    assert git(host, "status", "--porcelain") == ""
    assert git(host, "ls-files", "-v", ANSWERS).startswith("H ")  # no skip-worktree left


def test_upgrade_renders_a_release_named_by_its_commit_and_keeps_the_source_line(
    template: Path, tmp_path: Path
) -> None:
    host = installed_at_v1(template, tmp_path / "host")
    pin_commit(host, git(template, "rev-parse", "v1.0.0^{commit}").strip())
    source_line = next(
        line
        for line in (host / ANSWERS).read_text(encoding="utf-8").splitlines()
        if line.startswith("_src_path:")
    )

    result = run_ops(host, "upgrade", "--vcs-ref", "v2.0.0")

    assert result.returncode == 0, result.stdout + result.stderr
    answers = (host / ANSWERS).read_text(encoding="utf-8").splitlines()
    assert "_commit: v2.0.0" in answers and source_line in answers
    assert "# eco-mem, v2" in (host / ".agents/skills/eco-mem/SKILL.md").read_text()
    assert git(host, "ls-files", "-v", ANSWERS).startswith("H ")


def test_upgrade_refuses_a_target_that_is_no_release(template: Path, tmp_path: Path) -> None:
    host = installed_at_v1(template, tmp_path / "host")
    result = run_ops(host, "upgrade", "--", "--vcs-ref", "refs/pull/1/head")
    assert result.returncode == 2 and "--vcs-ref 'refs/pull/1/head' names no release" in (
        result.stderr
    )
    assert git(host, "status", "--porcelain") == ""


def test_restore_indexes_renders_only_a_release(template: Path, tmp_path: Path) -> None:
    mark = tmp_path / "imported"
    evil = unmerged_pull_request(template, mark)
    host = installed_at_v1(template, tmp_path / "host")
    pin_commit(host, evil)
    (host / MEMORY / "semantic" / "INDEX.md").unlink()
    git(host, "commit", "-qam", "drop an INDEX")

    result = run_ops(host, "restore-indexes")

    assert result.returncode == 2 and "names no release" in result.stderr
    assert not mark.exists()
    assert not (host / MEMORY / "semantic" / "INDEX.md").exists()


def test_the_fleet_refuses_the_commit_and_renders_releases_without_the_token(
    template: Path, tmp_path: Path
) -> None:
    mark = tmp_path / "imported"
    evil = unmerged_pull_request(template, mark)
    # A released version whose extension records the environment it is imported in:
    # the fleet must render it, and must render it without the token.
    seen = tmp_path / "seen-by-a-render"
    release = tmp_path / "release"
    git(template, "worktree", "add", "-q", "--detach", str(release), "v2.0.0")
    extension = release / "extensions" / "protocol.py"
    extension.write_text(
        extension.read_text(encoding="utf-8")
        + f"\nimport os as _os\nopen({str(seen)!r}, 'a').write("
        + "repr(_os.environ.get('GITHUB_TOKEN')) + ' ' + _os.environ['HOME'] + '\\n')\n",
        encoding="utf-8",
    )
    git(release, "commit", "-qam", "v2.1.0")
    git(release, "tag", "v2.1.0")
    git(template, "worktree", "remove", "--force", str(release))

    def seeded(commit: str):
        def seed(work: Path) -> None:
            seed_render(template, work, "v1.0.0")
            answers = work / ANSWERS
            text = answers.read_text(encoding="utf-8")
            answers.write_text(text.replace("v1.0.0", commit), encoding="utf-8")

        return seed

    origins = {
        "pinned": make_origin(tmp_path, "pinned", seeded(evil)),
        "plain": make_origin(tmp_path, "plain", seeded("v1.0.0")),
    }
    config = write_config(tmp_path, {name: str(origin) for name, origin in origins.items()})
    clone_all(config)
    before = heads(origins)
    report = tmp_path / "report.jsonl"

    result = run_module(
        *("eco_mem_fleet.upgrade", "-C", str(config), "--template", str(template)),
        *("--report", str(report), "--log", str(tmp_path / "log")),
        env={"GITHUB_TOKEN": TOKEN},
    )

    rows = read_report(report)
    assert result.returncode == 1, result.stdout + result.stderr
    assert rows["pinned"]["result"] == "failed"
    assert "names no release" in rows["pinned"]["message"]
    assert rows["plain"]["result"] == "upgraded" and rows["plain"]["after"] == "v2.1.0"
    assert not mark.exists(), "the pull request's extension was imported"
    assert heads(origins)["pinned"] == before["pinned"]
    renders = seen.read_text(encoding="utf-8").splitlines()
    assert renders and all(line.startswith("None ") for line in renders), renders
    assert all(os.path.expanduser("~") != line.split(" ", 1)[1] for line in renders)


def test_a_plain_copier_update_refuses_a_commit_no_release_points_to(
    template: Path, tmp_path: Path
) -> None:
    # Renovate and older installs run Copier themselves; the new version's message
    # filter stops them before the installed version's render imports anything.
    mark = tmp_path / "imported"
    evil = unmerged_pull_request(template, mark)
    host = installed_at_v1(template, tmp_path / "host")
    pin_commit(host, evil)

    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "copier",
            "update",
            "--trust",
            "--defaults",
            "-a",
            ANSWERS,
            "--vcs-ref",
            "v2.0.0",
        ],
        cwd=host,
        capture_output=True,
        text=True,
    )

    assert result.returncode != 0 and "names no release" in result.stderr
    assert "Traceback" not in result.stderr
    assert not mark.exists(), "the pull request's extension was imported"
    assert git(host, "status", "--porcelain") == ""


# Renovate's copier manager: `--skip-answered --defaults`, `--trust` (allowScripts), the
# answers file and the new tag. Copier's --quiet prints no message, so the message's
# check never renders: a --quiet update renders the unreleased commit (SECURITY.md).
RENOVATE = ("--skip-answered", "--defaults", "--trust", "--answers-file", ANSWERS)


@pytest.mark.parametrize("quiet", [False, True], ids=["renovate", "renovate-quiet"])
def test_copier_update_checks_the_installed_release_unless_quiet(
    template: Path, tmp_path: Path, quiet: bool
) -> None:
    mark = tmp_path / "imported"
    host = installed_at_v1(template, tmp_path / "host")
    pin_commit(host, unmerged_pull_request(template, mark))
    command = [sys.executable, "-m", "copier", "update", *RENOVATE, "--vcs-ref", "v2.0.0"]
    result = subprocess.run(command + ["--quiet"] * quiet, cwd=host, capture_output=True, text=True)
    if quiet:
        assert mark.exists(), "--quiet now renders the message: say so in SECURITY.md"
    else:
        assert result.returncode != 0 and "names no release" in result.stderr
        assert not mark.exists(), "the pull request's extension was imported"


def test_an_install_from_an_untagged_commit_moves_to_a_release_by_the_named_command(
    tmp_path: Path,
) -> None:
    """`copier copy --vcs-ref HEAD` (README's demo), or a template with no tag yet,
    records a commit no release names. upgrade never renders it; its refusal names the
    command that renders the release alone over the install, and that command works:
    rows and entries kept, then upgrade is at the newest release."""
    template = snapshot_template(tmp_path / "eco-mem", "v1.0.0")
    snapshot_template(template, "untagged", mutate=lambda repo: None)
    git(template, "tag", "-d", "untagged")
    host = init_repo(tmp_path / "host")
    copy_template(template, host, vcs_ref="HEAD")
    git(host, "add", "-A")
    git(host, "commit", "-qm", "install eco-mem from an untagged commit")
    fact = run_script(
        *(host, "new", "semantic", "--title", "Deploys go to eu-west-1", "--source"),
        *("verified", "--scope", "deploy", "--expires", "never", "--body", "eu-west-1."),
    )
    assert fact.returncode == 0, fact.stderr
    git(host, "add", "-A")
    git(host, "commit", "-qm", "a fact")
    row = read_row(host)
    snapshot_template(template, "v2.0.0", mutate=release_v2)

    refused = run_ops(host, "upgrade")

    assert refused.returncode == 2 and "names no release" in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    command = shlex.split(refused.stderr.split("then commit: ", 1)[1])
    assert command[:2] == ["copier", "recopy"] and "v2.0.0" in command
    moved = copier_cli(*command[1:], cwd=host)
    assert moved.returncode == 0, moved.stderr
    assert "_commit: v2.0.0" in (host / ANSWERS).read_text(encoding="utf-8")
    assert read_row(host) == row
    assert "# eco-mem, v2" in (host / SKILL / "SKILL.md").read_text(encoding="utf-8")
    git(host, "add", "-A")
    git(host, "commit", "-qm", "eco-mem v2.0.0")
    current = run_ops(host, "upgrade")
    assert current.returncode == 0 and "already at v2.0.0" in current.stdout, current.stderr


def read_row(host: Path) -> str:
    """The fact's catalog row."""
    index = (host / MEMORY / "semantic" / "INDEX.md").read_text(encoding="utf-8")
    return next(line for line in index.splitlines() if "deploys-go-to-eu-west-1" in line)
