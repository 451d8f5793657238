"""The rendered GitHub Actions workflow: what triggers it, what it runs, what it trusts.

Each case is a real `copier copy` with `ci: github-actions`; the workflow is read
back with a YAML parser, as GitHub reads it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from copier.errors import UserMessageError

from tests.helpers import ANSWERS, copy_template, init_repo

WORKFLOW = ".github/workflows/eco-mem.yml"
PINNED = re.compile(r"^\s*(?:- )?uses: ([\w.-]+/[\w.-]+)@([0-9a-f]{40}) # v\d+\.\d+\.\d+$")


def render(template_repo: Path, where: Path, **answers) -> Path:
    host = init_repo(where)
    copy_template(template_repo, host, ci="github-actions", **answers)
    return host


def load(host: Path) -> dict:
    document = yaml.safe_load((host / WORKFLOW).read_text(encoding="utf-8"))
    # YAML 1.1 reads a bare `on` key as the boolean true.
    document["on"] = document.pop(True)
    return document


def run_line(document: dict) -> str:
    (step,) = [step for step in document["jobs"]["verify"]["steps"] if "run" in step]
    return step["run"]


@pytest.fixture(scope="module")
def default_host(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render(template_repo, tmp_path_factory.mktemp("ci") / "host")


@pytest.fixture(scope="module")
def strict_host(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return render(
        template_repo,
        tmp_path_factory.mktemp("ci-strict") / "host",
        ci_strict=True,
        skill_path="tools/skills",
        memory_path="docs/memory",
    )


def test_runs_only_when_memory_skill_or_attributes_change(default_host: Path) -> None:
    triggers = load(default_host)["on"]
    expected = [
        ".agents/memory/**",
        "**/.agents/memory/**",  # package stores (`eco_mem.pyz init PATH`)
        ".agents/skills/eco-mem/**",
        ".gitattributes",
        WORKFLOW,
    ]
    assert triggers["push"]["paths"] == expected
    assert triggers["pull_request"]["paths"] == expected
    assert "workflow_dispatch" in triggers
    assert set(triggers) == {"push", "pull_request", "workflow_dispatch"}


def test_path_filter_follows_the_answers(strict_host: Path) -> None:
    paths = load(strict_host)["on"]["push"]["paths"]
    assert paths[:3] == ["docs/memory/**", "**/docs/memory/**", "tools/skills/eco-mem/**"]


def test_every_action_is_pinned_to_a_commit_with_its_version(
    default_host: Path, strict_host: Path
) -> None:
    for host in (default_host, strict_host):
        text = (host / WORKFLOW).read_text(encoding="utf-8")
        uses = [line for line in text.splitlines() if "uses:" in line]
        assert uses, "the workflow checks out the repository"
        for line in uses:
            assert PINNED.match(line), line
        steps = load(host)["jobs"]["verify"]["steps"]
        assert all(re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", s["uses"]) for s in steps if "uses" in s)


def test_checkout_keeps_no_token_and_the_job_only_reads(default_host: Path) -> None:
    document = load(default_host)
    assert document["permissions"] == {"contents": "read"}
    (checkout,) = [s for s in document["jobs"]["verify"]["steps"] if "uses" in s]
    assert checkout["with"]["persist-credentials"] is False


def test_strict_only_when_asked(default_host: Path, strict_host: Path) -> None:
    lenient, strict = run_line(load(default_host)), run_line(load(strict_host))
    assert lenient.startswith("python3 .agents/skills/eco-mem/scripts/eco_mem.pyz verify ")
    assert "--strict" not in lenient
    assert strict.startswith("python3 tools/skills/eco-mem/scripts/eco_mem.pyz verify --strict ")
    for line in (lenient, strict):
        assert "--default-branch" in line
    # Recorded, so `copier update` renders the same choice again.
    assert yaml.safe_load((strict_host / ANSWERS).read_text())["ci_strict"] is True
    assert yaml.safe_load((default_host / ANSWERS).read_text())["ci_strict"] is False


def test_without_ci_there_is_no_workflow_and_no_strict_answer(host: Path) -> None:
    assert not (host / ".github").exists()
    assert "ci_strict" not in yaml.safe_load((host / ANSWERS).read_text())


def test_a_folder_name_with_pattern_or_yaml_characters_is_refused_before_any_file(
    template_repo: Path, tmp_path: Path
) -> None:
    # Path answers hold only letters, digits, `.`, `_` and `-` (ecomem/path_rule.py), so
    # nothing a workflow filter, YAML or a shell reads as syntax reaches the workflow.
    host = init_repo(tmp_path / "host")
    with pytest.raises(UserMessageError, match="memory_path: each folder name may hold only"):
        copy_template(template_repo, host, ci="github-actions", memory_path='notes: "team" #1 [a]*')
    assert sorted(path.name for path in host.iterdir()) == [".git"]


def test_every_character_a_folder_name_may_hold_stays_literal_in_the_filter(
    template_repo: Path, tmp_path: Path
) -> None:
    odd = "team.notes_v2-x/mem.ory"
    host = render(template_repo, tmp_path / "host", memory_path=odd)
    assert (host / odd / "semantic/INDEX.md").is_file()
    paths = load(host)["on"]["push"]["paths"]
    assert paths[0] == f"{odd}/**"


def judge(condition: str, event: dict) -> bool:
    """GitHub's reading of the job's `if`, for the one form it has: comparisons of a
    context value with a quoted string or another context value, joined by `||`."""

    def value(term: str):
        term = term.strip()
        if term.startswith("'"):
            return term.strip("'")
        found = event
        for part in term.removeprefix("github.").split("."):
            found = found[part]
        return found

    return any(
        value(left) != value(right)
        for left, right in (part.split("!=") for part in condition.split("||"))
    )


def test_a_pull_request_from_this_repository_is_checked_once_on_its_push(
    default_host: Path,
) -> None:
    condition = load(default_host)["jobs"]["verify"]["if"]
    here = {"repository": "org/app"}
    own_branch = {"full_name": "org/app"}
    fork = {"full_name": "someone/app"}
    assert judge(condition, {**here, "event_name": "push"})
    assert judge(condition, {**here, "event_name": "workflow_dispatch"})
    pull = {**here, "event_name": "pull_request"}
    assert not judge(condition, {**pull, "event": {"pull_request": {"head": {"repo": own_branch}}}})
    assert judge(condition, {**pull, "event": {"pull_request": {"head": {"repo": fork}}}})
