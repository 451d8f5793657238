"""Rollouts as large organisations run them: a canary wave (--limit, --repos), a push
that only proposes (a branch on origin, as a pull-request push module makes), a
rehearsal (all-repos' readonly push module), and a summary a person reads in one
screen however much all-repos logs.

Real all-repos, real git, local bare origins, no network.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.fleet import clone_all, heads, make_origin, read_report, run_module, two_releases
from tests.helpers import git

pytestmark = pytest.mark.start_early(seconds=130)  # see tests/conftest.py

BRANCH = "all-repos_autofix_eco-mem-install"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_releases(tmp_path_factory.mktemp("waves") / "eco-mem")


def nothing(_: Path) -> None:
    """A repository with a README and no eco-mem."""


def fleet_of(
    root: Path, names: tuple[str, ...], push: str = "all_repos.push.merge_to_master"
) -> tuple[dict[str, Path], Path]:
    origins = {name: make_origin(root, name, nothing) for name in names}
    (root / "repos.json").write_text(json.dumps({n: str(o) for n, o in origins.items()}))
    config = root / "all-repos.json"
    config.write_text(
        json.dumps(
            {
                "output_dir": str(root / "clones"),
                "source": "all_repos.source.json_file",
                "source_settings": {"filename": str(root / "repos.json")},
                "push": push,
                "push_settings": {},
            }
        )
    )
    config.chmod(0o600)
    clone_all(config)
    return origins, config


def install(template: Path, root: Path, config: Path, *args: str, log: str = "install.log"):
    report = root / "install.jsonl"
    result = run_module(
        *("eco_mem_fleet.install", "-C", str(config), "--template", str(template)),
        *("--report", str(report), "--log", str(root / log), *args),
    )
    return result, read_report(report)


def changed(before: dict[str, str], origins: dict[str, Path]) -> set[str]:
    after = heads(origins)
    return {name for name in origins if after[name] != before[name]}


def test_a_canary_wave_by_limit_then_the_rest(template: Path, tmp_path: Path) -> None:
    origins, config = fleet_of(tmp_path, ("a", "b", "c"))
    before = heads(origins)

    result, rows = install(template, tmp_path, config, "--limit", "1")

    assert result.returncode == 0, result.stdout + result.stderr
    assert len(changed(before, origins)) == 1 and len(rows) == 1
    assert "2 more to act on, left for a later run by --limit 1" in result.stdout
    assert "\n1 repository: 1 installed" in result.stdout  # not "1 repositories"

    rest, rows = install(template, tmp_path, config)

    assert rest.returncode == 0, rest.stdout + rest.stderr
    assert changed(before, origins) == {"a", "b", "c"}
    assert sorted(row["result"] for row in rows.values()) == ["installed", "installed", "skipped"]


def test_repos_names_the_wave_for_install_and_status(template: Path, tmp_path: Path) -> None:
    origins, config = fleet_of(tmp_path, ("a", "b", "c"))
    before = heads(origins)

    result, rows = install(template, tmp_path, config, "--repos", str(tmp_path / "clones" / "b"))

    assert result.returncode == 0, result.stdout + result.stderr
    assert changed(before, origins) == {"b"} and set(rows) == {"b"}
    status = run_module(
        *("eco_mem_fleet.status", "-C", str(config), "--template", str(template)),
        *("--json", "--repos", "b"),
    )
    repos = json.loads(status.stdout)["repos"]
    assert [(row["repo"], row["ok"]) for row in repos] == [("b", True)], status.stderr
    limited = run_module(
        *("eco_mem_fleet.status", "-C", str(config), "--template", str(template)),
        *("--json", "--limit", "2"),
    )
    assert {row["repo"] for row in json.loads(limited.stdout)["repos"]} == {"a", "b"}


def test_a_pull_request_style_push_leaves_the_default_branch_alone(
    template: Path, tmp_path: Path
) -> None:
    # tests/branch_push.py pushes the branch as github_pull_request does, with no API.
    origins, config = fleet_of(tmp_path, ("a", "b"), push="tests.branch_push")
    before = {name: git(origin, "rev-parse", "master") for name, origin in origins.items()}

    result, rows = install(template, tmp_path, config)

    assert result.returncode == 0, result.stdout + result.stderr
    for name, origin in origins.items():
        assert git(origin, "rev-parse", "master") == before[name]
        proposed = git(origin, "ls-tree", "-r", "--name-only", BRANCH)
        assert ".copier-answers.eco-mem.yml" in proposed.splitlines()
        assert rows[name]["result"] == "installed" and rows[name]["pushed"]

    # Next week's run: the pull requests are still open, so nothing is pushed over them.
    again, rows = install(template, tmp_path, config, log="again.log")
    assert again.returncode == 0 and {row["result"] for row in rows.values()} == {"skipped"}
    assert all("not merged" in row["message"] for row in rows.values())


def test_the_readonly_push_module_is_a_rehearsal_not_a_push(template: Path, tmp_path: Path) -> None:
    origins, config = fleet_of(tmp_path, ("a",), push="all_repos.push.readonly")
    before = heads(origins)

    result, rows = install(template, tmp_path, config)

    assert result.returncode == 0, result.stdout + result.stderr
    assert changed(before, origins) == set()
    assert (rows["a"]["result"], rows["a"]["pushed"]) == ("dry-run", False)
    assert "readonly push module pushes nothing" in rows["a"]["message"]


def test_the_summary_fits_a_screen_and_the_diff_goes_to_the_log(
    template: Path, tmp_path: Path
) -> None:
    names = ("a", "b", "c", "d")
    _origins, config = fleet_of(tmp_path, names)

    result, rows = install(template, tmp_path, config, "-j", "2")

    assert result.returncode == 0 and len(rows) == len(names)
    printed = (result.stdout + result.stderr).splitlines()
    # stderr: one progress line per repository; stdout: header, rule, a row each,
    # the count line and the log's path.
    assert len(printed) <= 2 * len(names) + 4, printed
    assert "4 repositories: 4 installed" in result.stdout
    log = (tmp_path / "install.log").read_text(encoding="utf-8")
    # Each repository's diff as a --stat (a line per file), not the whole skill's text.
    assert "diff --git" not in log and re.search(r"(?m)^ AGENTS\.md +\| +\d+ \+", log)
    assert log.count("\n") < 2000 * len(names), log.count("\n")


def test_the_whole_diffs_reach_the_log_only_when_asked(template: Path, tmp_path: Path) -> None:
    _origins, config = fleet_of(tmp_path, ("a",))

    result, rows = install(template, tmp_path, config, "--log-diffs")

    assert result.returncode == 0 and rows["a"]["result"] == "installed"
    log = (tmp_path / "install.log").read_text(encoding="utf-8")
    assert "diff --git a/.agents/skills/eco-mem/SKILL.md" in log
    # The whole skill, the SKILL.md and INDEX text line by line: why it is not the default.
    assert log.count("\n") > 500


def test_the_local_clone_keeps_the_origins_other_branches_for_the_next_scratch_clone(
    template: Path, tmp_path: Path
) -> None:
    origins, config = fleet_of(tmp_path, ("a",))
    seed = tmp_path / "seeds" / "a"
    git(seed, "checkout", "-q", "-b", "feature")
    (seed / "feature.txt").write_text("work in progress\n", encoding="utf-8")
    git(seed, "add", "feature.txt")
    git(seed, "commit", "-q", "-m", "feature")
    git(seed, "push", "-q", str(origins["a"]), "feature")
    feature = git(seed, "rev-parse", "HEAD").strip()
    clone = tmp_path / "clones" / "a"
    probe = ["git", "-C", str(clone), "cat-file", "-e", feature]
    assert subprocess.run(probe).returncode != 0  # all-repos-clone took the default branch only

    result, rows = install(template, tmp_path, config)

    assert rows["a"]["result"] == "installed", result.stdout + result.stderr
    # all-repos' scratch clone hard-links the local clone's objects: a clone of it now
    # holds the feature branch's commit before any fetch, so its fetch moves refs only.
    scratch = tmp_path / "scratch"
    git(tmp_path, "clone", "-q", str(clone), str(scratch))
    assert git(scratch, "cat-file", "-t", feature) == "commit\n"
    assert git(clone, "branch", "--list") == "* master\n"  # no branch of ours shows


def test_a_title_suffix_reaches_the_commit_a_pull_request_is_titled_by(
    template: Path, tmp_path: Path
) -> None:
    origins, config = fleet_of(tmp_path, ("a",))

    result, rows = install(template, tmp_path, config, "--title-suffix", "[skip changelog]")

    assert result.returncode == 0 and rows["a"]["pushed"], result.stdout + result.stderr
    subjects = git(origins["a"], "log", "--format=%s", "master").splitlines()
    assert "Install eco-mem v2.0.0 [skip changelog]" in subjects, subjects
