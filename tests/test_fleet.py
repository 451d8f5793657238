"""eco_mem_fleet over a local fleet: install, a second install, upgrade, status.

Twelve bare "origin" repositories are listed through all-repos' json_file
source and cloned with all-repos-clone; the programs push with merge_to_master.
One module-scoped fleet carries the story (the runs are the expensive part);
every assertion reads the origins, the exit status or the JSON report. The dry
runs, which push nothing, run on a fleet of their own in tests/test_fleet_dry_runs.py,
so that another xdist worker takes them while this one runs the story.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from eco_mem_fleet.versions import is_older
from tests.fleet import (
    ALLOW_LIST,
    TEAM_MEMORY,
    TEAM_ROWS,
    Fleet,
    clone_all,
    heads,
    install,
    make_origin,
    origin_file,
    origin_files,
    read_report,
    results,
    run_module,
    seed_render,
    seeds,
    two_releases,
    write_config,
)
from tests.helpers import (
    ANSWERS,
    MEMORY,
    SKILL,
    assert_no_traceback,
    change_runtime_module,
    git,
    runtime_module,
)

pytestmark = pytest.mark.start_early(seconds=270)  # see tests/conftest.py

INSTALLED = [f"{SKILL}/SKILL.md", f"{SKILL}/scripts/eco_mem.pyz", ANSWERS] + [
    f"{MEMORY}/{drawer}/INDEX.md" for drawer in ("working", "semantic", "episodic", "procedural")
]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return two_releases(tmp_path_factory.mktemp("fleet-template") / "eco-mem")


@pytest.fixture(scope="module")
def fleet(template: Path, tmp_path_factory: pytest.TempPathFactory) -> Fleet:
    """The story, in order; tests below read what each step left. The dry runs start
    from the same states in tests/test_fleet_dry_runs.py, on a fleet of their own."""
    fleet = Fleet(tmp_path_factory.mktemp("fleet"), template)
    fleet.team_before = {
        path: origin_file(fleet.origins["team-memory"], path)
        for path in [*TEAM_MEMORY, *(f"{MEMORY}/{d}/INDEX.md" for d in TEAM_ROWS)]
    }
    install(fleet)
    fleet.run("install-again", "eco_mem_fleet.install", "--template", str(template), ci=True)
    clones = [str(fleet.root / "clones" / name) for name in ("at-v2", "fresh")]
    fleet.run(
        *("install-named", "eco_mem_fleet.install", "--template", str(template)),
        *("--repos", *clones),
        log=False,  # the default: a new log file in the temp folder
    )
    fleet.run("upgrade", "eco_mem_fleet.upgrade", "--template", str(template), "-j", "2")
    clone_all(fleet.config)
    status = ("eco_mem_fleet.status", "-C", str(fleet.config), "--template", str(template))
    fleet.status_table = run_module(*status)
    fleet.status_json = run_module(*status, "--json")
    return fleet


def test_install_outcomes_exit_status_and_report(fleet: Fleet) -> None:
    result, outcomes, before, after = fleet.runs["install"]
    got = results(fleet, "install")
    for name in ("fresh", "agents-md", "other-template", "existing-skill", "main-branch"):
        assert got[name] == "installed", (name, outcomes[name], result.stdout)
        assert outcomes[name]["pushed"] is True
        assert outcomes[name]["after"] == "v2.0.0"
        assert before[name] != after[name]
    for name in ("at-v1", "at-v2", "forked-skill", "team-memory", "deleted-index"):
        assert got[name] == "skipped" and outcomes[name]["message"].startswith("already installed")
        assert outcomes[name]["after"] == "v2.0.0"  # the run's target, beside what it has
        assert before[name] == after[name]
    assert got["unclonable"] == "failed" and "not cloned" in outcomes["unclonable"]["message"]
    assert set(outcomes) == set(fleet.origins)  # one JSON object per repository
    assert result.returncode == 1  # the unclonable repository failed
    assert_no_traceback(result)
    # stdout is the summary alone: the header, a rule, one row per repository, the
    # tally and where the log is; all-repos' commands and diffs are in that log.
    lines = result.stdout.splitlines()
    assert "files in conflict" in lines[0] and set(lines[1]) == {"-", " "}
    assert sorted(line.split()[0] for line in lines[2:-2]) == sorted(fleet.origins)
    assert lines[-2].startswith(f"{len(fleet.origins)} repositories: ")
    assert lines[-1] == f"log (commands, diffs, errors): {fleet.root / 'install.log'}"
    log = (fleet.root / "install.log").read_text(encoding="utf-8")
    assert "$ git diff --stat" in log and "$ git commit" in log and "***" in log
    # stderr: one "[i/N]" line per repository of the summary (skipped ones too), in the
    # order they finished, and nothing else (-j 2 workers print into the log).
    total = len(fleet.origins)
    progress = result.stderr.splitlines()
    assert [line.split("]")[0] for line in progress] == [
        f"[{i}/{total}" for i in range(1, total + 1)
    ]
    assert sorted(line.split()[1].rstrip(":") for line in progress) == sorted(fleet.origins)


def test_installed_files_reach_origin_on_its_default_branch(fleet: Fleet) -> None:
    for name in ("fresh", "agents-md", "other-template", "existing-skill", "main-branch"):
        files = origin_files(fleet.origins[name])
        assert set(INSTALLED) <= set(files), name
        message = git(fleet.origins[name], "log", "-1", "--format=%B", "--first-parent", "HEAD")
        assert "Install eco-mem v2.0.0" in message or "Merge" in message
    main = fleet.origins["main-branch"]
    assert git(main, "symbolic-ref", "HEAD").strip() == "refs/heads/main"
    assert git(main, "for-each-ref", "--format=%(refname)").split() == ["refs/heads/main"]
    assert "Install eco-mem v2.0.0" in git(main, "log", "--format=%s", "HEAD")


def test_the_data_file_answers_every_install(fleet: Fleet) -> None:
    for name in ("fresh", "main-branch"):
        origin = fleet.origins[name]
        assert b"ci: github-actions" in origin_file(origin, ANSWERS)
        assert ".github/workflows/eco-mem.yml" in origin_files(origin)


def test_a_bad_data_file_is_one_line_and_exit_2(fleet: Fleet) -> None:
    bad = fleet.root / "bad.yml"
    bad.write_text("- just\n- a list\n", encoding="utf-8")
    before = heads(fleet.origins)
    result = run_module(
        "eco_mem_fleet.install",
        *("-C", str(fleet.config), "--template", str(fleet.template), "--data-file", str(bad)),
    )
    assert result.returncode == 2
    assert_no_traceback(result)
    assert result.stderr == f"install: --data-file {bad}: expected a mapping of question: answer\n"
    assert heads(fleet.origins) == before


def test_host_files_kept_byte_for_byte(fleet: Fleet) -> None:
    agents = origin_file(fleet.origins["agents-md"], "AGENTS.md").decode()
    assert agents.startswith("# Team rules\n\nRun make test.\n")
    assert "<!-- eco-mem:begin -->" in agents
    other = origin_file(fleet.origins["other-template"], ".copier-answers.yml")
    assert other == b"_src_path: gh:acme/service-template\n_commit: v7.0.0\nname: billing\n"
    assert origin_file(fleet.origins["existing-skill"], ".agents/skills/review/SKILL.md") == (
        b"# review\n"
    )


def test_an_allow_list_gitignore_still_gets_every_file_into_origin(fleet: Fleet) -> None:
    """The install re-includes what the host's allow-list hides; origin holds the files."""
    _, outcomes, _, _ = fleet.runs["install"]
    outcome, origin = outcomes["allow-list"], fleet.origins["allow-list"]
    assert outcome["result"] == "installed", outcome
    assert set(INSTALLED) <= set(origin_files(origin))
    gitignore = origin_file(origin, ".gitignore")
    assert gitignore.startswith(ALLOW_LIST.encode()) and b"# eco-mem:begin" in gitignore


