"""`copier update` keeps every byte a team wrote and brings every protocol fix.

Each test is the same story: the template is tagged v1.0.0, a host copies it
and lives with it (facts, episodes, edits), commits, then updates to v2.0.0
(or v3.0.0) and we compare exact bytes. Modelled on copier's test_updatediff.
The tests of what one plain update keeps and brings read one such host, `lived`,
updated once; a test whose host differs (a fork, a deleted INDEX) has its own.
"""

from __future__ import annotations

import dataclasses
import os
import zipfile
from pathlib import Path

import pytest

from tests.helpers import (
    ANSWERS,
    HOST_RUNTIME,
    MEMORY,
    RUNTIME_CONTRACTS,
    RUNTIME_PROTOCOL,
    SKILL,
    assert_no_traceback,
    build_files,
    built_once,
    commit_all,
    copy_template,
    git,
    init_repo,
    replace_in,
    run_ops,
    run_script,
    snapshot_template,
    update_project,
)

pytestmark = pytest.mark.start_early(seconds=275)  # see tests/conftest.py

SKILL_SRC = "template/{{skill_path}}/eco-mem"
DRAWERS = ("working", "semantic", "episodic", "procedural")
BEGIN, END = "<!-- eco-mem:begin -->", "<!-- eco-mem:end -->"


def release_v2(repo: Path) -> None:
    """A protocol release touching every template-owned surface at once."""
    replace_in(repo / SKILL_SRC / "SKILL.md.jinja", "\n# eco-mem\n", "\n# eco-mem, v2\n")
    replace_in(repo / SKILL_SRC / "SKILL.md.jinja", "## Relay at task end", "## Relay at the end")
    replace_in(repo / RUNTIME_CONTRACTS, "Rules for reading and writing", "How to use it")
    replace_in(repo / RUNTIME_PROTOCOL, '"desk_lines": 80', '"desk_lines": 60')
    (repo / SKILL_SRC / "references/faq.md").write_text("# FAQ\n\nNew in v2.\n")
    replace_in(
        repo / "runtime/ecomem/hostfiles/blocks.py",
        "## Agent memory (eco-mem)",
        "## Memory for agents (eco-mem)",
    )


def release_v3(repo: Path) -> None:
    """v2 plus a reshaped semantic catalog: `one-liner` renamed, `scope` added."""
    release_v2(repo)
    replace_in(
        repo / RUNTIME_PROTOCOL,
        '"semantic": ("slug", "one-liner", "as_of", "source", "file")',
        '"semantic": ("slug", "fact", "scope", "as_of", "source", "file")',
    )
    # The documented recipe (docs/development.md, "Releases that reshape a catalog").
    with (repo / "copier.yml").open("a") as config:
        config.write(
            """\
  - version: v3.0.0
    when: "{{ _stage == 'before' }}"
    command: ["{{ _copier_python }}", "-I", "{{ _copier_conf.src_path }}/ops.py",
              "catalog-migrate", "--root", ".", "--stage", "before"]
  - version: v3.0.0
    command: ["{{ _copier_python }}", "-I", "{{ _copier_conf.src_path }}/ops.py",
              "catalog-migrate", "--root", ".", "--stage", "after", "--rename", "semantic:one-liner=fact"]
"""
        )


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("versions") / "eco-mem"
    snapshot_template(repo, "v1.0.0")
    snapshot_template(repo, "v2.0.0", mutate=release_v2)
    snapshot_template(repo, "v3.0.0", mutate=release_v3)
    return repo


def fact(title: str) -> str:
    return (
        f"# {title}\n\n- as_of: 2026-09-09\n- source: verified\n- scope: build\n"
        f"- expires: never\n\n{title}, checked in CI.\n"
    )


def episode(title: str) -> str:
    return (
        f"# {title}\n\n## Context\nDeploy.\n\n## Action\nRan it.\n\n"
        f"## Result\nFailed.\n\n## Lesson\nRun migrations first.\n"
    )


def months_of_use(dst: Path) -> dict[str, bytes]:
    """5 facts, 3 episodes, 2 procedural rows, as a team would write them."""
    files: dict[str, str] = {"docs/release.md": "# Release\n"}
    rows: dict[str, list[str]] = {"semantic": [], "episodic": [], "procedural": []}
    for n in range(5):
        files[f"{MEMORY}/semantic/fact-{n}.md"] = fact(f"Fact {n}")
        rows["semantic"].append(f"| fact-{n} | fact {n} | 2026-09-09 | verified | fact-{n}.md |")
    for n in range(3):
        name = f"2026-10-0{n + 1}-deploy-{n}.md"
        files[f"{MEMORY}/episodic/{name}"] = episode(f"Deploy {n}")
        rows["episodic"].append(f"| 2026-10-0{n + 1} | deploy {n} | migrations first | {name} |")
    files[f"{MEMORY}/procedural/release-checklist.md"] = "# Release\n\n1. tag\n2. push\n"
    rows["procedural"] += [
        "| release | cutting a release | docs/release.md | - |",
        "| checklist | before tagging | - | release-checklist.md |",
    ]
    build_files(dst, files)
    for drawer, lines in rows.items():
        with (dst / MEMORY / drawer / "INDEX.md").open("a", encoding="utf-8") as index:
            index.write("".join(line + "\n" for line in lines))
    commit_all(dst, "months of use")
    return {path: (dst / path).read_bytes() for path in files}


