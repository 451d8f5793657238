"""Property: whatever a team writes, an update of template-owned text keeps it all.

Hypothesis draws team entries and catalog rows for the three durable drawers
and one of several protocol releases that edit contracts in different places
(top, middle, the line right above the catalog, SKILL.md), or reshape the
semantic catalog through catalog-migrate. After `copier update` every team line
is still there (a reshaped row carries the same cells under the new columns),
every catalog still parses, and no file holds a conflict.

Titles and entry lines draw from an alphabet with `|`, `\\` and backticks, and
rows are written by the rendered package's own row writer, the one every command
uses. Each example is a real `copier update`: the example count comes from the
Hypothesis profile in conftest.py (few locally, more in CI).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.helpers import (
    MEMORY,
    RUNTIME_CONTRACTS,
    RUNTIME_PROTOCOL,
    SKILL,
    commit_all,
    copy_template,
    git,
    init_repo,
    replace_in,
    snapshot_template,
    update_project,
)

pytestmark = pytest.mark.start_early(seconds=340)  # see tests/conftest.py

SKILL_SRC = "template/{{skill_path}}/eco-mem/SKILL.md.jinja"
DURABLE = ("semantic", "episodic", "procedural")
ALL_DRAWERS = ("working", *DURABLE)


def edit_titles(repo: Path) -> str:
    for drawer in ALL_DRAWERS:
        title = f'"{drawer}": """\\\n# '
        replace_in(repo / RUNTIME_CONTRACTS, title, title + "Drawer: ")
    return "# Drawer: "


def edit_line_above_catalog(repo: Path) -> str:
    replace_in(repo / RUNTIME_CONTRACTS, "Rules for reading and writing", "Read the skill")
    return "Read the skill"


def add_contract_bullet(repo: Path) -> str:
    # Every drawer's contract has one **Never** bullet: replace_in edits them all.
    replace_in(repo / RUNTIME_CONTRACTS, "- **Never**", "- **Owner**: the team.\n- **Never**")
    return "- **Owner**: the team."


def rewrite_skill(repo: Path) -> str:
    replace_in(repo / SKILL_SRC, "## Relay at task end", "## Relay when the task ends")
    return ""


OLD_SEMANTIC = ("slug", "one-liner", "as_of", "source", "file")
NEW_SEMANTIC = ("slug", "fact", "scope", "as_of", "source", "file")
RENAMES = {"one-liner": "fact"}


def reshape_semantic_catalog(repo: Path) -> str:
    """The documented recipe (docs/development.md, "Releases that reshape a catalog")."""

    def spelled(columns: tuple[str, ...]) -> str:  # as ecomem/protocol.py spells it
        return "(" + ", ".join(f'"{name}"' for name in columns) + ")"

    replace_in(repo / RUNTIME_PROTOCOL, spelled(OLD_SEMANTIC), spelled(NEW_SEMANTIC))
    with (repo / "copier.yml").open("a") as config:
        config.write(
            """\
  - version: v2.5.0
    when: "{{ _stage == 'before' }}"
    command: ["{{ _copier_python }}", "-I", "{{ _copier_conf.src_path }}/ops.py",
              "catalog-migrate", "--root", ".", "--stage", "before"]
  - version: v2.5.0
    command: ["{{ _copier_python }}", "-I", "{{ _copier_conf.src_path }}/ops.py",
              "catalog-migrate", "--root", ".", "--stage", "after", "--rename", "semantic:one-liner=fact"]
"""
        )
    return ""


RELEASES = {
    "v2.0.0": [edit_titles],
    "v2.1.0": [edit_line_above_catalog],
    "v2.2.0": [add_contract_bullet],
    "v2.3.0": [rewrite_skill],
    "v2.4.0": [edit_titles, edit_line_above_catalog, add_contract_bullet, rewrite_skill],
    "v2.5.0": [reshape_semantic_catalog],
}
RESHAPED = {"v2.5.0": {"semantic": NEW_SEMANTIC}}  # the drawers each release reshapes


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
# What markdown tables make hard: pipes, backslashes, backticks (a code span).
AWKWARD = "abcdefghij klmnopqrstuvwxyz0123456789.,:-()|\\`"
line_text = st.text(alphabet=AWKWARD, min_size=1, max_size=50)
titles = st.text(alphabet=AWKWARD, min_size=1, max_size=40)
entries = st.dictionaries(
    slugs, st.tuples(titles, st.lists(line_text, min_size=1, max_size=12)), max_size=6
)


