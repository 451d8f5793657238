"""The install and every memory written after it reach git, in repositories as users have them.

Hosts here carry the .gitignore styles found in real agent-heavy repositories:
allow-lists of agent folders and "ignore every dotfile". Each story ends in a
fresh clone, because only what a clone gets was really kept.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from copier.errors import CopierError

from tests.helpers import (
    ANSWERS,
    assert_no_traceback,
    build_files,
    commit_all,
    copier_cli,
    copy_template,
    git,
    init_repo,
    replace_in,
    run_ops,
    run_script,
    snapshot_template,
    update_project,
    work_tree_bytes,
)

pytestmark = pytest.mark.start_early(seconds=260)  # see tests/conftest.py

IGNORE_STYLES = {
    "agents-allow-list": (
        ".agents/*\n!.agents/skills/\n.agents/skills/*\n!.agents/skills/review/\n"
        ".agents/skills/review/*\n!.agents/skills/review/SKILL.md\n"
    ),
    "claude-allow-list": ".claude/*\n!.claude/settings.json\n!.claude/hooks/\n",
    "every-dotfile": "node_modules/\n.*\n!.gitignore\n!.github/\n",
}
# Host files that must stay exactly as ignored, or as tracked, as the host had them.
HOST_FILES = {
    ".agents/skills/review/SKILL.md": "---\nname: review\ndescription: Reviews.\n---\n",
    ".agents/skills/review/notes.txt": "local notes\n",
    ".agents/scratch.txt": "scratch\n",
    ".claude/settings.json": "{}\n",
    ".claude/settings.local.json": "{}\n",
    ".env": "TOKEN=local\n",
    "src/app.py": "print('hi')\n",
}
LAYOUTS = {
    "defaults": {},
    "claude-skills-docs-memory": {"skill_path": ".claude/skills", "memory_path": "docs/memory"},
}
BLOCK_BEGIN, BLOCK_END = "# eco-mem:begin", "# eco-mem:end"
FACT = (
    "# Staging Postgres listens on 6543\n\n- as_of: 2026-11-02\n- source: verified\n"
    "- scope: staging\n- expires: never\n\nThe staging database listens on port 6543.\n"
)


def ignored_by_host(host: Path) -> set[str]:
    listed = git(host, "ls-files", "--others", "--ignored", "--exclude-standard", "-z")
    return set(filter(None, listed.split("\0")))


def without_block(text: str) -> str:
    if BLOCK_BEGIN not in text:
        return text
    head, _, rest = text.partition(BLOCK_BEGIN)
    return head.rstrip("\n") + "\n" + rest.partition(BLOCK_END + "\n")[2]


def write_fact(host: Path, memory: str) -> str:
    """A semantic entry and its row, written by hand as an agent does today."""
    relpath = f"{memory}/semantic/staging-db-port.md"
    build_files(host, {relpath: FACT})
    with (host / memory / "semantic/INDEX.md").open("a", encoding="utf-8") as index:
        index.write(
            "| staging-db-port | Staging Postgres listens on 6543 | 2026-11-02 | verified"
            " | staging-db-port.md |\n"
        )
    return relpath


def host_repo(path: Path, gitignore: str) -> Path:
    host = init_repo(path)
    build_files(host, {".gitignore": gitignore, **HOST_FILES})
    commit_all(host, "the host as it was")
    return host


@pytest.mark.parametrize("layout", LAYOUTS, ids=list(LAYOUTS))
@pytest.mark.parametrize("style", IGNORE_STYLES, ids=list(IGNORE_STYLES))
def test_install_and_memory_reach_a_fresh_clone(
    template_repo: Path, tmp_path: Path, style: str, layout: str
) -> None:
    host = host_repo(tmp_path / "host", IGNORE_STYLES[style])
    hidden_before = ignored_by_host(host)
    answers = LAYOUTS[layout]
    skill = f"{answers.get('skill_path', '.agents/skills')}/eco-mem"
    memory = answers.get("memory_path", ".agents/memory")

    copy_template(template_repo, host, **answers)
    commit_all(host, "install eco-mem")
    entry = write_fact(host, memory)
    commit_all(host, "remember the staging port")
    (host / memory / "working/fix-login.md").write_text("# Desk\n", encoding="utf-8")

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(host), str(clone))
    for path in (f"{skill}/SKILL.md", f"{skill}/scripts/eco_mem.pyz", ANSWERS, entry):
        assert (clone / path).is_file(), path
    for drawer in ("working", "semantic", "episodic", "procedural"):
        assert (clone / memory / drawer / "INDEX.md").is_file(), drawer
    assert (clone / entry).read_text(encoding="utf-8") == FACT
    verify = run_script(clone, "verify", "--today", "2026-11-30", skill=skill)
    assert verify.returncode == 0, verify.stdout + verify.stderr

    # Minimal: what the host ignored stays ignored (but the settings that now hold
    # eco-mem's hook); desks stay local; host lines stay.
    assert hidden_before - {".claude/settings.json"} <= ignored_by_host(host) | {".gitignore"}
    assert f"{memory}/working/fix-login.md" in ignored_by_host(host)
    gitignore = (host / ".gitignore").read_text(encoding="utf-8")
    assert without_block(gitignore) == IGNORE_STYLES[style]


def test_a_host_that_hides_nothing_gets_no_block(rendered: Path) -> None:
    assert not (rendered / ".gitignore").exists()


def test_a_rule_added_later_fails_verify_and_names_the_rule(
    template_repo: Path, tmp_path: Path
) -> None:
    host = host_repo(tmp_path / "host", "*.log\n")
    copy_template(template_repo, host)
    write_fact(host, ".agents/memory")
    commit_all(host, "install and remember")
    with (host / ".gitignore").open("a", encoding="utf-8") as rules:
        rules.write(".agents/memory/semantic/*.md\n")

    result = run_script(host, "verify", "--today", "2026-11-30")
    assert result.returncode == 1
    assert_no_traceback(result)
    assert "[git.ignored]" in result.stdout
    assert ".gitignore:2 `.agents/memory/semantic/*.md`" in result.stdout
    assert ".agents/memory/semantic/staging-db-port.md:" in result.stdout

    fixed = run_script(host, "track")
    assert fixed.returncode == 0, fixed.stderr
    assert fixed.stdout == ".gitignore: 1 re-include rule(s) keep eco-mem in git\n"
    again = run_script(host, "track")
    assert (again.returncode, again.stdout) == (0, "")  # nothing changed, nothing said
    assert run_script(host, "verify", "--today", "2026-11-30").returncode == 0
    assert (host / ".gitignore").read_text().startswith("*.log\n.agents/memory/semantic/*.md\n")


def test_verify_outside_a_work_tree_skips_the_rule_with_a_note(
    rendered: Path, tmp_path: Path
) -> None:
    plain = tmp_path / "plain"
    shutil.copytree(rendered, plain, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    result = run_script(plain, "verify", "--json", "--today", "2026-11-30")
    assert result.returncode == 0, result.stdout
    assert '"git.ignored skipped: not a git work tree' in result.stdout


def test_a_nested_gitignore_fails_the_copy_with_the_lines_to_add(
    template_repo: Path, tmp_path: Path
) -> None:
    host = init_repo(tmp_path / "host")
    build_files(host, {".agents/.gitignore": "*\n"})
    git(host, "add", "-f", ".agents/.gitignore")
    commit_all(host, "a tool ignores its own folder")

    with pytest.raises(CopierError):
        copy_template(template_repo, host)
    advice = run_script(host, "track")
    assert advice.returncode == 1
    assert_no_traceback(advice)
    lines = [line.strip() for line in advice.stderr.splitlines() if line.startswith("    ")]
    assert lines == [
        "!/memory/",
        "!/memory/**",
        "!/skills/",
        "/skills/*",
        "!/skills/eco-mem/",
        "!/skills/eco-mem/**",
    ]

    with (host / ".agents/.gitignore").open("a", encoding="utf-8") as nested:
        nested.write("".join(line + "\n" for line in lines))
    assert run_script(host, "track").returncode == 0
    assert run_script(host, "verify", "--today", "2026-11-30").returncode == 0


# --- updates ---------------------------------------------------------------


def release_v2(repo: Path) -> None:
    replace_in(
        repo / "template/{{skill_path}}/eco-mem/SKILL.md.jinja", "\n# eco-mem\n", "\n# eco-mem v2\n"
    )


def ask_a_new_question(repo: Path) -> None:
    with (repo / "copier.yml").open("a", encoding="utf-8") as config:
        config.write("\nteam_name:\n  type: str\n  default: platform\n  help: Who owns memory?\n")


@pytest.fixture(scope="module")
def versions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("versions") / "eco-mem"
    snapshot_template(repo, "v1.0.0")
    snapshot_template(repo, "v2.0.0", mutate=release_v2)
    snapshot_template(repo, "v2.1.0", mutate=lambda r: (release_v2(r), ask_a_new_question(r)))
    return repo


def test_the_block_goes_away_on_update_once_the_host_stops_hiding(
    versions: Path, tmp_path: Path
) -> None:
    host = host_repo(tmp_path / "host", IGNORE_STYLES["claude-allow-list"])
    copy_template(versions, host, vcs_ref="v1.0.0")
    commit_all(host, "install")
    assert BLOCK_BEGIN in (host / ".gitignore").read_text()
    (host / ".gitignore").write_text("dist/\n", encoding="utf-8")
    commit_all(host, "the host drops its .claude rules")

    update_project(host, vcs_ref="v2.0.0")  # plain copier update, as Renovate runs it
    assert (host / ".gitignore").read_text(encoding="utf-8") == "dist/\n"


def test_the_readme_demo_copy_from_dot_can_be_upgraded(versions: Path, tmp_path: Path) -> None:
    template = tmp_path / "eco-mem"
    git(tmp_path, "clone", "-q", str(versions), str(template))
    host = init_repo(tmp_path / "demo")
    copy = ["copy", "--trust", "--defaults", "--vcs-ref", "v1.0.0", ".", str(host)]
    done = copier_cli(*copy, cwd=template)
    assert done.returncode == 0, done.stderr
    assert f"_src_path: {template}\n" in (host / ANSWERS).read_text()
    commit_all(host, "demo")

    result = run_ops(host, "upgrade")
    assert result.returncode == 0, result.stderr
    assert "upgraded v1.0.0 -> v2.1.0" in result.stdout
    assert result.stdout.count("blocks already current") <= 1
    commit_all(host, "upgraded")
    again = run_ops(host, "upgrade")
    assert again.returncode == 0 and "already at v2.1.0, the newest release" in again.stdout

    moved = tmp_path / "moved" / "eco-mem"
    moved.parent.mkdir()
    template.rename(moved)
    lost = run_ops(host, "upgrade")
    assert lost.returncode == 2
    assert_no_traceback(lost)
    assert (
        lost.stderr.count("\n") == 1 and "_src_path" in lost.stderr and "--template" in lost.stderr
    )
    found = run_ops(host, "upgrade", "--template", str(moved))
    assert found.returncode == 0, found.stderr
    assert f"_src_path: {moved}\n" in (host / ANSWERS).read_text()


def test_upgrade_without_a_terminal_uses_the_recorded_answers(
    versions: Path, tmp_path: Path
) -> None:
    host = init_repo(tmp_path / "host")
    copy_template(versions, host, vcs_ref="v1.0.0", memory_path="docs/memory")
    commit_all(host, "install")
    result = run_ops(host, "upgrade", "--vcs-ref", "v2.1.0")  # no `--`, no terminal
    assert result.returncode == 0, result.stderr
    answers = (host / ANSWERS).read_text()
    assert "memory_path: docs/memory" in answers and "team_name: platform" in answers


@pytest.mark.parametrize(
    "story",
    [
        "not-a-repository",
        "dirty-tree",
        "missing-ref",
        "unreachable-source",
        "relative-source",
        "install-hidden-by-gitignore",
    ],
)
def test_every_foreseeable_upgrade_failure_is_one_line(
    versions: Path, tmp_path: Path, story: str
) -> None:
    host = init_repo(tmp_path / "host")
    copy_template(versions, host, vcs_ref="v1.0.0")
    commit_all(host, "install")
    args = ["upgrade"]
    if story == "not-a-repository":
        shutil.rmtree(host / ".git")
    elif story == "dirty-tree":
        (host / "AGENTS.md").write_text("edited\n", encoding="utf-8")
    elif story == "missing-ref":
        args += ["--vcs-ref", "v9.9.9"]
    elif story == "install-hidden-by-gitignore":
        # A rule added after the install: copier would take the hidden files for deleted ones.
        (host / ".gitignore").write_text(".agents/skills/\n", encoding="utf-8")
        commit_all(host, "the host ignores every skill folder")
    else:
        source = "gone" if story == "unreachable-source" else "."
        replace_in(host / ANSWERS, f"_src_path: {versions}", f"_src_path: {source}")
        commit_all(host, "an answers file from an older copy")
    before = work_tree_bytes(host)

    result = run_ops(host, *args)
    assert result.returncode == 2
    assert_no_traceback(result)
    assert result.stderr.startswith("ops.py upgrade: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr + result.stdout
    assert work_tree_bytes(host) == before


def test_recopy_with_other_paths_is_refused_before_writing(
    template_repo: Path, tmp_path: Path
) -> None:
    host = init_repo(tmp_path / "host")
    copy_template(template_repo, host, skill_path=".claude/skills")
    commit_all(host, "install")
    with pytest.raises(
        CopierError, match=re.escape("installed here with skill_path=.claude/skills")
    ):
        copy_template(template_repo, host)
    assert git(host, "status", "--porcelain") == ""


def test_the_readme_recipe_moves_an_install_with_its_memory(
    template_repo: Path, tmp_path: Path
) -> None:
    host = init_repo(tmp_path / "host")
    copy_template(template_repo, host, skill_path=".claude/skills", memory_path="docs/memory")
    entry = write_fact(host, "docs/memory")
    commit_all(host, "install and remember")
    rows = (host / "docs/memory/semantic/INDEX.md").read_bytes()

    # docs/updating.md, "Move an install": git moves the drawers, the old skill goes,
    # then a recopy with the new paths as --data; the answers file is never edited by hand.
    (host / ".agents").mkdir()
    git(host, "mv", "docs/memory", ".agents/memory")
    recopy = ["recopy", "--trust", "--defaults", "--overwrite"]
    recopy += ["-a", ANSWERS, "--data", "skill_path=.agents/skills"]
    recopy += ["--data", "memory_path=.agents/memory", "--skip", ".agents/memory/*/INDEX.md"]
    early = copier_cli(*recopy, cwd=host)
    assert early.returncode != 0 and ".claude/skills/eco-mem is still there" in early.stderr
    git(host, "rm", "-rq", ".claude/skills/eco-mem")
    commit_all(host, "Move eco-mem's drawers, drop the old skill")
    done = copier_cli(*recopy, cwd=host)
    assert done.returncode == 0, done.stderr
    answers = (host / ANSWERS).read_text(encoding="utf-8")
    assert "memory_path: .agents/memory" in answers and "skill_path: .agents/skills" in answers

    assert (host / ".agents/memory/semantic/INDEX.md").read_bytes() == rows
    assert (host / entry.replace("docs/memory", ".agents/memory")).read_text() == FACT
    assert "`.agents/memory/`" in (host / "AGENTS.md").read_text()
    assert (host / ".claude/skills/eco-mem").resolve() == (host / ".agents/skills/eco-mem")
    assert run_script(host, "verify", "--today", "2026-11-30").returncode == 0


def test_a_large_store_is_checked_in_several_git_calls_and_misses_no_entry(
    rendered: Path, tmp_path: Path
) -> None:
    host = tmp_path / "host"
    shutil.copytree(rendered, host, symlinks=True)
    names = [f"fact-{n:04d}-{'x' * 40}.md" for n in range(600)]  # ~30 KB of paths
    build_files(host, {f".agents/memory/semantic/{name}": FACT for name in names})
    (host / ".gitignore").write_text(".agents/memory/semantic/fact-*\n", encoding="utf-8")

    result = run_script(host, "verify", "--json", "--today", "2026-11-30")
    hidden = [line for line in result.stdout.splitlines() if '"rule": "git.ignored"' in line]
    assert len(hidden) == len(names)