def installed(template: Path, dst: Path) -> None:
    """`dst` with v1.0.0 installed and committed. Into an empty repository it is rendered
    once per template, then copied (git dir included): these tests are about the update
    that follows. A repository holding the test's own files gets a render of its own."""

    def install(host: Path) -> None:
        copy_template(template, host, vcs_ref="v1.0.0")
        commit_all(host, "install eco-mem v1")

    if [path.name for path in dst.iterdir()] == [".git"]:
        built_once(dst, template.parent / "first-v1-install", install)
    else:
        install(dst)


def team_bytes_intact(dst: Path, team: dict[str, bytes]) -> None:
    for path, content in team.items():
        assert (dst / path).read_bytes() == content, path


def no_conflicts(dst: Path) -> None:
    status = git(dst, "status", "--porcelain", "--untracked-files=all")
    assert not [line for line in status.splitlines() if line[:2] in {"UU", "AA", "DU", "UD"}]
    assert ".rej" not in status
    for path in dst.rglob("*"):
        if ".git" not in path.parts and path.is_file() and not path.is_symlink():
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
            assert not [line for line in lines if line.startswith(("<<<<<<< ", ">>>>>>> "))], path


def catalog_rows(dst: Path, drawer: str) -> list[str]:
    lines = (dst / MEMORY / drawer / "INDEX.md").read_text(encoding="utf-8").splitlines()
    return [line for line in lines[lines.index("## Catalog") + 4 :] if line.startswith("|")]


OWN_ANSWERS = "_src_path: gh:acme/service-template\n_commit: v7.0.0\nname: billing\n"
AGENTS_ABOVE, AGENTS_BELOW = "# Team\n\nAbove our block.\n\n", "\nBelow our block.\n"
DESK = "# Fix login\n\n## Goal\nUsers log in.\n"


@dataclasses.dataclass
class Lived:
    """A v1.0.0 host as a team leaves it after months, then updated to v2.0.0 once."""

    host: Path
    team: dict[str, bytes]  # the memories and docs the team committed before the update
    rows_before: dict[str, list[str]]


@pytest.fixture(scope="module")
def lived(template: Path, tmp_path_factory: pytest.TempPathFactory) -> Lived:
    """The story the tests below read, each a part of it, with one `copier update`
    (each used to run its own): the host had a Copier answers file of its own before
    the install, then the team wrote memories, text around our AGENTS.md block, and a
    desk it has open (not committed) when the update comes."""
    dst = init_repo(tmp_path_factory.mktemp("lived") / "host")
    build_files(dst, {".copier-answers.yml": OWN_ANSWERS})
    installed(template, dst)
    team = months_of_use(dst)
    agents = dst / "AGENTS.md"
    agents.write_text(AGENTS_ABOVE + agents.read_text() + AGENTS_BELOW)
    commit_all(dst, "team edits AGENTS.md")
    rows_before = {drawer: catalog_rows(dst, drawer) for drawer in DRAWERS}
    (dst / MEMORY / "working/fix-login.md").write_text(DESK)

    update_project(dst, vcs_ref="v2.0.0")

    return Lived(dst, team, rows_before)


def test_team_memories_survive_a_protocol_rewrite(lived: Lived) -> None:
    dst = lived.host
    team_bytes_intact(dst, lived.team)
    assert {drawer: catalog_rows(dst, drawer) for drawer in DRAWERS} == lived.rows_before
    assert "# eco-mem, v2" in (dst / SKILL / "SKILL.md").read_text()
    for drawer in DRAWERS:
        assert "How to use it" in (dst / MEMORY / drawer / "INDEX.md").read_text()
    no_conflicts(dst)
    assert run_script(dst, "verify", "--today", "2026-11-30").returncode == 0


def test_agents_md_keeps_team_text_and_gets_the_new_block(lived: Lived) -> None:
    text = (lived.host / "AGENTS.md").read_text()
    assert text.startswith(AGENTS_ABOVE + BEGIN + "\n\n## Memory for agents")
    assert text.endswith(END + "\n" + AGENTS_BELOW)
    assert text.count(BEGIN) == 1