@pytest.fixture(scope="module")
def tables(ecomem):
    """The rendered package's catalog reader and row writer, the ones every command uses."""
    import ecomem.store.catalog
    import ecomem.store.rows

    return ecomem.store


def test_the_awkward_alphabet_is_what_breaks_a_hand_made_row(tables) -> None:
    # The reason for the alphabet above: a row joined by hand splits on a pipe in a
    # title, the row writer's does not.
    split_cells, row_text = tables.catalog.split_cells, tables.rows.row_text
    cells = ["pipe", "Pipe | in `a|b` \\\\ title", "x.md"]
    assert split_cells("| " + " | ".join(cells) + " |") != cells
    assert split_cells(row_text(cells)) == cells


def catalog_cells(tables, path: Path) -> dict[str, dict[str, str]]:
    """Rows of the INDEX at `path` by their file cell, as {column: cell}; no problems."""
    catalog = tables.catalog.parse_catalog(path.read_text(encoding="utf-8").splitlines())
    assert catalog.problems == [], (path, catalog.problems)
    return {row.cells[-1]: dict(zip(catalog.columns, row.cells)) for row in catalog.rows}


@settings(
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    team=st.fixed_dictionaries({drawer: entries for drawer in DURABLE}),
    tag=st.sampled_from(sorted(RELEASES)),
)
# Always run, whatever the profile: the pipe that catalog-migrate once split.
@example(
    team={
        "semantic": {"pipe": ("Pipe | in title", ["a `|` b \\ c"])},
        "episodic": {},
        "procedural": {"tick": ("`odd", ["|"])},
    },
    tag="v2.5.0",
)
def test_every_team_line_survives_any_contract_edit(releases, tables, team, tag) -> None:
    _, markers, pristine = releases
    row_text = tables.rows.row_text
    with tempfile.TemporaryDirectory() as scratch:
        dst = Path(scratch) / "host"
        shutil.copytree(pristine, dst, symlinks=True)
        written: dict[Path, list[str]] = {}
        for drawer, items in team.items():
            index = dst / MEMORY / drawer / "INDEX.md"
            rows = []
            for slug, (title, body) in items.items():
                entry = dst / MEMORY / drawer / f"{slug}.md"
                entry.write_text("\n".join([f"# {title}", "", *body]) + "\n", encoding="utf-8")
                written[entry] = entry.read_text(encoding="utf-8").splitlines()
                columns = 4 if drawer != "semantic" else 5
                # One awkward cell per row: the title, where a team's text lands.
                cells = [slug, title] + [slug] * (columns - 3) + [f"{slug}.md"]
                rows.append(row_text(cells))
            with index.open("a", encoding="utf-8") as handle:
                handle.write("".join(row + "\n" for row in rows))
            written[index] = rows
        before = {
            drawer: catalog_cells(tables, dst / MEMORY / drawer / "INDEX.md") for drawer in DURABLE
        }
        commit_all(dst, "team memories")

        update_project(dst, vcs_ref=tag)

        reshaped = RESHAPED.get(tag, {})
        for drawer in DURABLE:
            after = catalog_cells(tables, dst / MEMORY / drawer / "INDEX.md")
            if drawer in reshaped:
                new = reshaped[drawer]
                for file, cells in before[drawer].items():
                    moved = {RENAMES.get(name, name): cell for name, cell in cells.items()}
                    assert after[file] == {name: moved.get(name, "-") for name in new}, file
            else:
                assert after == before[drawer], drawer
        for path, lines in written.items():
            text = path.read_text(encoding="utf-8")
            present = text.splitlines()
            if path.name == "INDEX.md" and path.parent.name in reshaped:
                continue  # its rows were compared cell by cell above
            assert all(line in present for line in lines), path
            assert not [line for line in present if line.startswith(("<<<<<<<", ">>>>>>>"))]
        status = git(dst, "status", "--porcelain", "--untracked-files=all")
        assert ".rej" not in status and not [s for s in status.splitlines() if s[:2] == "UU"]
        if markers[tag]:
            assert markers[tag] in (dst / MEMORY / "semantic/INDEX.md").read_text()
        assert (dst / SKILL / "SKILL.md").is_file()
