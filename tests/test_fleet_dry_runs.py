"""eco_mem_fleet's dry runs over the local fleet of tests/test_fleet.py: a dry install
of the seeded fleet and, after the real install, a dry upgrade with --diff.

The dry runs push nothing, so the story in tests/test_fleet.py does not need them
before its own steps; on a fleet of their own they run on another xdist worker, from
the same states (the seeds, then the same install) as they did inside the story, for
the three situations they look at.
"""

from __future__ import annotations

import re

import pytest

from tests.fleet import Fleet, install, results, two_releases

pytestmark = pytest.mark.start_early(seconds=330)  # see tests/conftest.py

DRY_RUN_SEEDS = ("fresh", "at-v1", "forked-skill")


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Fleet:
    template = two_releases(tmp_path_factory.mktemp("fleet-template") / "eco-mem")
    # The situations the assertions read: an install's, an upgrade's, a conflict's.
    fleet = Fleet(tmp_path_factory.mktemp("fleet"), template, only=DRY_RUN_SEEDS)
    fleet.run("install-dry", "eco_mem_fleet.install", "--template", str(template), "--dry-run")
    install(fleet)
    fleet.run(
        *("upgrade-dry", "eco_mem_fleet.upgrade", "--template", str(template)),
        *("--dry-run", "--diff"),
        ci=True,
        log=False,
    )
    return fleet


def test_dry_runs_push_nothing(fleet: Fleet) -> None:
    for label, would in (("install-dry", "installed"), ("upgrade-dry", "upgraded")):
        _, outcomes, before, after = fleet.runs[label]
        assert before == after, label
        dry = [row for row in outcomes.values() if row["result"] == "dry-run"]
        assert dry and all(not row["pushed"] for row in dry)
        assert all(f"would be {would}" in row["message"] for row in dry)
    # What each repository would get, in its row.
    fresh = fleet.runs["install-dry"][1]["fresh"]["message"]
    assert "adds " in fresh and ".agents/ " in fresh, fresh
    assert "changes " in fleet.runs["upgrade-dry"][1]["at-v1"]["message"]
    assert results(fleet, "install-dry")["fresh"] == "dry-run"
    assert results(fleet, "upgrade-dry")["at-v1"] == "dry-run"


def test_diffs_go_to_the_log_unless_asked_for(fleet: Fleet) -> None:
    quiet = fleet.runs["install-dry"][0]
    assert "diff --git" not in quiet.stdout + quiet.stderr and "$ git" not in quiet.stdout
    assert len(quiet.stdout.splitlines()) == len(fleet.origins) + 4  # header, rule, tally, log
    log = (fleet.root / "install-dry.log").read_text(encoding="utf-8")
    assert re.search(r"(?m)^ \.agents/skills/eco-mem/SKILL\.md +\| ", log)  # a --stat
    assert "diff --git" not in log  # the whole diffs: --log-diffs
    # --diff: all-repos' log on stdout as it runs, the summary after it, no log file.
    shown = fleet.runs["upgrade-dry"][0]
    assert "diff --git a/.agents/skills/eco-mem/SKILL.md" in shown.stdout
    assert shown.stdout.index("diff --git") < shown.stdout.index("files in conflict")
    assert "log (commands" not in shown.stdout