def test_a_second_install_pushes_nothing(fleet: Fleet) -> None:
    result, outcomes, before, after = fleet.runs["install-again"]
    assert before == after
    assert not any(row["pushed"] for row in outcomes.values())
    for name in ("fresh", "agents-md", "main-branch", "at-v2"):
        assert outcomes[name]["result"] == "skipped"
    # CI=true: no progress lines, the summary still printed.
    assert not [line for line in result.stderr.splitlines() if line.startswith("[")]
    assert "repositories:" in result.stdout


def test_named_repositories_are_checked_in_their_clone_too(fleet: Fleet) -> None:
    """--repos bypasses the selection; the fixer itself still skips an installed repo."""
    result, outcomes, before, after = fleet.runs["install-named"]
    assert set(outcomes) == {"at-v2", "fresh"} and before == after
    assert all(row["result"] == "skipped" for row in outcomes.values())
    assert outcomes["at-v2"]["before"] == "v2.0.0" and result.returncode == 0


def test_without_log_a_new_log_file_is_named(fleet: Fleet) -> None:
    result = fleet.runs["install-named"][0]
    last = result.stdout.splitlines()[-1]
    assert last.startswith("log (commands, diffs, errors): ")
    log = Path(last.split(": ", 1)[1])
    try:
        assert log.name.startswith("eco-mem-fleet-install-") and log.suffix == ".log"
        assert "$ git clone" in log.read_text(encoding="utf-8")
    finally:
        log.unlink()


