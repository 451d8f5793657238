"""Every repository is a row: a refused push, a clone that cannot fetch and a stale clone
each end in their own row, the others go on, and the summary and report are written.

Real all-repos, real git, local bare origins; nothing is cloned again between the
programs unless a test says so, as when an operator runs install then upgrade.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from tests.fleet import (
    clone_all,
    heads,
    make_origin,
    read_report,
    run_module,
    two_releases,
    write_config,
)

pytestmark = pytest.mark.start_early(seconds=75)  # see tests/conftest.py

REFUSE_PUSHES = "#!/bin/sh\necho 'protected branch: pushes refused' >&2\nexit 1\n"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_releases(tmp_path_factory.mktemp("rows") / "eco-mem")


def nothing(_: Path) -> None:
    """A repository with a README and no eco-mem."""


def fleet_of(root: Path, *names: str) -> tuple[dict[str, Path], Path]:
    origins = {name: make_origin(root, name, nothing) for name in names}
    config = write_config(root, {name: str(origin) for name, origin in origins.items()})
    clone_all(config)
    return origins, config


def install(template: Path, root: Path, config: Path, *args: str):
    report = root / "install.jsonl"
    result = run_module(
        *("eco_mem_fleet.install", "-C", str(config), "--template", str(template)),
        *("--report", str(report), "--log", str(root / "install.log"), *args),
    )
    return result, read_report(report)


def test_a_refused_push_and_a_clone_that_cannot_fetch_are_rows_and_the_rest_goes_on(
    template: Path, tmp_path: Path
) -> None:
    origins, config = fleet_of(tmp_path, "fine", "protected", "gone")
    hook = origins["protected"] / "hooks" / "pre-receive"
    hook.write_text(REFUSE_PUSHES, encoding="utf-8")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    shutil.move(origins["gone"], tmp_path / "moved-away.git")  # its clone can no longer fetch
    before = heads(origins)

    result, rows = install(template, tmp_path, config)

    said = result.stdout + result.stderr
    assert "Traceback" not in said and result.returncode == 1, said
    assert set(rows) == {"fine", "protected", "gone"}
    assert rows["fine"]["result"] == "installed" and rows["fine"]["pushed"]
    protected, gone = rows["protected"]["message"], rows["gone"]["message"]
    # The origin's own words, not a bare CalledProcessError naming the command.
    assert rows["protected"]["result"] == "failed" and "push failed" in protected
    assert "protected branch: pushes refused" in protected and "CalledProcess" not in protected
    assert rows["gone"]["result"] == "failed"
    assert "cannot be brought up to date" in gone
    # git's verdict, not the hint it prints last ("and the repository exists.").
    assert "does not appear to be a git repository" in gone, gone
    assert heads(origins)["protected"] == before["protected"]
    assert "3 repositories" in result.stdout


def test_a_named_clone_whose_fetch_fails_is_a_row_not_a_traceback(
    template: Path, tmp_path: Path
) -> None:
    # --repos skips the selection (and its refresh): all-repos' own clone-and-fetch
    # fails inside its worker, which ended the whole run before.
    origins, config = fleet_of(tmp_path, "fine", "gone")
    shutil.move(origins["gone"], tmp_path / "moved-away.git")
    clones = [str(tmp_path / "clones" / name) for name in ("fine", "gone")]

    result, rows = install(template, tmp_path, config, "--repos", *clones)

    said = result.stdout + result.stderr
    assert "Traceback" not in said and result.returncode == 1, said
    assert rows["fine"]["result"] == "installed"
    assert rows["gone"]["result"] == "failed"
    assert "could not be made or fetched" in rows["gone"]["message"]


def test_upgrade_right_after_install_upgrades_what_install_installed(
    template: Path, tmp_path: Path
) -> None:
    _origins, config = fleet_of(tmp_path, "svc")
    result, rows = install(template, tmp_path, config, "--vcs-ref", "v1.0.0")
    assert rows["svc"]["result"] == "installed", result.stdout + result.stderr
    report = tmp_path / "upgrade.jsonl"

    # No all-repos-clone in between: the clone still shows the repository as it was.
    upgraded = run_module(
        *("eco_mem_fleet.upgrade", "-C", str(config), "--template", str(template)),
        *("--report", str(report), "--log", str(tmp_path / "upgrade.log")),
    )

    row = read_report(report)["svc"]
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
    assert (row["result"], row["before"], row["after"]) == ("upgraded", "v1.0.0", "v2.0.0")
    assert row["pushed"]


def malformed_block(work: Path) -> None:
    """An AGENTS.md whose eco-mem block has no end marker: `ops.py blocks` refuses it."""
    (work / "AGENTS.md").write_text("# svc\n\n<!-- eco-mem:begin -->\nhalf\n", encoding="utf-8")


def test_a_repository_never_installed_reads_from_nothing_when_its_install_fails(
    template: Path, tmp_path: Path
) -> None:
    origin = make_origin(tmp_path, "svc", malformed_block)
    config = write_config(tmp_path, {"svc": str(origin)})
    clone_all(config)

    result, rows = install(template, tmp_path, config)

    row = rows["svc"]
    assert result.returncode == 1 and row["result"] == "failed", result.stdout + result.stderr
    # The render it threw away held an answers file at v2.0.0: the row is from "-".
    assert (row["before"], row["after"]) == ("-", "v2.0.0"), row
    # blocks' own line, named once: what is wrong and where, not a Python exception.
    assert row["message"].startswith("ops.py blocks: AGENTS.md:3: "), row["message"]
    assert row["message"].count("ops.py blocks") == 1 and "Error" not in row["message"]
