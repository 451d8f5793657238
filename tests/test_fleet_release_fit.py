"""A release the fleet cannot run is refused once, up front, in one line: before any
clone is refreshed, any repository rendered, or any log written. The published
releases before the fleet lack `ops.py`, which the fleet runs from the release.

Real all-repos, real git, local bare origins.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fleet import clone_all, heads, make_origin, run_module, write_config
from tests.helpers import git, snapshot_template


def without_ops(repo: Path) -> None:
    """A release from before the fleet: no ops.py at its root."""
    (repo / "ops.py").unlink()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """v1.0.0 has no ops.py (older than the fleet); v2.0.0 has everything."""
    repo = tmp_path_factory.mktemp("fit") / "eco-mem"
    snapshot_template(repo, "v1.0.0", mutate=without_ops)
    snapshot_template(repo, "v2.0.0")
    return repo


def readme_only(_: Path) -> None:
    """A repository with a README and no eco-mem."""


@pytest.mark.parametrize("program", ["install", "upgrade", "status"])
def test_a_release_older_than_the_fleet_is_refused_up_front_in_one_line(
    template: Path, tmp_path: Path, program: str
) -> None:
    origin = make_origin(tmp_path, "svc", readme_only)
    config = write_config(tmp_path, {"svc": str(origin)})
    clone_all(config)
    clone = tmp_path / "clones" / "svc"
    # A commit on origin the clone has not fetched: a refresh would move the clone.
    git(tmp_path / "seeds" / "svc", "commit", "-q", "--allow-empty", "-m", "later")
    git(tmp_path / "seeds" / "svc", "push", "-q", str(origin), "master")
    clone_head, before = git(clone, "rev-parse", "HEAD"), heads({"svc": origin})
    log, report = tmp_path / "run.log", tmp_path / "report.jsonl"
    extra = () if program == "status" else ("--log", str(log), "--report", str(report))

    done = run_module(
        *(f"eco_mem_fleet.{program}", "-C", str(config), "--template", str(template)),
        *("--vcs-ref", "v1.0.0", *extra),
    )

    lines = done.stderr.splitlines()
    assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
    assert len(lines) == 1 and "v1.0.0" in lines[0], lines
    assert "cannot be run by this fleet: it has no ops.py" in lines[0]
    assert git(clone, "rev-parse", "HEAD") == clone_head  # not even refreshed
    assert heads({"svc": origin}) == before
    assert not log.exists() and not report.exists()


def test_the_newest_release_is_run_when_it_fits(template: Path, tmp_path: Path) -> None:
    origin = make_origin(tmp_path, "svc", readme_only)
    config = write_config(tmp_path, {"svc": str(origin)})
    clone_all(config)

    done = run_module(
        *("eco_mem_fleet.install", "-C", str(config), "--template", str(template)),
        *("--log", str(tmp_path / "install.log")),
    )

    assert done.returncode == 0, done.stdout + done.stderr
    assert "svc: installed (install - -> v2.0.0)" in done.stderr
