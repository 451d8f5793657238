"""`eco_mem.pyz verify`, run the way a user runs it: a real render in a real git
repository, the script in a subprocess, findings read from its `--json` report.

Stores live in tests/fixtures/stores/ (its README explains the layout): each
broken one must produce exactly one finding, with its rule id, path and line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

import pytest

from extensions.protocol import CAPS
from tests.helpers import (
    ANSWERS,
    MEMORY,
    PROJECT,
    SKILL,
    assert_no_traceback,
    commit_all,
    git,
    run_script,
)

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "stores"
TODAY = "2026-11-30"
ERROR, WARNING = "error", "warning"
BOM = b"\xef\xbb\xbf"


# -- `host` (conftest) is a fresh copy of a render made once per module ------


def lay_store(host: Path, name: str) -> None:
    """Copy a fixture store over the rendered one; INDEX.rows extend the catalogs."""
    store = FIXTURES / name
    assert store.is_dir(), f"no fixture store {name}"
    for source in sorted(store.rglob("*")):
        if source.is_dir():
            continue
        relative = source.relative_to(store)
        target = host / MEMORY / relative
        if source.name == "INDEX.rows":
            append_rows(host, str(relative.parent), source.read_text(encoding="utf-8"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


def append_rows(host: Path, drawer: str, rows: str) -> None:
    with (host / MEMORY / drawer / "INDEX.md").open("a", encoding="utf-8") as index:
        index.write(rows)


# -- running verify and reading its report -------------------------------------


@dataclass
class Report:
    code: int
    json: dict

    @property
    def found(self) -> list[tuple[str, str, int, str]]:
        return [(f["rule"], f["path"], f["line"], f["severity"]) for f in self.json["findings"]]


def verify(host: Path, *flags: str, timeout: float = 60) -> Report:
    """`verify --json --today TODAY`, with a timeout so a blocking read fails the test."""
    script = host / SKILL / "scripts/eco_mem.pyz"
    command = [sys.executable, str(script), "verify", "--json", "--today", TODAY, *flags]
    result = subprocess.run(command, cwd=host, capture_output=True, text=True, timeout=timeout)
    assert result.returncode in (0, 1), result.stderr
    return Report(result.returncode, json.loads(result.stdout))


@dataclass(frozen=True)
class On:
    """The 1-based number of the one line of a file that contains `text`."""

    text: str

    def resolve(self, path: Path) -> int:
        needle = self.text.encode("utf-8")
        numbers = [n for n, line in enumerate(path.read_bytes().split(b"\n"), 1) if needle in line]
        assert len(numbers) == 1, f"{self.text!r} is on lines {numbers} of {path}"
        return numbers[0]


Line = Union[int, On]


def line_in(host: Path, path: str, line: Line) -> int:
    return line.resolve(host / path) if isinstance(line, On) else line


# -- stores broken in exactly one way ------------------------------------------

Mangle = Callable[[bytes], bytes]


@dataclass
class Broken:
    """A fixture store (maybe none), the damage the test adds, and the one finding."""

    store: str  # fixture folder name: the rule id, then an optional --variant
    path: str  # of the finding, under .agents/memory/ ("" for the folder itself)
    line: Line
    severity: str = ERROR
    mangle: dict[str, Mangle] = field(default_factory=dict)  # path -> bytes edit
    remove: tuple[str, ...] = ()  # paths under .agents/memory/ to delete

    @property
    def rule(self) -> str:
        return self.store.split("--")[0]

    def __str__(self) -> str:
        return self.store


def replacing(old: str, new: str) -> Mangle:
    def edit(data: bytes) -> bytes:
        assert old.encode() in data, f"{old!r} not found"
        return data.replace(old.encode(), new.encode(), 1)

    return edit


def padded_to(lines: int) -> Mangle:
    return lambda data: data + b"- more detail\n" * (lines - data.count(b"\n"))


def build(host: Path, case: Broken) -> None:
    if (FIXTURES / case.store).is_dir():
        lay_store(host, case.store)
    for relpath, edit in case.mangle.items():
        target = host / MEMORY / relpath
        target.write_bytes(edit(target.read_bytes()))
    for relpath in case.remove:
        target = host / MEMORY / relpath
        shutil.rmtree(target) if target.is_dir() else target.unlink()


def assert_only_finding(host: Path, case: Broken) -> None:
    build(host, case)
    report = verify(host)
    path = f"{MEMORY}/{case.path}".rstrip("/")
    assert report.found == [(case.rule, path, line_in(host, path, case.line), case.severity)]
    assert report.code == (1 if case.severity == ERROR else 0)


SEMANTIC_INDEX = "semantic/INDEX.md"
SEMANTIC_HEADER = "| slug | one-liner | as_of | source | file |\n|---|---|---|---|---|\n"

STRUCTURE = [
    Broken("structure.missing-root", "", 0, remove=("",)),
    Broken("structure.extra-directory--fifth-folder", "archive", 0),
    Broken("structure.extra-directory--subfolder-in-drawer", "semantic/old", 0),
    Broken("structure.stray-file--in-drawer", "episodic/notes.txt", 0),
    Broken("structure.stray-file--in-memory-root", "todo.txt", 0),
    Broken("structure.missing-drawer", "procedural", 0, remove=("procedural",)),
    Broken("structure.missing-index", SEMANTIC_INDEX, 0, remove=(SEMANTIC_INDEX,)),
]


@pytest.mark.parametrize("case", STRUCTURE, ids=str)
def test_a_store_out_of_shape_is_reported_where_it_breaks(host: Path, case: Broken) -> None:
    assert_only_finding(host, case)


CATALOG_AND_DRIFT = [
    Broken(
        "catalog.malformed--no-catalog-heading",
        SEMANTIC_INDEX,
        0,
        mangle={SEMANTIC_INDEX: replacing("## Catalog", "## Facts")},
    ),
    Broken(
        "catalog.malformed--no-table",
        SEMANTIC_INDEX,
        On("## Catalog"),
        mangle={SEMANTIC_INDEX: replacing(SEMANTIC_HEADER, "")},
    ),
    Broken(
        "catalog.malformed--no-separator",
        SEMANTIC_INDEX,
        On("| right-under-the-header |"),
        mangle={SEMANTIC_INDEX: replacing("|---|---|---|---|---|\n", "")},
    ),
    Broken("catalog.malformed--row-cell-count", SEMANTIC_INDEX, On("| half-a-row |")),
    Broken(
        "catalog.columns",
        SEMANTIC_INDEX,
        On("| summary |"),
        mangle={SEMANTIC_INDEX: replacing("| one-liner |", "| summary |")},
    ),
    Broken("drift.row-without-file", SEMANTIC_INDEX, On("| deleted-fact |")),
    Broken("drift.row-without-file--no-file-named", SEMANTIC_INDEX, On("| nameless |")),
    Broken("drift.file-without-row", "semantic/lint-first.md", 0),
    Broken("drift.duplicate-row", "episodic/INDEX.md", On("| same migration, filed twice |")),
    Broken("drift.path-escapes--parent-row", "episodic/INDEX.md", On("../semantic/INDEX.md")),
    Broken("drift.path-escapes--subfolder-row", "episodic/INDEX.md", On("2026/flaky")),
    Broken("drift.path-escapes--absolute-row", "episodic/INDEX.md", On("/etc/hostname")),
    # Desks are listed by their files: a row (the old layout) is what `commit -a` spreads.
    Broken("working.desk-row", "working/INDEX.md", On("| fix-login |")),
]


@pytest.mark.parametrize("case", CATALOG_AND_DRIFT, ids=str)
def test_catalog_rows_and_entry_files_must_match_one_to_one(host: Path, case: Broken) -> None:
    assert_only_finding(host, case)


CAPS_CASES = [
    Broken("caps.desks", "working/delta.md", 0),
    Broken(
        "caps.desk-lines",
        "working/long-task.md",
        CAPS["desk_lines"] + 1,
        mangle={"working/long-task.md": padded_to(CAPS["desk_lines"] + 1)},
    ),
    Broken(
        "caps.semantic-lines",
        "semantic/long-fact.md",
        CAPS["semantic_lines"] + 1,
        mangle={"semantic/long-fact.md": padded_to(CAPS["semantic_lines"] + 1)},
    ),
    Broken(
        "caps.episodic-lines",
        "episodic/2026-10-20-long-story.md",
        CAPS["episodic_lines"] + 1,
        mangle={"episodic/2026-10-20-long-story.md": padded_to(CAPS["episodic_lines"] + 1)},
    ),
    Broken(
        "caps.procedural-lines",
        "procedural/cut-a-release.md",
        CAPS["procedural_lines"] + 1,
        mangle={"procedural/cut-a-release.md": padded_to(CAPS["procedural_lines"] + 1)},
    ),
    Broken("caps.catalog-rows", "procedural/INDEX.md", On("| pointer 41 |")),
]


@pytest.mark.parametrize("case", CAPS_CASES, ids=str)
def test_caps_report_the_first_line_or_row_past_the_limit(host: Path, case: Broken) -> None:
    assert_only_finding(host, case)


def test_the_caps_fixtures_sit_exactly_one_past_the_protocol_numbers() -> None:
    desks = list((FIXTURES / "caps.desks/working").glob("*.md"))
    rows = (FIXTURES / "caps.catalog-rows/procedural/INDEX.rows").read_text().splitlines()
    assert (len(desks), len(rows)) == (CAPS["desks"] + 1, CAPS["catalog_rows"] + 1)


FACT = "semantic/formatter.md"

SEMANTIC = [
    Broken("semantic.field-missing--absent", FACT, 0),
    Broken("semantic.field-missing--empty", FACT, On("- scope:")),
    Broken("semantic.as-of--malformed", FACT, On("- as_of: 09/01/2026")),
    Broken("semantic.as-of--future", FACT, On("- as_of: 2026-12-25")),
    Broken("semantic.source", FACT, On("- source: the user said so")),
    Broken("semantic.expires", FACT, On("- expires: when ruff 1.0 ships")),
    Broken("semantic.expired", FACT, On("- expires: 2026-11-29")),
    Broken("semantic.relative-date--as-of", FACT, On("- as_of: yesterday")),
    Broken("semantic.relative-date--in-body", FACT, On("last week"), severity=WARNING),
    Broken("semantic.duplicate--title", "semantic/ruff-format.md", 1),
    Broken("semantic.duplicate--slug", SEMANTIC_INDEX, On("| ruff lints |")),
    Broken("semantic.one-fact--two-titles", "semantic/ruff.md", On("# Ruff lints the code")),
    Broken("semantic.one-fact--no-title", FACT, 1),
    Broken("semantic.one-fact--field-twice", FACT, On("- source: derived")),
]


@pytest.mark.parametrize("case", SEMANTIC, ids=str)
def test_semantic_facts_carry_provenance_a_reader_can_trust(host: Path, case: Broken) -> None:
    assert_only_finding(host, case)


EPISODE = "episodic/2026-10-20-dependency-bump.md"
EPISODIC_AND_PROCEDURAL = [
    Broken("episodic.section-missing", EPISODE, 0),
    Broken("episodic.no-lesson--missing", EPISODE, 0),
    Broken("episodic.no-lesson--empty", EPISODE, On("## Lesson")),
    Broken("procedural.pointer-missing", "procedural/INDEX.md", On("scripts/deploy.sh")),
    Broken("procedural.pointer-escapes--parent", "procedural/INDEX.md", On("../ops/deploy.md")),
    Broken("procedural.pointer-escapes--absolute", "procedural/INDEX.md", On("/usr/local/bin")),
    Broken("procedural.empty-row", "procedural/INDEX.md", On("| deploy |")),
]


@pytest.mark.parametrize("case", EPISODIC_AND_PROCEDURAL, ids=str)
def test_episodes_need_a_lesson_and_procedures_a_real_target(host: Path, case: Broken) -> None:
    assert_only_finding(host, case)


FILE_BYTES = [
    Broken("file.bom", FACT, 1, mangle={FACT: lambda data: BOM + data}),
    Broken("file.crlf", FACT, 1, mangle={FACT: lambda data: data.replace(b"\n", b"\r\n")}),
    Broken("file.binary", FACT, 0, mangle={FACT: lambda data: data + b"\0"}),
    Broken(
        "file.encoding",
        FACT,
        On("Agreed at the team caf"),
        mangle={FACT: lambda data: data.decode("utf-8").encode("latin-1")},
    ),
]


@pytest.mark.parametrize("case", FILE_BYTES, ids=str)
def test_memory_files_are_plain_utf8_with_lf_line_ends(host: Path, case: Broken) -> None:
    assert_only_finding(host, case)


def test_cr_line_ends_are_reported_on_the_first_line_that_has_one(host: Path) -> None:
    lay_store(host, "file.crlf")
    fact = host / MEMORY / FACT
    fact.write_bytes(fact.read_bytes().replace(b"- source: verified\n", b"- source: verified\r\n"))

    assert verify(host).found == [("file.crlf", f"{MEMORY}/{FACT}", 4, ERROR)]


def test_a_ten_megabyte_entry_is_refused_unread(host: Path) -> None:
    lay_store(host, "file.binary")  # an intact fact and its row
    (host / MEMORY / FACT).write_bytes(b"# Huge\n" + b"a" * (10 * 1024 * 1024))

    report = verify(host, timeout=30)  # a hang guard; benchmarks/adversarial.py times it

    assert report.found == [("file.too-large", f"{MEMORY}/{FACT}", 0, ERROR)]


# -- stores that must pass ------------------------------------------------------

PROTOCOL_EXAMPLE = """\
# Prefers concise answers
- as_of: 2026-09-09
- source: user-confirmed
- scope: writing
- expires: never

