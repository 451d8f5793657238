"""Property: whatever a team writes, an update of template-owned text keeps it all.

Hypothesis draws team entries and catalog rows for the three durable drawers
and one of several protocol releases that edit contracts in different places
(top, middle, the line right above the catalog, SKILL.md). After `copier
update` every team line is still there and no file holds a conflict.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import (
    MEMORY,
    SKILL,
    commit_all,
    copy_template,
    git,
    init_repo,
    replace_in,
    snapshot_template,
    update_project,
)

INDEX_SRC = "template/{{memory_path}}/%s/INDEX.md.jinja"
SKILL_SRC = "template/{{skill_path}}/eco-mem/SKILL.md.jinja"
DURABLE = ("semantic", "episodic", "procedural")
ALL_DRAWERS = ("working", *DURABLE)


def edit_titles(repo: Path) -> str:
    for drawer in ALL_DRAWERS:
        path = repo / (INDEX_SRC % drawer)
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("\n# ", "\n# Drawer: ", 1), encoding="utf-8")
    return "# Drawer: "


def edit_line_above_catalog(repo: Path) -> str:
    for drawer in ALL_DRAWERS:
        replace_in(repo / (INDEX_SRC % drawer), "Rules for reading and writing", "Read the skill")
    return "Read the skill"


def add_contract_bullet(repo: Path) -> str:
    for drawer in ALL_DRAWERS:
        replace_in(
            repo / (INDEX_SRC % drawer), "- **Never**", "- **Owner**: the team.\n- **Never**"
        )
    return "- **Owner**: the team."


def rewrite_skill(repo: Path) -> str:
    replace_in(repo / SKILL_SRC, "## Relay at task end", "## Relay when the task ends")
    return ""


RELEASES = {
    "v2.0.0": [edit_titles],
    "v2.1.0": [edit_line_above_catalog],
    "v2.2.0": [add_contract_bullet],
    "v2.3.0": [rewrite_skill],
    "v2.4.0": [edit_titles, edit_line_above_catalog, add_contract_bullet, rewrite_skill],
}


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str], Path]:
    """One template repo with v1 and every release; one pristine v1 install."""
    repo = tmp_path_factory.mktemp("property") / "eco-mem"
    snapshot_template(repo, "v1.0.0")
    markers = {}
    for tag, edits in RELEASES.items():
        found: list[str] = []

        def apply_release(root: Path, edits=edits, found=found) -> None:
            found.extend(edit(root) for edit in edits)

        snapshot_template(repo, tag, mutate=apply_release)
        markers[tag] = next((marker for marker in found if marker), "")
    pristine = init_repo(tmp_path_factory.mktemp("pristine") / "host")
    copy_template(repo, pristine, vcs_ref="v1.0.0")
    commit_all(pristine, "install v1")
    return repo, markers, pristine


slugs = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=10)
line_text = st.text(alphabet="abcdefghij klmnopqrstuvwxyz0123456789.,:-()", min_size=1, max_size=50)
entries = st.dictionaries(slugs, st.lists(line_text, min_size=1, max_size=12), max_size=6)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    team=st.fixed_dictionaries({drawer: entries for drawer in DURABLE}),
    tag=st.sampled_from(sorted(RELEASES)),
)
def test_every_team_line_survives_any_contract_edit(releases, team, tag) -> None:
    _, markers, pristine = releases
    with tempfile.TemporaryDirectory() as scratch:
        dst = Path(scratch) / "host"
        shutil.copytree(pristine, dst, symlinks=True)
        written: dict[Path, list[str]] = {}
        for drawer, items in team.items():
            index = dst / MEMORY / drawer / "INDEX.md"
            rows = []
            for slug, body in items.items():
                entry = dst / MEMORY / drawer / f"{slug}.md"
                entry.write_text("\n".join([f"# {slug}", "", *body]) + "\n", encoding="utf-8")
                written[entry] = entry.read_text(encoding="utf-8").splitlines()
                columns = 4 if drawer != "semantic" else 5
                rows.append("| " + " | ".join([slug] * (columns - 1) + [f"{slug}.md"]) + " |")
            with index.open("a", encoding="utf-8") as handle:
                handle.write("".join(row + "\n" for row in rows))
            written[index] = rows
        commit_all(dst, "team memories")

        update_project(dst, vcs_ref=tag)

        for path, lines in written.items():
            text = path.read_text(encoding="utf-8")
            present = text.splitlines()
            assert all(line in present for line in lines), path
            assert not [line for line in present if line.startswith(("<<<<<<<", ">>>>>>>"))]
        status = git(dst, "status", "--porcelain", "--untracked-files=all")
        assert ".rej" not in status and not [s for s in status.splitlines() if s[:2] == "UU"]
        if markers[tag]:
            assert markers[tag] in (dst / MEMORY / "semantic/INDEX.md").read_text()
        assert (dst / SKILL / "SKILL.md").is_file()
