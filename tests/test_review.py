"""`eco_mem.pyz review`: each finding kind on a real rendered host, its false-positive
guards, the planted store of benchmarks/data, its outputs and its thresholds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from datetime import date
from pathlib import Path

import pytest

from benchmarks.data import review_planted
from benchmarks.review import plant, score
from tests.helpers import (
    ANSWERS,
    MEMORY,
    SKILL,
    assert_exit,
    build_files,
    commit_all,
    copy_template,
    git,
    init_repo,
    run_script,
    snapshot_template,
    update_project,
    work_tree_bytes,
)
from tests.test_oldest_python import PYTHON39

TODAY = "2026-06-01"


def review(root: Path, *args: str) -> subprocess.CompletedProcess:
    return run_script(root, "review", "--today", TODAY, *args)


def report(root: Path, *args: str) -> dict:
    done = review(root, "--json", *args)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)


def kinds(root: Path, *args: str) -> dict[str, list[list[str]]]:
    found: dict[str, list[list[str]]] = {}
    for finding in report(root, *args)["findings"]:
        found.setdefault(finding["kind"], []).append(finding["entries"])
    return found


def fact(
    root: Path,
    slug: str,
    title: str,
    body: str,
    source: str = "user-confirmed",
    as_of: str = "2026-05-01",
    expires: str = "never",
    cites: tuple[str, ...] = (),
) -> str:
    """Write a fact and its catalog row; return its repository-relative path."""
    lines = [f"# {title}", "", f"- as_of: {as_of}", f"- source: {source}", "- scope: repo"]
    lines += [f"- expires: {expires}", *(f"- cites: {cite}" for cite in cites), "", body, ""]
    relpath = f"{MEMORY}/semantic/{slug}.md"
    build_files(root, {relpath: "\n".join(lines)})
    index = root / MEMORY / "semantic/INDEX.md"
    row = f"| {slug} | {title} | {as_of} | {source} | {slug}.md |\n"
    index.write_text(index.read_text(encoding="utf-8") + row, encoding="utf-8")
    return relpath


def procedure(root: Path, name: str, points_to: str) -> None:
    index = root / MEMORY / "procedural/INDEX.md"
    row = f"| {name} | when {name} | {points_to} | - |\n"
    index.write_text(index.read_text(encoding="utf-8") + row, encoding="utf-8")


# --- a fresh install, and the planted store ---------------------------------------


def test_a_fresh_install_is_healthy_in_one_line(host: Path) -> None:
    before = work_tree_bytes(host)
    done = assert_exit(review(host), 0)
    assert done.stdout.count("\n") == 1 and done.stdout.startswith("eco-mem review: healthy")
    assert done.stderr == ""
    assert work_tree_bytes(host) == before


@pytest.fixture(scope="module")
def planted(pristine: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = shutil.copytree(pristine, tmp_path_factory.mktemp("planted") / "host", symlinks=True)
    plant(root, review_planted)
    return root


def test_the_planted_store_names_every_defect_and_no_healthy_entry(planted: Path) -> None:
    result = score(report(planted, *review_planted.ARGS), review_planted)
    assert {d["kind"] for d in review_planted.DEFECTS} == set(
        json.loads(review(planted, "--json").stdout)["summary"]["findings"]
    )
    assert result["missed"] == [] and result["wrong"] == []
    assert result["healthy_flagged"] == []


def test_review_writes_nothing_and_exits_1_on_findings(planted: Path) -> None:
    before = work_tree_bytes(planted)
    status = git(planted, "status", "--porcelain")
    done = assert_exit(review(planted), 1)
    lines = done.stdout.splitlines()
    assert lines[-1].startswith("eco-mem review: 10 finding(s)")
    assert any(line.startswith("contradiction: ") and "revise " in line for line in lines)
    assert work_tree_bytes(planted) == before and git(planted, "status", "--porcelain") == status


def test_json_summary_is_what_the_fleet_reads(planted: Path) -> None:
    summary = report(planted)["summary"]
    assert summary["entries"] == {"working": 2, "semantic": 19, "episodic": 36, "procedural": 2}
    assert summary["findings"]["duplicate"] == 1 and summary["findings"]["load"] == 0
    assert summary["load_tokens"] == -(-summary["load_bytes"] // 4)
    assert summary["thresholds"] == {
        "unconfirmed_days": 90,
        "desk_days": 14,
        "near_cap": 90,
        "load_budget": 20000,
    }
    for finding in report(planted)["findings"]:
        assert set(finding) == {"kind", "entries", "message", "command"}
        assert finding["command"].split()[0] in {
            "revise",
            "confirm",
            "forget",
            "end-task",
            "git",
        }


def test_markdown_report_is_a_job_summary(planted: Path) -> None:
    done = assert_exit(review(planted, "--markdown"), 1)
    text = done.stdout
    assert text.startswith("## eco-mem memory review, 2026-06-01\n")
    assert "| semantic | 19 |" in text and "| contradiction | 1 |" in text
    assert "### path-gone" in text and "`mem revise coupon-module --body TEXT`" in text


@pytest.mark.skipif(PYTHON39 is None, reason="no Python 3.9 on this machine")
def test_review_runs_on_python_3_9(planted: Path) -> None:
    script = str(planted / SKILL / "scripts/eco_mem.pyz")
    done = subprocess.run(
        [PYTHON39, script, "review", "--json", "--today", TODAY, *review_planted.ARGS],
        cwd=planted,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 1, done.stderr
    assert score(json.loads(done.stdout), review_planted)["missed"] == []


# --- each kind, with its guards ---------------------------------------------------


def test_evidence_gone_and_uncited(host: Path) -> None:
    build_files(host, {"src/rates.py": "RATE = 5\n"})
    held = fact(
        host, "rate", "Rate is five", "It is 5.", "verified", cites=('src/rates.py "RATE = 5"',)
    )
    gone = fact(host, "old", "Old rate", "Was 4.", "verified", cites=('src/rates.py "RATE = 4"',))
    bare = fact(host, "bare", "Logs go to stderr", "Checked by running it.", "verified")
    told = fact(host, "told", "Reviews need one approval", "The lead said so.")
    found = kinds(host)
    assert found.pop("evidence-gone") == [[gone]]
    assert found.pop("uncited") == [[bare]]
    assert found == {}
    assert held and told


def test_expired_and_unconfirmed(host: Path) -> None:
    old = fact(
        host, "old-guess", "Deploys happen on Tuesdays", "Seen twice.", "derived", "2026-01-02"
    )
    fresh = fact(host, "new-guess", "Reviews are quick", "Seen once.", "derived", "2026-05-20")
    gone = fact(host, "freeze", "Code freeze", "No merges.", expires="2026-05-31")
    found = kinds(host)
    assert found == {"unconfirmed": [[old]], "expired": [[gone]]}
    assert fresh
    # The threshold is an option: 200 days lets the January guess pass.
    assert "unconfirmed" not in kinds(host, "--unconfirmed-days", "200")


def test_duplicates_are_one_group(host: Path) -> None:
    build_files(host, {"Makefile": "test:\n\tpytest\n"})
    a = fact(host, "tests-a", "Run tests with make test", "`make test` runs pytest.")
    b = fact(host, "tests-b", "Run the tests with make test", "Use `make test` for pytest.")
    c = fact(
        host, "cited-a", "Tests live in one folder", "x.", "verified", cites=('Makefile "test:"',)
    )
    d = fact(
        host,
        "cited-b",
        "The suite has a make target",
        "y.",
        "verified",
        cites=('Makefile "test:"',),
    )
    fact(host, "other", "Docs are built with Sphinx", "`make docs` builds them.")
    assert sorted(kinds(host)["duplicate"]) == [sorted([c, d]), sorted([a, b])]


def test_contradictions_and_their_guards(host: Path) -> None:
    a = fact(host, "api-port", "The API listens on port 8000", "In development.")
    b = fact(host, "api-port-2", "The API listens on port 8080", "Since May.")
    # Different services sharing words and a shape: not a contradiction.
    fact(host, "pg-port", "Staging Postgres listens on port 6543", "Through the pooler.")
    fact(host, "redis-port", "The Redis cache listens on port 6380", "Beside the app.")
    fact(host, "prod-pg", "Production Postgres listens on port 5432", "Direct.")
    # A fact that merely mentions a number.
    fact(host, "approvals", "Two approvals before merging", "Branch protection needs them.")
    yes = fact(host, "hotfix", "Hotfixes may be pushed directly to main", "For incidents.")
    no = fact(host, "no-push", "Never push directly to main", "Use pull requests.")
    cli_a = fact(host, "cli-a", "The command line uses Typer", "Chosen in 2025.")
    cli_b = fact(host, "cli-b", "The command line uses Click", "Chosen in 2025.")
    # Title Case capitalises every word: two environments are not two names for one thing.
    fact(
        host,
        "helm-staging",
        "Deploy The Web App To Staging With Helm",
        "The chart lives in the infra repo.",
    )
    fact(
        host,
        "helm-prod",
        "Deploy The Web App To Production With Helm",
        "Releases need a tag first.",
    )
    found = kinds(host)
    assert sorted(found.pop("contradiction")) == sorted(
        [sorted([a, b]), sorted([yes, no]), sorted([cli_a, cli_b])]
    )
    assert found == {}


def test_path_gone_and_its_guards(host: Path) -> None:
    build_files(host, {"src/app/main.py": "", "tests/unit/test_main.py": ""})
    gone = fact(host, "gone", "Config is in settings.toml", "Read from `src/app/settings.toml`.")
    fact(host, "here", "Entry point", "The app starts in src/app/main.py.")
    fact(host, "sub", "Unit tests", "See `test_main.py` and `unit/test_main.py`.")
    fact(host, "sample", "Clients post JSON", "Like this:\n\n```python\n# client/post.py\n```")
    fact(host, "holder", "Issues get a page", "Each one is `docs/issues/<issue>.md`.")
    fact(
        host,
        "code",
        "Joins use os.path.join",
        "Call `os.path.join` and `split()`; see https://x.org/a.py",
    )
    assert kinds(host) == {"path-gone": [[gone]]}


def test_pointer_gone(host: Path) -> None:
    procedure(host, "deploy", "scripts/deploy.sh")
    procedure(host, "skill", f"{SKILL}/SKILL.md")
    found = report(host)["findings"]
    assert [(f["kind"], f["entries"], f["command"]) for f in found] == [
        ("pointer-gone", [f"{MEMORY}/procedural/INDEX.md#deploy"], "revise deploy --points-to PATH")
    ]


def test_stale_desk_by_age(host: Path) -> None:
    build_files(host, {f"{MEMORY}/working/old.md": "# Old\n\n## Goal\nx\n"})
    build_files(host, {f"{MEMORY}/working/new.md": "# New\n\n## Goal\ny\n"})
    month_ago = time.mktime(date(2026, 5, 1).timetuple())
    os.utime(host / MEMORY / "working/old.md", (month_ago, month_ago))
    os.utime(host / MEMORY / "working/new.md", (time.mktime(date(2026, 5, 30).timetuple()),) * 2)
    found = report(host)["findings"]
    assert [(f["kind"], f["entries"], f["command"]) for f in found] == [
        ("stale-desk", [f"{MEMORY}/working/old.md"], "end-task old")
    ]
    assert kinds(host, "--desk-days", "40") == {}


def test_a_travelling_desk_on_a_merged_branch_is_stale(host: Path) -> None:
    git(host, "switch", "-q", "-c", "task")
    done = run_script(host, "new", "working", "--title", "Ship it", "--goal", "g", "--travel")
    assert done.returncode == 0, done.stderr
    desk = f"{MEMORY}/working/ship-it.md"
    # Just opened, nothing merged yet: not stale.
    git(host, "commit", "-qm", "desk")
    assert kinds(host) == {}
    git(host, "switch", "-q", "main")
    git(host, "merge", "-q", "--no-ff", "-m", "merge task", "task")
    git(host, "rm", "-q", "--cached", desk)
    git(host, "commit", "-qm", "desks never stay on main")
    git(host, "switch", "-q", "task")
    found = report(host)["findings"]
    assert [(f["kind"], f["entries"]) for f in found] == [("stale-desk", [desk])]
    assert "merged into main" in found[0]["message"]


def test_near_cap_and_load(host: Path) -> None:
    for n in range(35):
        procedure(host, f"p{n}", f"{SKILL}/SKILL.md")
    assert kinds(host) == {}
    procedure(host, "p35", f"{SKILL}/SKILL.md")
    found = report(host)["findings"]
    assert [(f["kind"], f["entries"]) for f in found] == [
        ("near-cap", [f"{MEMORY}/procedural/INDEX.md"])
    ]
    assert found[0]["command"] == "forget p0 --reason obsolete"
    loaded = report(host, "--load-budget", "1000")
    assert [f["kind"] for f in loaded["findings"]] == ["near-cap", "load"]
    assert loaded["findings"][1]["entries"][0] == f"{SKILL}/SKILL.md"


# --- output safety, usage errors, thresholds from the answers ---------------------


def test_markdown_keeps_memory_text_inert(host: Path) -> None:
    build_files(host, {"a.txt": "x\n"})
    fact(host, "ping", "Ping the team", "x", "verified", cites=('a.txt "@org/team <b>hi</b>"',))
    text = review(host, "--markdown").stdout
    assert "\\@org/team \\<b\\>hi\\</b\\>" in text
    assert "@org" not in text.replace("\\@org", "")


@pytest.mark.parametrize(
    "args",
    [
        ("--today", "2026-13-01"),
        ("--desk-days", "x"),
        ("--near-cap", "0"),
        ("--json", "--markdown"),
    ],
)
def test_usage_errors_exit_2(host: Path, args: tuple[str, ...]) -> None:
    assert_exit(run_script(host, "review", *args), 2)


def test_thresholds_from_the_answers_survive_an_update(tmp_path: Path, pristine: Path) -> None:
    template = snapshot_template(tmp_path / "template", tag="v0.0.1")
    host = init_repo(tmp_path / "host")
    copy_template(template, host, review_thresholds="desk_days=3,load_budget=9000")
    commit_all(host, "install")
    assert "review_thresholds: desk_days=3,load_budget=9000" in (host / ANSWERS).read_text()
    limits = report(host)["summary"]["thresholds"]
    assert limits["desk_days"] == 3 and limits["load_budget"] == 9000
    snapshot_template(template, tag="v0.0.2")
    update_project(host)
    assert report(host, "--desk-days", "5")["summary"]["thresholds"]["desk_days"] == 5
    assert report(host)["summary"]["thresholds"]["load_budget"] == 9000
    # A plain install records nothing and is never asked.
    assert "review_thresholds" not in (pristine / ANSWERS).read_text()


def test_a_bad_thresholds_answer_is_one_line(host: Path) -> None:
    # The runtime reads the answer from the answers file, where a hand edit lands.
    answers = host / ANSWERS
    answers.write_text(answers.read_text() + "review_thresholds: days=x\n")
    done = assert_exit(run_script(host, "review"), 2)
    assert "review_thresholds" in done.stderr


# --- the weekly CI job ------------------------------------------------------------


def test_weekly_workflow_writes_the_report_and_passes_with_findings(
    template_repo: Path, tmp_path: Path
) -> None:
    import yaml

    host = init_repo(tmp_path / "host")
    copy_template(template_repo, host, ci="github-actions")
    workflow = host / ".github/workflows/eco-mem-review.yml"
    spec = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    triggers = spec[True]  # YAML 1.1 reads the key `on` as True
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    assert triggers["schedule"][0]["cron"].split()[4] == "1"  # once a week
    assert spec["permissions"] == {"contents": "read"}
    assert spec["jobs"]["review"]["timeout-minutes"] == 10  # a hang stops, not the runner
    steps = spec["jobs"]["review"]["steps"]
    pins = [step["uses"] for step in steps if "uses" in step]
    assert [pin.split("@")[0] for pin in pins] == ["actions/checkout"]
    assert all(len(pin.split("@")[1]) == 40 for pin in pins)
    assert steps[0]["with"] == {"persist-credentials": False}
    # One pin for both workflows, so an update of one never leaves the other behind.
    verify = (host / ".github/workflows/eco-mem.yml").read_text(encoding="utf-8")
    assert f"uses: {pins[0]} # v7.0.1" in verify
    assert f"uses: {pins[0]} # v7.0.1" in workflow.read_text(encoding="utf-8")

    # Run the step's script as the runner would, first on a healthy store, then on one
    # with a finding: both pass, and the summary holds the report.
    script = steps[-1]["run"]
    summary = tmp_path / "summary.md"

    def run_step() -> subprocess.CompletedProcess:
        env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
        return subprocess.run(["bash", "-e", "-c", script], cwd=host, env=env, text=True)

    assert run_step().returncode == 0
    assert "Healthy: no finding." in summary.read_text()
    procedure(host, "deploy", "scripts/deploy.sh")
    assert run_step().returncode == 0
    assert "### pointer-gone" in summary.read_text()
    # An install too broken to review does fail the job.
    shutil.rmtree(host / MEMORY)
    assert run_step().returncode != 0


def test_a_valid_store_at_full_caps_is_only_near_its_caps(host: Path) -> None:
    """120 valid entries sharing boilerplate (benchmarks/verify.py's full-caps store): facts
    about different modules are neither duplicates nor contradictions, and the numbered
    lines every fact repeats are no disagreement."""
    from benchmarks.verify import populate
    from extensions.protocol import CAPS

    drawers = ("semantic", "episodic", "procedural")
    populate(host, CAPS["desks"], {name: CAPS["catalog_rows"] for name in drawers}, True, True)
    found = report(host)["findings"]
    assert sorted(f["entries"][0] for f in found) == [
        f"{MEMORY}/{name}/INDEX.md" for name in sorted(drawers)
    ]
    assert {f["kind"] for f in found} == {"near-cap"}
