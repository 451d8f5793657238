"""The fleet's report on the edges of issue 16: a nested .gitignore names its rule in the
result, skipped and failed repositories show versions, and the progress count covers every
repository the summary lists. Real bare origins, real all-repos, no network."""

from __future__ import annotations

import pytest

from tests.fleet import (
    clone_all,
    heads,
    make_origin,
    read_report,
    run_module,
    seed_render,
    two_releases,
    write_config,
)
from tests.helpers import build_files


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("edge-fleet")
    template = two_releases(root / "eco-mem")
    origins = {
        # OpenShadingLanguage's layout: a tool's own .gitignore hides its skills.
        "nested": make_origin(
            root, "nested", lambda work: build_files(work, {".agents/.gitignore": "skills/*\n"})
        ),
        "at-v1": make_origin(root, "at-v1", lambda work: seed_render(template, work, "v1.0.0")),
        "fresh": make_origin(root, "fresh", lambda work: None),
    }
    config = write_config(root, {name: str(path) for name, path in origins.items()})
    clone_all(config)
    report = root / "install.jsonl"
    before = heads(origins)
    result = run_module(
        "eco_mem_fleet.install", "-C", str(config), "--template", str(template),
        "--report", str(report), "--log", str(root / "install.log"),
    )  # fmt: skip
    return result, read_report(report), before, heads(origins)


def test_a_nested_gitignore_failure_carries_its_rule_in_table_and_report(run) -> None:
    result, report, before, after = run
    nested = report["nested"]

    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert nested["result"] == "failed"
    assert ".agents/.gitignore:1 `skills/*` hides .agents/skills/eco-mem" in nested["message"]
    assert "TaskError" not in nested["message"]
    row = next(line for line in result.stdout.splitlines() if line.startswith("nested "))
    assert "`skills/*` hides .agents/skills/eco-mem" in row and "- -> v2.0.0" in row
    assert (nested["before"], nested["after"]) == ("-", "v2.0.0")
    assert after["nested"] == before["nested"]  # nothing pushed


def test_a_skipped_repository_shows_installed_and_target_versions(run) -> None:
    _, report, before, after = run
    skipped = report["at-v1"]

    assert skipped["result"] == "skipped"
    assert (skipped["before"], skipped["after"]) == ("v1.0.0", "v2.0.0")
    assert "eco_mem_fleet.upgrade" in skipped["message"]
    assert after["at-v1"] == before["at-v1"]
    assert report["fresh"]["result"] == "installed"


def test_the_progress_count_covers_every_repository_in_the_summary(run) -> None:
    result, report, _, _ = run
    counters = [line.split("]")[0] + "]" for line in result.stderr.splitlines()]

    assert len(report) == 3 and "3 repositories" in result.stdout
    assert counters == ["[1/3]", "[2/3]", "[3/3]"]  # and nothing else on stderr
