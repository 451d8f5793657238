"""`eco_mem_fleet.status` carries each repository's review: entries per drawer,
findings per kind and load bytes, in its table and in `--report` (Markdown, JSON,
CSV), worst first. Real all-repos clones of local origins; no network."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from benchmarks.data import review_planted
from benchmarks.review import plant
from tests.fleet import clone_all, make_origin, run_module, write_config
from tests.helpers import assert_exit, copy_template


@pytest.fixture(scope="module")
def config(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fleet-review")

    def healthy(work: Path) -> None:
        copy_template(template_repo, work)

    def rotting(work: Path) -> None:
        copy_template(template_repo, work)
        plant(work, review_planted)

    origins = {
        "a-healthy": make_origin(root, "a-healthy", healthy),
        "b-bare": make_origin(root, "b-bare", lambda work: None),
        "z-rotting": make_origin(root, "z-rotting", rotting),
    }
    config = write_config(root, {name: str(path) for name, path in origins.items()})
    (root / "template.txt").write_text(str(template_repo), encoding="utf-8")
    clone_all(config)
    return config


def status(config: Path, *args: str):
    template = (config.parent / "template.txt").read_text(encoding="utf-8")
    return run_module("eco_mem_fleet.status", "-C", str(config), "--template", template, *args)


def test_the_table_shows_the_review_worst_first(config: Path) -> None:
    result = assert_exit(status(config), 1)
    lines = result.stdout.splitlines()
    assert lines[0].split()[7:] == ["review", "entries(w/s/e/p)", "findings", "load", "status"]
    rows = [line.split() for line in lines[2:-1]]
    assert [row[0] for row in rows] == ["z-rotting", "b-bare", "a-healthy"]
    rotting, bare, healthy = rows
    assert int(rotting[7]) >= 9 and rotting[8] == "0/19/36/2"
    assert "pointer-gone:1" in rotting[9] and "contradiction:1" in rotting[9]
    assert healthy[7:10] == ["0", "0/0/0/0", "none"] and int(healthy[10]) > 6000
    assert bare[7:11] == ["-", "-", "-", "-"]


@pytest.mark.parametrize("suffix", [".md", ".json", ".csv"])
def test_the_report_file_in_three_formats(config: Path, tmp_path: Path, suffix: str) -> None:
    report = tmp_path / f"status{suffix}"
    assert_exit(status(config, "--report", str(report)), 1)
    text = report.read_text(encoding="utf-8")
    if suffix == ".json":
        repos = json.loads(text)["repos"]
        assert [row["repo"] for row in repos] == ["z-rotting", "b-bare", "a-healthy"]
        assert repos[0]["findings"]["pointer-gone"] == 1
        assert repos[0]["entries"] == {
            "working": 0,
            "semantic": 19,
            "episodic": 36,
            "procedural": 2,
        }
        assert repos[1]["findings"] is None and repos[2]["findings"]["duplicate"] == 0
        return
    if suffix == ".csv":
        rows = list(csv.DictReader(text.splitlines()))
    else:
        lines = text.splitlines()
        assert set(lines[1]) <= set("|-")
        headers = [cell.strip() for cell in lines[0].strip("|").split("|")]
        rows = [
            dict(zip(headers, (cell.strip() for cell in line.strip("|").split("|"))))
            for line in lines[2:]
        ]
    assert [row["repo"] for row in rows] == ["z-rotting", "b-bare", "a-healthy"]
    rotting, bare, healthy = rows
    assert rotting["findings_pointer-gone"] == "1" and rotting["entries_episodic"] == "36"
    assert int(rotting["load_bytes"]) > int(healthy["load_bytes"]) > 6000
    assert healthy["findings"] == "0"
    assert bare["findings"] in ("", "-")


def test_a_report_of_another_format_is_a_usage_error(config: Path, tmp_path: Path) -> None:
    result = assert_exit(status(config, "--report", str(tmp_path / "status.txt")), 2)
    assert ".md, .json, .csv" in result.stderr


def test_a_repository_past_the_timeout_fails_and_the_run_goes_on(config: Path) -> None:
    """Each command of the fleet's scripts gets --timeout seconds per repository. A
    millisecond is less than Python needs to start, so verify is stopped in every
    installed repository: each is a failed row saying so, and every row is there."""
    result = assert_exit(status(config, "--json", "--timeout", "0.001"), 1)
    repos = {row["repo"]: row for row in json.loads(result.stdout)["repos"]}
    assert sorted(repos) == ["a-healthy", "b-bare", "z-rotting"]
    for name in ("a-healthy", "z-rotting"):
        assert repos[name]["problem"] == "failed: verify timed out after 0.001 s", repos[name]
        assert repos[name]["ok"] is False and repos[name]["findings"] is None
    assert repos["b-bare"]["installed"] is False  # nothing to run there


@pytest.mark.parametrize("seconds", ["0", "-5", "nan"])
def test_a_timeout_that_is_not_above_zero_is_a_usage_error(config: Path, seconds: str) -> None:
    result = assert_exit(status(config, "--timeout", seconds), 2)
    assert "--timeout" in result.stderr and "above 0" in result.stderr