def test_an_open_pull_request_is_skipped_not_pushed_over(template: Path, tmp_path: Path) -> None:
    # A pull-request push module leaves all-repos_autofix_eco-mem-install on origin. A
    # re-run before that pull request is merged must leave it alone, not fail the push;
    # a branch kept after an ordinary merge blocks nothing.
    names = ("new", "open-pr", "merged-pr")
    origins = {name: make_origin(tmp_path, name, lambda work: None) for name in names}
    branch = "all-repos_autofix_eco-mem-install"
    open_pr = tmp_path / "seeds/open-pr"
    git(open_pr, "commit", "-q", "--allow-empty", "-m", "the open pull request")
    git(open_pr, "push", "-q", str(origins["open-pr"]), f"HEAD:{branch}")
    git(tmp_path / "seeds/merged-pr", "push", "-q", str(origins["merged-pr"]), f"master:{branch}")
    config = write_config(tmp_path, {name: str(path) for name, path in origins.items()})
    clone_all(config)
    before = heads(origins)
    report = tmp_path / "report.jsonl"
    result = run_module(
        *("eco_mem_fleet.install", "-C", str(config), "--template", str(template)),
        *("--report", str(report)),
    )
    outcomes = read_report(report)

    assert result.returncode == 0, result.stdout + result.stderr
    for name in ("new", "merged-pr"):
        assert outcomes[name]["result"] == "installed" and outcomes[name]["pushed"], name
    assert outcomes["open-pr"]["result"] == "skipped"
    assert f"{branch} is on origin and not merged" in outcomes["open-pr"]["message"]
    assert heads(origins)["open-pr"] == before["open-pr"]


def test_upgrade_outcomes_and_exit_status(fleet: Fleet) -> None:
    result, outcomes, before, after = fleet.runs["upgrade"]
    got = results(fleet, "upgrade")
    for name in ("at-v1", "team-memory", "deleted-index"):
        assert got[name] == "upgraded", (name, outcomes[name])
        assert (outcomes[name]["before"], outcomes[name]["after"]) == ("v1.0.0", "v2.0.0")
        assert "_commit: v2.0.0" in origin_file(fleet.origins[name], ANSWERS).decode()
    for name in ("at-v2", "fresh", "main-branch"):
        assert got[name] == "skipped" and before[name] == after[name]
    assert got["unclonable"] == "failed"
    assert result.returncode == 1
    assert_no_traceback(result)


def test_a_conflicted_repository_is_listed_and_not_pushed(fleet: Fleet) -> None:
    result, outcomes, before, after = fleet.runs["upgrade"]
    outcome = outcomes["forked-skill"]
    assert outcome["result"] == "conflict" and not outcome["pushed"]
    assert outcome["conflicts"] == [f"{SKILL}/SKILL.md"]
    assert before["forked-skill"] == after["forked-skill"]
    assert b"our fork" in origin_file(fleet.origins["forked-skill"], f"{SKILL}/SKILL.md")
    row = next(line for line in result.stdout.splitlines() if line.startswith("forked-skill "))
    assert "conflict" in row and f"{SKILL}/SKILL.md" in row


def test_team_memory_byte_identical_after_upgrade(fleet: Fleet) -> None:
    origin = fleet.origins["team-memory"]
    for path in TEAM_MEMORY:
        assert origin_file(origin, path) == fleet.team_before[path], path
    for drawer, row in TEAM_ROWS.items():
        index = origin_file(origin, f"{MEMORY}/{drawer}/INDEX.md").decode()
        assert index.endswith(row), drawer
    assert b"Memory for agents (eco-mem)" in origin_file(origin, "AGENTS.md")


def test_upgrade_restores_a_deleted_index_in_origin(fleet: Fleet) -> None:
    index = origin_file(fleet.origins["deleted-index"], f"{MEMORY}/episodic/INDEX.md")
    assert index is not None and b"## Catalog" in index