User prefers concise answers with the constraint first.
"""


def test_the_protocol_example_fact_passes_as_written(host: Path) -> None:
    example = FIXTURES / "clean--protocol-example/semantic/prefers-concise-answers.md"
    assert example.read_text(encoding="utf-8") == PROTOCOL_EXAMPLE
    lay_store(host, "clean--protocol-example")

    report = verify(host)

    assert (report.code, report.found) == (0, [])


@pytest.mark.parametrize("store", ["clean--every-drawer", "clean--catalog-cells"])
def test_well_kept_stores_verify_with_zero_findings(host: Path, store: str) -> None:
    lay_store(host, store)

    report = verify(host)

    assert (report.code, report.found, report.json["ok"]) == (0, [], True)


def test_a_fresh_install_verifies_clean(host: Path) -> None:
    result = run_script(host, "verify")

    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == "eco-mem verify: clean\n"


def test_a_loose_markdown_file_beside_the_drawers_is_stray(host: Path) -> None:
    (host / MEMORY / "notes.md").write_text("# Notes that belong in no drawer\n")

    assert verify(host).found == [("structure.stray-file", f"{MEMORY}/notes.md", 0, ERROR)]


# -- the catalog parser ---------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "cells"),
    [
        pytest.param("| a | b |", ["a", "b"], id="plain"),
        pytest.param(r"| a \| b | c |", ["a | b", "c"], id="escaped-pipe"),
        pytest.param("| `a|b` | c |", ["`a|b`", "c"], id="pipe-in-code-span"),
        pytest.param("| [x](x.md) | `y.md` |", ["[x](x.md)", "`y.md`"], id="link-and-code"),
        pytest.param("a | b", ["a", "b"], id="no-edge-pipes"),
    ],
)
def test_table_lines_split_on_unescaped_pipes_outside_code(ecomem, line: str, cells: list) -> None:
    from ecomem.store.catalog import split_cells

    assert split_cells(line) == cells


@pytest.mark.parametrize(
    "cell",
    ["fact.md", "`fact.md`", "[fact](fact.md)", "[`fact.md`](fact.md)", "  fact.md  "],
)
def test_a_file_cell_names_its_file_plain_in_backticks_or_as_a_link(ecomem, cell: str) -> None:
    from ecomem.store.catalog import cell_path

    assert cell_path(cell) == "fact.md"


def test_catalog_cells_with_pipes_and_links_match_their_files(host: Path) -> None:
    lay_store(host, "clean--catalog-cells")
    rows = (host / MEMORY / SEMANTIC_INDEX).read_text(encoding="utf-8")
    assert r"a \| b" in rows and "`grep -E 'warn|error'`" in rows and "[pipes-in-shell](" in rows

    assert verify(host).found == []


def test_a_lone_backtick_in_a_cell_does_not_swallow_the_row(host: Path) -> None:
    lay_store(host, "clean--protocol-example")
    index = host / MEMORY / SEMANTIC_INDEX
    index.write_text(
        index.read_text(encoding="utf-8").replace("constraint first", "start with a ` quote"),
        encoding="utf-8",
    )

    assert verify(host).found == []


def test_a_link_written_dot_slash_names_the_file_beside_the_index(host: Path) -> None:
    lay_store(host, "clean--protocol-example")
    index = host / MEMORY / SEMANTIC_INDEX
    text = index.read_text(encoding="utf-8")
    index.write_text(
        text.replace("| prefers-concise-answers.md |", "| [fact](./prefers-concise-answers.md) |"),
        encoding="utf-8",
    )

    assert verify(host).found == []


# -- nothing outside the repository is read ---------------------------------------


@pytest.fixture
def outside_fifo(tmp_path: Path) -> Path:
    """A FIFO beside the host repo: opening it for reading blocks forever."""
    fifo = tmp_path / "outside.md"
    os.mkfifo(fifo)
    return fifo


@pytest.mark.parametrize("how", ["absolute", "relative"])
def test_a_symlink_out_of_a_drawer_is_reported_and_never_opened(
    host: Path, outside_fifo: Path, how: str
) -> None:
    link = host / MEMORY / "semantic/leak.md"
    link.symlink_to(outside_fifo if how == "absolute" else Path("../../../../outside.md"))
    assert link.resolve() == outside_fifo

    report = verify(host, timeout=20)

    assert report.found == [("drift.path-escapes", f"{MEMORY}/semantic/leak.md", 0, ERROR)]


def test_a_symlinked_folder_out_of_a_drawer_is_not_walked(host: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    os.mkfifo(tmp_path / "elsewhere/trap.md")
    (host / MEMORY / "episodic/imported").symlink_to(tmp_path / "elsewhere")

    report = verify(host, timeout=20)

    assert report.found == [("drift.path-escapes", f"{MEMORY}/episodic/imported", 0, ERROR)]


def test_a_catalog_row_climbing_to_a_fifo_is_reported_and_never_opened(
    host: Path, outside_fifo: Path
) -> None:
    row = "| leak | x | 2026-09-01 | verified | ../../../../outside.md |\n"
    append_rows(host, "semantic", row)
    index = f"{MEMORY}/{SEMANTIC_INDEX}"
    assert (host / index).parent.joinpath("../../../../outside.md").resolve() == outside_fifo

    report = verify(host, timeout=20)

    assert report.found == [
        ("drift.path-escapes", index, On("outside.md").resolve(host / index), ERROR)
    ]


@pytest.mark.parametrize("pointer", ["../outside.md", "vendor/outside.md"])
def test_a_procedural_pointer_out_of_the_repo_is_reported_and_never_opened(
    host: Path, outside_fifo: Path, pointer: str
) -> None:
    (host / "vendor").symlink_to(outside_fifo.parent)  # an in-repo path that leads out
    append_rows(host, "procedural", f"| leak | x | {pointer} | - |\n")
    index = f"{MEMORY}/procedural/INDEX.md"

    report = verify(host, timeout=20)

    expected = ("procedural.pointer-escapes", index, On(pointer).resolve(host / index), ERROR)
    assert report.found == [expected]


def test_a_symlink_in_a_drawer_is_an_error_and_never_read(host: Path) -> None:
    # Links inside the drawer too: a commit can hold any of them, dangling or not.
    (host / MEMORY / "semantic/ghost.md").symlink_to("deleted.md")
    (host / MEMORY / "semantic/real.md").write_text("x\n", encoding="utf-8")
    (host / MEMORY / "semantic/alias.md").symlink_to("real.md")
    append_rows(host, "semantic", "| ghost | x | 2026-09-01 | verified | ghost.md |\n")

    report = verify(host)

    links = [found for found in report.found if found[0] == "structure.link"]
    assert links == [
        ("structure.link", f"{MEMORY}/semantic/alias.md", 0, ERROR),
        ("structure.link", f"{MEMORY}/semantic/ghost.md", 0, ERROR),
    ]
    assert "file.unreadable" not in {found[0] for found in report.found}


def test_a_fifo_inside_a_drawer_is_reported_not_waited_on(host: Path) -> None:
    os.mkfifo(host / MEMORY / "semantic/pipe.md")
    append_rows(host, "semantic", "| pipe | x | 2026-09-01 | verified | pipe.md |\n")

    report = verify(host, timeout=3)

    assert report.code == 1
    assert sorted((rule, path) for rule, path, _, _ in report.found) == [
        ("drift.row-without-file", f"{MEMORY}/{SEMANTIC_INDEX}"),  # a FIFO is no entry
        ("structure.stray-file", f"{MEMORY}/semantic/pipe.md"),
    ]


# -- rules that read git --------------------------------------------------------

DESK = f"{MEMORY}/working/fix-login-timeout.md"
WORKING_INDEX = f"{MEMORY}/working/INDEX.md"
EPISODE_PATH = f"{MEMORY}/episodic/2026-10-02-flaky-migration.md"


def commit_episodes(host: Path, message: str) -> None:
    """Commit the episodic drawer only: desk rows stay local, as the protocol wants."""
    git(host, "add", f"{MEMORY}/episodic")
    git(host, "commit", "-q", "-m", message)


def test_a_desk_committed_to_git_is_reported(host: Path) -> None:
    lay_store(host, "clean--every-drawer")
    git(host, "add", "--force", DESK)
    commit_all(host, "oops, a desk")

    # No origin/HEAD here: a branch named main or master is taken for the default.
    assert verify(host).found == [("working.tracked-desk", DESK, 0, ERROR)]


def test_a_desk_travels_on_a_task_branch_and_fails_only_on_the_default(host: Path) -> None:
    lay_store(host, "clean--every-drawer")
    git(host, "checkout", "-q", "-b", "task")
    git(host, "add", "--force", DESK)
    commit_all(host, "the desk travels with the task")

    assert verify(host).found == []
    assert verify(host, "--staged").found == []
    named = verify(host, "--default-branch", "task")
    assert named.found == [("working.tracked-desk", DESK, 0, ERROR)]
    assert "git rm --cached" in named.json["findings"][0]["message"]
    # A clone's origin/HEAD names the default branch, whatever it is called.
    clone = host.parent / "clone"
    git(host.parent, "clone", "-q", "-b", "task", str(host), str(clone))
    git(clone, "remote", "set-head", "origin", "task")
    assert verify(clone).found == [("working.tracked-desk", DESK, 0, ERROR)]
    git(clone, "remote", "set-head", "origin", "main")
    assert verify(clone).found == []


def test_desk_rows_staged_for_commit_are_reported_only_with_staged(host: Path) -> None:
    lay_store(host, "clean--every-drawer")
    index = host / WORKING_INDEX
    before = index.read_text()
    append_rows(
        host, "working", "| fix-login-timeout | sessions survive idle | fix-login-timeout.md |\n"
    )
    git(host, "add", WORKING_INDEX)
    row_line = On("| fix-login-timeout |").resolve(index)
    index.write_text(before)  # the work tree is clean again; only the staged INDEX has it

    assert verify(host).found == []
    staged = verify(host, "--staged")
    assert staged.found == [("working.staged-rows", WORKING_INDEX, row_line, ERROR)]
    assert staged.code == 1


def test_rewriting_a_committed_episode_is_reported_when_staged(host: Path) -> None:
    lay_store(host, "clean--every-drawer")
    commit_episodes(host, "an episode")
    episode = host / EPISODE_PATH
    episode.write_text(
        episode.read_text().replace(
            "Wait for the first migration to finish before starting another.",
            "Migrations never fail, so nothing is to be learned here.",
        )
    )
    git(host, "add", EPISODE_PATH)

    assert verify(host).found == []
    assert verify(host, "--staged").found == [("episodic.rewritten", EPISODE_PATH, 0, ERROR)]


def test_a_typo_fix_in_a_committed_episode_is_allowed(host: Path) -> None:
    lay_store(host, "clean--every-drawer")
    episode = host / EPISODE_PATH
    text = episode.read_text()
    episode.write_text(text.replace("lock timeout", "lokc timeuot"))
    commit_episodes(host, "an episode, with typos")
    episode.write_text(text)
    git(host, "add", EPISODE_PATH)

    report = verify(host, "--staged")

    assert (report.code, report.found) == (0, [])


def test_deleting_a_committed_episode_warns_and_strict_makes_it_fail(host: Path) -> None:
    lay_store(host, "clean--every-drawer")
    commit_episodes(host, "an episode")
    git(host, "rm", "-q", EPISODE_PATH)
    index = host / MEMORY / "episodic/INDEX.md"
    index.write_text(
        "".join(line for line in index.read_text().splitlines(True) if "flaky" not in line)
    )
    git(host, "add", str(index))

    lenient, strict = verify(host, "--staged"), verify(host, "--staged", "--strict")

    assert lenient.found == [("episodic.deleted", EPISODE_PATH, 0, WARNING)]
    assert (lenient.code, lenient.json["ok"]) == (0, True)
    assert (strict.code, strict.json["ok"]) == (1, False)


def test_renaming_a_committed_episode_while_rewriting_it_is_reported(host: Path) -> None:
    lay_store(host, "clean--every-drawer")
    commit_episodes(host, "an episode")
    renamed = EPISODE_PATH.replace("flaky-migration", "migration")
    git(host, "mv", EPISODE_PATH, renamed)
    episode = host / renamed
    episode.write_text(episode.read_text().replace("Wait for the first", "Never wait for a"))
    index = host / MEMORY / "episodic/INDEX.md"
    index.write_text(index.read_text().replace("10-02-flaky-migration.md", "10-02-migration.md"))
    git(host, "add", f"{MEMORY}/episodic")

    assert ("episodic.deleted", EPISODE_PATH, 0, WARNING) in verify(host, "--staged").found


def test_rewriting_an_episode_with_a_non_ascii_name_is_reported(host: Path) -> None:
    lay_store(host, "clean--every-drawer")
    accented = EPISODE_PATH.replace("flaky-migration", "migration-café")
    (host / EPISODE_PATH).rename(host / accented)
    index = host / MEMORY / "episodic/INDEX.md"
    index.write_text(
        index.read_text().replace("10-02-flaky-migration.md", "10-02-migration-café.md")
    )
    commit_episodes(host, "an episode with an accent in its name")
    episode = host / accented
    episode.write_text(episode.read_text().replace("Wait for the first", "Never wait for a"))
    git(host, "add", accented)

    # git's -z output keeps the name unquoted, so the rule still sees the episode; a name
    # that is not a slug is an error of its own and is printed withheld.
    withheld = f"{MEMORY}/episodic/[withheld: file name is not a slug]"
    found = verify(host, "--staged").found
    assert ("episodic.rewritten", withheld, 0, ERROR) in found
    assert ("structure.name-not-slug", withheld, 0, ERROR) in found
    assert not [finding for finding in found if "café" in finding[1]]


def test_outside_a_git_repository_the_other_rules_still_run(host: Path) -> None:
    shutil.rmtree(host / ".git")
    lay_store(host, "drift.row-without-file")

    report = verify(host, "--staged")

    line = On("| deleted-fact |").resolve(host / MEMORY / SEMANTIC_INDEX)
    assert report.found == [("drift.row-without-file", f"{MEMORY}/{SEMANTIC_INDEX}", line, ERROR)]


# -- the command line: exit codes, --strict, --root, output shapes -----------------


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        pytest.param(["--today", "2026-02-30"], "is not YYYY-MM-DD", id="today-not-a-date"),
        pytest.param(["--today", "30/11/2026"], "is not YYYY-MM-DD", id="today-not-iso"),
        pytest.param(["--today", "tomorrow"], "is not YYYY-MM-DD", id="today-relative"),
        pytest.param(["--bogus"], "unrecognized arguments: --bogus", id="unknown-flag"),
        pytest.param(["--root", "no/such/dir"], "is not a directory", id="root-missing"),
    ],
)
def test_usage_errors_exit_2_without_a_report(host: Path, flags: list, says: str) -> None:
    result = run_script(host, "verify", "--json", *flags)

    assert (result.returncode, result.stdout) == (2, "")
    assert says in result.stderr


def test_a_reader_that_left_gets_exit_2_and_no_traceback(host: Path) -> None:
    # `eco_mem.pyz verify --json | head -0`: the pipe's reader is gone before the report.
    reader, writer = os.pipe()
    os.close(reader)
    script = host / SKILL / "scripts/eco_mem.pyz"
    try:
        result = subprocess.run(
            [sys.executable, str(script), "verify", "--json"],
            cwd=host,
            stdin=subprocess.DEVNULL,
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
        )
    finally:
        os.close(writer)

    assert (result.returncode, result.stderr) == (2, "")


def test_strict_turns_a_warning_into_a_failure(host: Path) -> None:
    lay_store(host, "semantic.relative-date--in-body")

    lenient, strict = verify(host), verify(host, "--strict")

    assert lenient.found == strict.found
    assert [severity for *_, severity in strict.found] == [WARNING]
    assert (lenient.code, strict.code) == (0, 1)


def test_root_points_verify_at_another_repository(host: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(host, other, symlinks=True)
    lay_store(other, "drift.file-without-row")

    report = verify(host, "--root", str(other))

    assert report.json["root"] == str(other)
    assert report.found == [
        ("drift.file-without-row", f"{MEMORY}/semantic/lint-first.md", 0, ERROR)
    ]


def test_root_at_a_folder_without_memory_reports_the_missing_store(
    host: Path, tmp_path: Path
) -> None:
    shutil.copy(host / ANSWERS, tmp_path / ANSWERS)  # installed, its memory folder gone

    report = verify(host, "--root", str(tmp_path))

    assert report.found == [("structure.missing-root", MEMORY, 0, ERROR)]
    assert report.code == 1


def test_root_at_a_folder_without_an_install_is_one_line_and_exit_2(
    host: Path, tmp_path: Path
) -> None:
    result = run_script(host, "verify", "--root", str(tmp_path))

    assert result.returncode == 2
    assert result.stderr == (
        f"eco_mem.pyz verify: no {ANSWERS} at {tmp_path}: eco-mem is not installed there"
        " (--root names the repository)\n"
    )


def test_json_report_has_the_documented_shape(host: Path) -> None:
    lay_store(host, "semantic.relative-date--in-body")
    (host / MEMORY / "todo.txt").write_text("stray\n")

    report = verify(host).json

    assert set(report) == {
        *("version", "root", "memory", "stores", "ok", "counts", "findings", "notes"),
    }
    assert (report["version"], report["memory"], report["ok"]) == (1, MEMORY, False)
    assert report["stores"] == [MEMORY]  # no package store (`init PATH`) here
    assert report["notes"] == []  # a git work tree: every rule ran
    assert report["root"] == str(host.resolve())
    assert report["counts"] == {"error": 1, "warning": 1}
    for finding in report["findings"]:
        assert set(finding) == {"path", "line", "rule", "severity", "message"}
        assert isinstance(finding["line"], int) and finding["message"].strip()
    assert [f["rule"] for f in report["findings"]] == [
        "semantic.relative-date",
        "structure.stray-file",
    ]


def test_text_report_puts_one_finding_per_line_and_a_verdict_on_stderr(host: Path) -> None:
    lay_store(host, "semantic.relative-date--in-body")
    (host / MEMORY / "todo.txt").write_text("stray\n")

    result = run_script(host, "verify", "--today", TODAY)

    line = On("last week").resolve(host / MEMORY / FACT)
    assert result.returncode == 1
    assert_no_traceback(result)
    assert [entry.split(" [")[0] for entry in result.stdout.splitlines()] == [
        f"{MEMORY}/{FACT}:{line}: warning",
        f"{MEMORY}/todo.txt: error",
    ]
    assert result.stderr == "eco-mem verify: 1 error(s), 1 warning(s)\n"


# -- the tables above cover every rule and every fixture ---------------------------

BROKEN = (
    STRUCTURE + CATALOG_AND_DRIFT + CAPS_CASES + SEMANTIC + EPISODIC_AND_PROCEDURAL + FILE_BYTES
)
CLEAN = {"clean--protocol-example", "clean--every-drawer", "clean--catalog-cells"}
TESTED_ON_THEIR_OWN = {
    "working.tracked-desk",
    "working.staged-rows",
    "episodic.rewritten",
    "episodic.deleted",
    "file.too-large",
    "file.unreadable",
    # Written by the memory commands; tests/test_memory_*.py prove each one.
    "structure.interrupted-write",
    "structure.link",  # test_a_symlink_in_a_drawer_is_an_error_and_never_read
    "episodic.append-only",
    "semantic.user-confirmed",
    # The rules' byte budget needs a store past 8 KB of marked rows, written through the
    # commands: tests/test_load_rules.py::test_verify_bounds_the_rules_bytes_and_names_the_rows.
    "caps.always-bytes",
    # Names that are not slugs, in every drawer: tests/test_normalised_text.py.
    "structure.name-not-slug",
    # Package paths that are not plain: tests/test_store_paths.py.
    "structure.store-name",
    # Line ends other than LF (U+2028, NEL, VT...): tests/test_text_gates.py.
    "file.line-separator",
    # A line past the line cap, in every reader: tests/test_bounds.py.
    "file.line-too-long",
    # A host tool's settings edited at the memory root: tests/test_host_tools.py.
    "structure.tool-settings",
    # A row that starts like an [always] mark but is none: tests/test_always_rows.py.
    "catalog.always-mark",
    # A drawer or memory folder that is a submodule: tests/test_nested_repository.py.
    "structure.nested-repository",
    # end-task's refusal of a desk a branch brought in: tests/test_branch_provenance.py.
    "working.unreviewed",
}
RULE_ID = re.compile(
    r'"((?:structure|catalog|drift|caps|working|semantic|episodic|procedural|file)\.[a-z-]+)"'
)


def test_every_rule_the_verify_modules_can_report_has_a_test() -> None:
    modules = PROJECT / "runtime/ecomem"
    source = "".join(path.read_text(encoding="utf-8") for path in sorted(modules.rglob("*.py")))
    rules = set(RULE_ID.findall(source))

    assert len(rules) >= 40
    assert rules - {case.rule for case in BROKEN} - TESTED_ON_THEIR_OWN == set()


def test_every_fixture_store_is_used_and_each_broken_one_only_once() -> None:
    folders = {path.name for path in FIXTURES.iterdir() if path.is_dir()}
    stores = [case.store for case in BROKEN]

    assert len(stores) == len(set(stores))
    assert folders - set(stores) - CLEAN == set()