def test_an_open_desk_is_untouched_and_still_ignored(lived: Lived) -> None:
    desk = lived.host / MEMORY / "working/fix-login.md"
    assert desk.read_text() == DESK
    git(lived.host, "check-ignore", "-q", str(desk))


def test_a_cap_change_reaches_skill_contract_and_script(lived: Lived) -> None:
    dst = lived.host
    assert "desks of 60 lines" in (dst / SKILL / "SKILL.md").read_text()
    assert "at most 60 lines" in (dst / MEMORY / "working/INDEX.md").read_text()
    runtime = zipfile.ZipFile(dst / SKILL / "scripts" / HOST_RUNTIME)  # rebuilt by the release
    assert b'"desk_lines": 60' in runtime.read("ecomem/protocol.py")


def test_a_file_new_in_the_skill_appears(lived: Lived) -> None:
    assert (lived.host / SKILL / "references/faq.md").read_text() == "# FAQ\n\nNew in v2.\n"


def test_the_hosts_own_copier_answers_are_untouched(lived: Lived) -> None:
    assert (lived.host / ".copier-answers.yml").read_text() == OWN_ANSWERS
    assert "_commit: v2.0.0" in (lived.host / ANSWERS).read_text()


def test_a_forked_skill_conflicts_loudly_through_the_upgrade_command(
    template: Path, dst: Path
) -> None:
    installed(template, dst)
    replace_in(dst / SKILL / "SKILL.md", "\n# eco-mem\n", "\n# eco-mem, our fork\n")
    commit_all(dst, "fork the protocol")

    result = run_ops(dst, "upgrade", "--", "--defaults", "--vcs-ref", "v2.0.0")

    assert result.returncode == 1, result.stdout + result.stderr
    assert_no_traceback(result)
    assert f"{SKILL}/SKILL.md" in result.stderr
    skill = (dst / SKILL / "SKILL.md").read_text()
    assert "our fork" in skill and "eco-mem, v2" in skill  # both sides kept for the human


def test_a_deleted_index_is_restored_and_entries_untouched(template: Path, dst: Path) -> None:
    installed(template, dst)
    team = months_of_use(dst)
    (dst / MEMORY / "episodic/INDEX.md").unlink()
    commit_all(dst, "oops")

    result = run_ops(dst, "upgrade", "--", "--defaults", "--vcs-ref", "v2.0.0")

    assert result.returncode == 0, result.stdout + result.stderr
    restored = (dst / MEMORY / "episodic/INDEX.md").read_text()
    assert "How to use it" in restored and restored.rstrip().endswith("|---|---|---|---|")
    team_bytes_intact(dst, team)


@pytest.mark.parametrize("start", ["v1.0.0", "v2.0.0"])
def test_a_reshaped_catalog_migrates_rows_from_every_earlier_release(
    template: Path, dst: Path, start: str
) -> None:
    copy_template(template, dst, vcs_ref=start)
    commit_all(dst, f"install {start}")
    team = months_of_use(dst)

    update_project(dst, vcs_ref="v3.0.0")

    assert catalog_rows(dst, "semantic") == [
        f"| fact-{n} | fact {n} | - | 2026-09-09 | verified | fact-{n}.md |" for n in range(5)
    ]
    index = (dst / MEMORY / "semantic/INDEX.md").read_text()
    assert "| slug | fact | scope | as_of | source | file |" in index
    assert len(catalog_rows(dst, "episodic")) == 3
    team_bytes_intact(dst, team)
    no_conflicts(dst)
    assert git(dst, "diff", "--cached", "--name-only") == ""


def test_a_reshaped_catalog_moves_the_rows_of_every_package_store_too(
    template: Path, dst: Path
) -> None:
    # Copier renders only the root store, so catalog-migrate's stash never sees a
    # package INDEX: its rows must move to the new header in place, or verify fails.
    installed(template, dst)
    (dst / "packages/api").mkdir(parents=True)
    assert run_script(dst, "init", "packages/api").returncode == 0
    for n in range(2):
        args = ("--title", f"Api fact {n}", "--source", "verified", "--scope", "repo")
        made = run_script(dst, "new", "semantic", "--store", "packages/api", *args,
                          "--expires", "never", "--body", "Checked.")  # fmt: skip
        assert made.returncode == 0, made.stderr
    commit_all(dst, "a package store with two facts")
    package = dst / "packages/api" / MEMORY / "semantic/INDEX.md"
    before = [line for line in package.read_text().splitlines() if "| api-fact-" in line]
    assert len(before) == 2

    update_project(dst, vcs_ref="v3.0.0")

    text = package.read_text()
    assert "| slug | fact | scope | as_of | source | file |" in text
    after = [line for line in text.splitlines() if "| api-fact-" in line]
    # `one-liner` renamed `fact` keeps its cell; the new `scope` column gets `-`.
    assert after == [
        " | ".join([*row.split(" | ")[:2], "-", *row.split(" | ")[2:]]) for row in before
    ]
    result = run_script(dst, "verify")
    assert result.returncode == 0, result.stdout + result.stderr
    no_conflicts(dst)