def test_status_table(fleet: Fleet) -> None:
    result = fleet.status_table
    assert result.returncode == 1, result.stdout + result.stderr  # forked-skill is behind
    assert_no_traceback(result)
    # Progress on stderr, a line per repository as verify finishes in it.
    total = len(fleet.origins)
    progress = result.stderr.splitlines()
    assert [line.split("]")[0] for line in progress] == [
        f"[{i}/{total}" for i in range(1, total + 1)
    ]
    assert "forked-skill: behind v2.0.0" in "\n".join(progress)
    lines = result.stdout.splitlines()
    header = lines[0].split()
    assert header == [
        "repo",
        "installed",
        "version",
        "newest",
        "verify",
        "errors",
        "warnings",
        "review",
        "entries(w/s/e/p)",
        "findings",
        "load",
        "status",
    ]
    rows = {line.split()[0]: line.split() for line in lines[2:] if line and not line[0].isdigit()}
    assert rows["at-v1"][1:5] == ["yes", "v2.0.0", "v2.0.0", "0"] and rows["at-v1"][-1] == "ok"
    assert rows["forked-skill"][1:4] == ["yes", "v1.0.0", "v2.0.0"]
    assert rows["forked-skill"][-2:] == ["behind", "v2.0.0"]
    assert rows["unclonable"][1] == "no" and "not cloned" in " ".join(rows["unclonable"])
    # Columns line up: every row starts its second column where the header does.
    column = lines[0].index("installed")
    assert all(line[column - 2 : column] == "  " for line in lines[2:-1])


def test_status_json(fleet: Fleet) -> None:
    result = fleet.status_json
    assert result.returncode == 1
    assert_no_traceback(result)
    report = json.loads(result.stdout)
    repos = {row["repo"]: row for row in report["repos"]}
    assert report["ok"] is False and set(repos) == set(fleet.origins)
    team = repos["team-memory"]
    # The review columns (tests/test_fleet_review.py covers them in depth).
    assert team.pop("entries") == {"working": 0, "semantic": 1, "episodic": 1, "procedural": 0}
    assert team.pop("findings")["uncited"] == 1 and team.pop("load_bytes") > 0
    assert team == {
        "repo": "team-memory",
        "installed": True,
        "version": "v2.0.0",
        "newest": "v2.0.0",
        "verify_exit": 0,
        "errors": 0,
        "warnings": 0,
        "problem": "",
        "host_checks": "",
        "advice": "",
        "ok": True,
    }
    assert repos["forked-skill"]["ok"] is False and repos["forked-skill"]["version"] == "v1.0.0"
    assert repos["unclonable"]["problem"] == "not cloned"


def test_status_exits_0_when_every_repository_is_current_and_clean(
    fleet: Fleet, tmp_path: Path
) -> None:
    listed = {name: str(fleet.origins[name]) for name in ("at-v2", "team-memory", "at-v1")}
    config = write_config(tmp_path, listed)
    clone_all(config)
    result = run_module(
        "eco_mem_fleet.status", "-C", str(config), "--template", str(fleet.template)
    )
    assert result.returncode == 0, result.stdout
    assert "3 of 3 repositories ok" in result.stdout


@pytest.mark.parametrize(
    ("installed", "target", "older"),
    [
        ("v1.0.0", "v2.0.0", True),
        ("v2.0.0", "v2.0.0", False),
        ("v10.0.0", "v9.1.0", False),  # by version, not by string
        ("v1.0.0-3-gabc1234", "v1.0.0", False),  # git describe: past the tag
        ("v1.0.0-3-gabc1234", "v1.1.0", True),
        ("0123abcd", "v1.0.0", True),  # an untagged commit is never taken as current
    ],
)
def test_which_installs_count_as_older(installed: str, target: str, older: bool) -> None:
    assert is_older(installed, target) is older


def test_status_names_a_repository_whose_scripts_are_not_its_releases(
    template: Path, tmp_path: Path
) -> None:
    """Every host on a release holds the release's script bytes; status compares the
    clone's tree with the release's, and names the file a commit changed."""

    def edit_script(work: Path) -> None:
        seed_render(template, work, "v2.0.0")
        patched = runtime_module(work, "ecomem/cli.py") + "# a local patch\n"
        change_runtime_module(work, "ecomem/cli.py", patched)

    origins = {
        "as-shipped": make_origin(tmp_path, "as-shipped", seeds(template)["at-v2"][0]),
        "patched": make_origin(tmp_path, "patched", edit_script),
    }
    config = write_config(tmp_path, {name: str(path) for name, path in origins.items()})
    clone_all(config)
    result = run_module(
        "eco_mem_fleet.status", "-C", str(config), "--template", str(template), "--json"
    )
    assert result.returncode == 1, result.stderr
    repos = {repo["repo"]: repo for repo in json.loads(result.stdout)["repos"]}
    assert repos["as-shipped"]["ok"] is True, repos["as-shipped"]
    assert repos["patched"]["problem"] == "scripts differ from v2.0.0's: 1 file(s) (eco_mem.pyz)"
