"""The fleet runs only its own code and its own template (issue 27, reproduction 2).

A real all-repos fleet of local origins: one repository commits a changed
`ecomem/__init__.py` (it would leave a marker and print the token), one points its
answers at an attacker's template (whose task and migration would leave a marker),
one names a skill path outside the repository. status, upgrade and install run with
a token in their environment; no marker may appear, the refused repositories are one
line each in the table and report, and nothing is pushed to them.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

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
from tests.helpers import (
    ANSWERS,
    SKILL,
    build_files,
    change_runtime_module,
    replace_in,
)
from tests.test_update_trust import attacker_template

pytestmark = pytest.mark.start_early(seconds=80)  # see tests/conftest.py

TOKEN = "ghp_fleet-token-that-must-not-leak"


def run_fleet(module: str, *args: str) -> subprocess.CompletedProcess:
    """`python -m MODULE`, as an operator runs it, with the org token in the environment."""
    return run_module(module, *args, ci=True, env={"GITHUB_TOKEN": TOKEN})


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("fleet-own-code")
    template = two_releases(root / "eco-mem")
    markers = root / "markers"
    markers.mkdir()
    attacker = attacker_template(root, markers / "attacker-template-ran")
    poison = (
        "import os\n"
        f"open({str(markers / 'repo-code-ran')!r}, 'a').write(os.environ.get('GITHUB_TOKEN', ''))\n"
        "print(os.environ.get('GITHUB_TOKEN'))\n"
    )

    def poisoned(work: Path) -> None:
        seed_render(template, work, "v1.0.0")
        change_runtime_module(work, "ecomem/__init__.py", poison)
        build_files(work, {f"{SKILL}/scripts/argparse.py": poison})

    def other_source(work: Path) -> None:
        seed_render(template, work, "v1.0.0")
        replace_in(work / ANSWERS, f"_src_path: {template}", f"_src_path: {attacker}")

    def escapes(work: Path) -> None:
        seed_render(template, work, "v1.0.0")
        replace_in(work / ANSWERS, "skill_path: .agents/skills", "skill_path: ../../outside")

    origins = {
        "poisoned": make_origin(root, "poisoned", poisoned),
        "other-source": make_origin(root, "other-source", other_source),
        "escapes": make_origin(root, "escapes", escapes),
    }
    config = write_config(root, {name: str(path) for name, path in origins.items()})
    runs = {}
    for label, module, extra in (
        ("status-before", "eco_mem_fleet.status", ["--json"]),
        ("upgrade", "eco_mem_fleet.upgrade", ["--report", str(root / "upgrade.jsonl")]),
        ("status-after", "eco_mem_fleet.status", ["--json"]),
    ):
        clone_all(config)
        before = heads(origins)
        result = run_fleet(module, "-C", str(config), "--template", str(template), *extra)
        runs[label] = (result, before, heads(origins))
    return {
        "runs": runs,
        "markers": markers,
        "report": read_report(root / "upgrade.jsonl"),
        "template": template,
    }


def test_status_and_upgrade_never_run_the_repositorys_code_or_template(fleet) -> None:
    assert sorted(os.listdir(fleet["markers"])) == []
    for result, _, _ in fleet["runs"].values():
        assert TOKEN not in result.stdout + result.stderr


def test_status_verifies_with_its_own_scripts_and_refuses_other_templates(fleet) -> None:
    result, _, _ = fleet["runs"]["status-before"]
    repos = {row["repo"]: row for row in json.loads(result.stdout)["repos"]}
    assert repos["poisoned"]["verify_exit"] is not None  # judged, by the fleet's scripts
    # Judged, and named: its runtime is not the bytes v1.0.0 released.
    assert repos["poisoned"]["problem"] == (
        "scripts differ from v1.0.0's: 2 file(s) (argparse.py, eco_mem.pyz)"
    )
    assert repos["other-source"]["problem"].startswith("refused: its answers name template")
    assert str(fleet["template"]) in repos["other-source"]["problem"]
    assert (
        repos["escapes"]["problem"] == "refused: skill_path '../../outside' leaves the repository"
    )
    assert repos["other-source"]["verify_exit"] is None  # nothing ran there


def test_upgrade_refuses_other_templates_and_pushes_nothing_to_them(fleet) -> None:
    result, before, after = fleet["runs"]["upgrade"]
    report = fleet["report"]
    assert result.returncode == 1, result.stdout + result.stderr
    for name in ("other-source", "escapes"):
        assert report[name]["result"] == "failed", report[name]
        assert report[name]["message"].startswith("refused: ")
        assert before[name] == after[name]
    assert report["poisoned"]["result"] == "upgraded", report["poisoned"]
    assert report["poisoned"]["after"] == "v2.0.0"