TRICKY_TITLES = ("Pipe | in title", "Back\\slash \\| and `code | span`")


def test_a_reshaped_catalog_keeps_pipes_backslashes_and_backticks_in_cells(
    template: Path, dst: Path
) -> None:
    # catalog-migrate used to join the moved cells by hand, so a pipe in a title split
    # its row: exit 0, then verify failed with catalog.malformed and drift.file-without-row.
    installed(template, dst)
    for title in TRICKY_TITLES:
        args = ("--title", title, "--source", "verified", "--scope", "repo", "--expires", "never")
        made = run_script(dst, "new", "semantic", *args, "--body", "Checked.")
        assert made.returncode == 0, made.stderr
    commit_all(dst, "facts with awkward titles")
    before = catalog_rows(dst, "semantic")

    update_project(dst, vcs_ref="v3.0.0")

    after = catalog_rows(dst, "semantic")
    assert [row.split(" | ", 2)[2] for row in after] == [
        "- | " + row.split(" | ", 2)[2] for row in before
    ]
    for title in TRICKY_TITLES:  # rows sit in slug order, not in the order written
        assert any(title.replace("|", "\\|") in row for row in after), title
    result = run_script(dst, "verify")
    assert result.returncode == 0, result.stdout + result.stderr
    no_conflicts(dst)


def test_upgrade_refuses_a_dirty_tree_and_changes_nothing(template: Path, dst: Path) -> None:
    installed(template, dst)
    (dst / MEMORY / "semantic/draft.md").write_text("# Draft\n")
    head = git(dst, "rev-parse", "HEAD")

    result = run_ops(dst, "upgrade", "--", "--defaults")

    assert result.returncode == 2
    assert_no_traceback(result)
    assert "refusing to start" in result.stderr and "uncommitted changes" in result.stderr
    assert git(dst, "rev-parse", "HEAD") == head
    assert "_commit: v1.0.0" in (dst / ANSWERS).read_text()
    assert (dst / MEMORY / "semantic/draft.md").read_text() == "# Draft\n"


@pytest.mark.parametrize("command", ["upgrade", "restore-indexes"])
def test_an_answers_file_that_is_not_utf8_is_one_line_and_exit_2(
    template: Path, dst: Path, command: str
) -> None:
    # It used to be a UnicodeDecodeError traceback and exit 1, which the fleet
    # reported as a conflict.
    installed(template, dst)
    answers = dst / ANSWERS
    answers.write_bytes(answers.read_bytes() + b"# r\xe9sum\xe9 in Latin-1\n")
    (dst / MEMORY / "semantic/INDEX.md").unlink()  # gives restore-indexes work to do
    commit_all(dst, "an editor saved the answers as Latin-1")
    head = git(dst, "rev-parse", "HEAD")

    result = run_ops(dst, command, *(["--", "--defaults"] if command == "upgrade" else []))

    assert result.returncode == 2, result.stdout + result.stderr
    assert_no_traceback(result)
    assert_no_traceback(result)
    assert result.stderr.count("\n") == 1, result.stderr
    assert f"{ANSWERS} is not UTF-8" in result.stderr
    assert git(dst, "rev-parse", "HEAD") == head
    assert git(dst, "status", "--porcelain") == ""


def test_upgrade_reports_a_clean_update(template: Path, dst: Path) -> None:
    installed(template, dst)
    result = run_ops(dst, "upgrade", "--", "--defaults", "--vcs-ref", "v2.0.0")
    assert result.returncode == 0, result.stderr
    assert "upgraded v1.0.0 -> v2.0.0" in result.stdout
    assert os.path.islink(dst / ".claude/skills/eco-mem")


def test_switching_claude_code_off_removes_only_what_we_added(template: Path, dst: Path) -> None:
    build_files(dst, {"CLAUDE.md": "# Claude\n\nKeep answers short.\n"})
    installed(template, dst)
    assert BEGIN in (dst / "CLAUDE.md").read_text()

    update_project(dst, vcs_ref="v2.0.0", claude_code=False)

    assert (dst / "CLAUDE.md").read_text() == "# Claude\n\nKeep answers short.\n"
    assert not os.path.lexists(dst / ".claude/skills/eco-mem")
    assert "claude_code: false" in (dst / ANSWERS).read_text()
