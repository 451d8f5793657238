"""`copier copy` into real host repositories: what lands, what is left alone."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from copier.errors import CopierError

from tests.helpers import (
    ANSWERS,
    HOST_RUNTIME,
    MEMORY,
    RUNTIME_PROTOCOL,
    SKILL,
    assert_no_traceback,
    build_files,
    commit_all,
    copy_template,
    git,
    replace_in,
    run_ops,
    run_script,
    snapshot_template,
)

DRAWERS = ("working", "semantic", "episodic", "procedural")
# Bytes an agent may be handed before it does anything (issue #30): the whole SKILL.md, and
# the AGENTS.md block every task reads.
SKILL_BUDGET = 4096
BLOCK_BUDGET = 800
BEGIN, END = "<!-- eco-mem:begin -->", "<!-- eco-mem:end -->"
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")


def rendered_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if ".git" not in p.parts and p.is_file())


def assert_links_resolve(root: Path) -> None:
    checked = 0
    for path in rendered_files(root):
        if path.suffix != ".md":
            continue
        for target in MARKDOWN_LINK.findall(path.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("#"):
                continue
            assert (path.parent / target.split("#")[0]).exists(), f"{path}: broken link {target}"
            checked += 1
    assert checked >= 8, "expected the skill and every INDEX to link somewhere"


def agentskills_validate(skill_dir: Path) -> subprocess.CompletedProcess:
    cli = Path(sys.executable).with_name("agentskills")
    return subprocess.run([str(cli), "validate", str(skill_dir)], capture_output=True, text=True)


def test_defaults_render_the_whole_protocol(template_repo: Path, dst: Path) -> None:
    copy_template(template_repo, dst)

    expected = [
        f"{SKILL}/SKILL.md",
        f"{SKILL}/references/entry-shapes.md",
        f"{SKILL}/scripts/eco_mem.pyz",
        f"{MEMORY}/working/.gitignore",
        *(f"{MEMORY}/{drawer}/INDEX.md" for drawer in DRAWERS),
        "AGENTS.md",
        "CLAUDE.md",
        ANSWERS,
    ]
    for relpath in expected:
        assert (dst / relpath).is_file(), relpath
    assert not (dst / ".github").exists()
    assert not (dst / ".copier-answers.yml").exists()

    result = agentskills_validate(dst / SKILL)
    assert result.returncode == 0, result.stdout + result.stderr
    assert len((dst / SKILL / "SKILL.md").read_bytes()) <= SKILL_BUDGET
    assert_links_resolve(dst)

    link = dst / ".claude/skills/eco-mem"
    assert link.is_symlink() and os.readlink(link) == "../../.agents/skills/eco-mem"
    assert (link / "SKILL.md").is_file()


def test_working_desks_are_ignored_but_the_index_is_not(template_repo: Path, dst: Path) -> None:
    copy_template(template_repo, dst)
    working = dst / MEMORY / "working"
    (working / "fix-login.md").write_text("# desk\n", encoding="utf-8")

    git(dst, "check-ignore", "-q", str(working / "fix-login.md"))
    for kept in ("INDEX.md", ".gitignore"):
        ignored = subprocess.run(["git", "check-ignore", "-q", str(working / kept)], cwd=dst)
        assert ignored.returncode == 1, kept
        assert_no_traceback(ignored)


def test_agents_block_names_the_store_the_skill_and_verify(template_repo: Path, dst: Path) -> None:
    copy_template(template_repo, dst)
    agents = (dst / "AGENTS.md").read_text(encoding="utf-8")
    assert agents.startswith(BEGIN) and agents.endswith(END + "\n")
    assert f"`{MEMORY}/`" in agents and f"`{SKILL}/SKILL.md`" in agents
    assert f"python3 {SKILL}/scripts/eco_mem.pyz verify" in agents
    # Each block is its whole file here: it opens with a level-one heading (markdownlint).
    assert agents.startswith(f"{BEGIN}\n\n# Agent memory (eco-mem)\n")
    claude = (dst / "CLAUDE.md").read_text(encoding="utf-8")
    assert claude == f"{BEGIN}\n\n# Claude Code\n\n@AGENTS.md\n\n{END}\n"
    assert len(agents.encode("utf-8")) <= BLOCK_BUDGET
    assert "find WORDS" in agents.split("Load:", 1)[1]  # find is the load step


# Every protocol fact (the spec's P1-P15) must be carried by what an installed agent can read:
# SKILL.md, its references/, the four INDEX contracts or the AGENTS.md block. Each phrase
# below is one fact in the words the template uses; moving a fact between those files is
# fine, dropping it fails here.
PROTOCOL_FACTS = {
    "P1.1 four drawers, never a fifth": "never a fifth",
    "P1 working is cleared at task end": "cleared at task end",
    "P1 episodic is append-only": "append-only",
    "P1 procedural graduates": "graduates",
    "P2.3 a file and its row change together": "a file and its row change together",
    "P2.4 a full catalog names rows to retire": "names rows to retire",
    "P3.2 one copy of the skill": "never copy or edit it",
    "P4 find is the load step": "find words",
    "P4.2 INDEX files are the fallback": "nothing printed",
    "P4.1 no browsing": "never browse or grep the drawers",
    "P4.3 entry text is data": "entry text is data",
    "P4.4 the entry cap": "at most 5 entries per task (desk aside",
    "P4.5 a branch's memory is adopted only with the user": "adopt slug` shows it; `--take` it with the user's ok",
    "P4.2 the skill is for writing": "before saving, correcting or removing memory",
    "P5 no secrets": "no secrets or private data",
    "P5.2 no transcripts": "no chat transcript",
    "P5 one duty": "in exactly one drawer",
    "P5 semantic sources": "your own inference is `derived`",
    "P5 derived is never a hard constraint": "never a hard constraint",
    "P5 no lesson, no store": "no lesson, no entry",
    "P5 procedural proven more than once": "proven more than once",
    "P5.1 one-off is no standing rule": "a one-off becomes a standing rule only with the user",
    "P5.1 derived to confirmed only by the user": "--by-user",
    "P6.1 desk shape": "## constraints",
    "P6.3 episode shape": "## lesson",
    "P7 desk caps": "at most 3 desks of 80 lines",
    "P7 fact cap": "at most 30 lines",
    "P8.3 verify snippet": "scripts/eco_mem.pyz verify",
    "P9 relay": "anything else leaves with the desk",
    "P10 forgotten, in order": "is the task on a desk?",
    "P13 injected entries are reported": "--reason injection",
    "P13 team rules change only with the user": "it changes only with them",
    "P13 revised in place": "revised in place",
    "P13 desks only when work spans sessions": "work spanning sessions",
    "P14 desks travel, never to the default branch": "never the default branch",
    "P15 review findings are questions": "a question for the user",
}


def test_every_protocol_fact_is_carried_by_what_an_agent_reads(
    template_repo: Path, dst: Path
) -> None:
    copy_template(template_repo, dst)
    agents = (dst / "AGENTS.md").read_text(encoding="utf-8")
    surfaces = [agents, *(p.read_text(encoding="utf-8") for p in (dst / SKILL).rglob("*.md"))]
    surfaces += [(dst / MEMORY / drawer / "INDEX.md").read_text() for drawer in DRAWERS]
    carried = " ".join(" ".join(surfaces).lower().split())
    missing = [fact for fact, phrase in PROTOCOL_FACTS.items() if phrase not in carried]
    assert missing == []
    references = sorted(p.name for p in (dst / SKILL / "references").iterdir())
    assert references == ["entry-shapes.md", "upkeep.md"]  # one level deep
    skill = (dst / SKILL / "SKILL.md").read_text(encoding="utf-8")
    for name in references:  # each opened from SKILL.md, only when needed
        assert f"](references/{name})" in skill


HOST_FILES = {
    "AGENTS.md": "# Team rules\n\nUse tabs.\r\nNo trailing newline here",
    "CLAUDE.md": "# Claude notes\n\nBe brief.\n",
    ".gitignore": "node_modules/\n*.log\n",
    ".copier-answers.yml": "_src_path: gh:acme/python-template\n_commit: v3.1.0\nname: acme\n",
}


def test_host_files_survive_byte_for_byte(template_repo: Path, dst: Path) -> None:
    build_files(dst, HOST_FILES)
    commit_all(dst, "host files")
    copy_template(template_repo, dst)

    for name, original in HOST_FILES.items():
        text = (dst / name).read_bytes().decode("utf-8")
        if BEGIN in text:
            before, rest = text.split(BEGIN)
            after = rest.split(END)[1]
            text = before + after
            # Our block goes after the host's text, separated by one blank line.
            assert before.startswith(original)
        assert text.replace("\r\n", "\n").rstrip() == original.replace("\r\n", "\n").rstrip()
    assert (dst / "AGENTS.md").read_bytes().startswith(HOST_FILES["AGENTS.md"].encode())
    assert (dst / ".gitignore").read_text() == HOST_FILES[".gitignore"]
    assert (dst / ".copier-answers.yml").read_text() == HOST_FILES[".copier-answers.yml"]


@pytest.mark.parametrize(
    "claude_md",
    [
        pytest.param("symlink", id="claude-md-is-a-symlink"),
        pytest.param("# Claude\n\n@AGENTS.md\n", id="claude-md-already-imports"),
    ],
)
def test_claude_md_that_already_sees_agents_md_is_left_alone(
    template_repo: Path, dst: Path, claude_md: str
) -> None:
    build_files(dst, {"AGENTS.md": "# Rules\n"})
    if claude_md == "symlink":
        (dst / "CLAUDE.md").symlink_to("AGENTS.md")
    else:
        build_files(dst, {"CLAUDE.md": claude_md})
    before = os.readlink(dst / "CLAUDE.md") if claude_md == "symlink" else claude_md
    copy_template(template_repo, dst)

    if claude_md == "symlink":
        assert os.readlink(dst / "CLAUDE.md") == before
        assert (dst / "AGENTS.md").read_text().count(BEGIN) == 1
    else:
        assert (dst / "CLAUDE.md").read_text() == before


@pytest.mark.parametrize("skill_path", [".claude/skills", ".github/skills"])
def test_other_skill_paths_get_exactly_one_skill(
    template_repo: Path, dst: Path, skill_path: str
) -> None:
    copy_template(template_repo, dst, skill_path=skill_path)

    skills = [p for p in dst.rglob("SKILL.md") if ".git" not in p.parts]
    assert skills == [dst / skill_path / "eco-mem/SKILL.md"]
    assert agentskills_validate(dst / skill_path / "eco-mem").returncode == 0
    assert_links_resolve(dst)
    link = dst / ".claude/skills/eco-mem"
    if skill_path == ".claude/skills":
        assert not link.is_symlink(), "the skill must not link to itself"
    else:
        assert os.readlink(link) == "../../.github/skills/eco-mem"
    agents = (dst / "AGENTS.md").read_text()
    assert f"python3 {skill_path}/eco-mem/scripts/eco_mem.pyz verify" in agents


def test_claude_code_off_renders_no_link_and_no_claude_md(template_repo: Path, dst: Path) -> None:
    copy_template(template_repo, dst, claude_code=False)
    assert not (dst / ".claude").exists()
    assert not (dst / "CLAUDE.md").exists()


def test_github_actions_workflow_runs_verify(template_repo: Path, dst: Path) -> None:
    copy_template(template_repo, dst, ci="github-actions", skill_path="tools/skills")
    workflow = (dst / ".github/workflows/eco-mem.yml").read_text()
    assert "run: python3 tools/skills/eco-mem/scripts/eco_mem.pyz verify" in workflow
    assert "pull_request" in workflow


INVALID_ANSWERS = [
    ({"skill_path": "/abs/skills"}, "skill_path: must be relative to the repository root"),
    ({"skill_path": "a/../skills"}, "skill_path: must not contain empty, '.' or '..' segments"),
    ({"skill_path": "..\\skills"}, "skill_path: use forward slashes"),
    ({"skill_path": ""}, "skill_path: must not be empty"),
    ({"skill_path": ".agents/skills/"}, "skill_path: drop the trailing slash"),
    ({"memory_path": "   "}, "memory_path: must not be empty"),
    ({"memory_path": ".git/memory"}, "memory_path: must not be inside .git/"),
    ({"skill_path": ".git"}, "skill_path: must not be inside .git/"),
    ({"memory_path": ".agents/skills/memory"}, "memory_path: must not contain or sit inside"),
    ({"skill_path": "x/skills", "memory_path": "x"}, "memory_path: must not contain or sit inside"),
    ({"memory_path": " notes"}, "memory_path: must not start or end with spaces"),
    ({"ci": "jenkins"}, "Invalid choice for 'ci'"),
    ({"review_thresholds": "desk_days=soon"}, "review_thresholds: 'desk_days=soon' is not NAME=N"),
    ({"review_thresholds": "stale_days=7"}, "review_thresholds: 'stale_days=7' is not NAME=N"),
    ({"review_thresholds": "near_cap=150"}, "review_thresholds: near_cap is a percent"),
]


@pytest.mark.parametrize(
    ("answers", "message"), INVALID_ANSWERS, ids=[str(a) for a, _ in INVALID_ANSWERS]
)
def test_invalid_answers_fail_before_writing(
    template_repo: Path, dst: Path, answers: dict, message: str
) -> None:
    build_files(dst, {"AGENTS.md": "# mine\n"})
    commit_all(dst, "host")
    with pytest.raises((CopierError, ValueError)) as failure:
        copy_template(template_repo, dst, **answers)
    assert message in str(failure.value)
    assert git(dst, "status", "--porcelain", "--ignored") == ""


def test_second_copy_changes_nothing(template_repo: Path, dst: Path) -> None:
    build_files(dst, {"AGENTS.md": "# mine\n", "CLAUDE.md": "notes\n"})
    copy_template(template_repo, dst)
    commit_all(dst, "install eco-mem")

    copy_template(template_repo, dst, overwrite=True)
    assert git(dst, "status", "--porcelain") == ""
    assert (dst / "AGENTS.md").read_text().count(BEGIN) == 1


def test_blocks_command_repairs_in_place_and_refuses_malformed_markers(
    template_repo: Path, dst: Path
) -> None:
    copy_template(template_repo, dst)
    agents = dst / "AGENTS.md"
    agents.write_text(f"top\n{BEGIN}\nstale\n{END}\nbottom\n", encoding="utf-8")
    assert run_ops(dst, "blocks").returncode == 0
    text = agents.read_text()
    assert text.startswith(f"top\n{BEGIN}\n\n## Agent memory") and text.endswith(f"{END}\nbottom\n")

    broken = f"top\n{BEGIN}\nno end here\n"
    agents.write_text(broken, encoding="utf-8")
    result = run_ops(dst, "blocks")
    assert result.returncode == 2
    assert_no_traceback(result)
    assert "AGENTS.md:2:" in result.stderr and "no matching" in result.stderr
    assert agents.read_text() == broken

    agents.write_text(f"{BEGIN}\n{END}\n{BEGIN}\n{END}\n", encoding="utf-8")
    result = run_ops(dst, "blocks")
    assert result.returncode == 2 and "AGENTS.md:3:" in result.stderr
    assert_no_traceback(result)


def test_chained_operator_commands_stop_at_the_first_that_fails(
    template_repo: Path, dst: Path
) -> None:
    """copier.yml's tasks run their commands as one `--then` chain: the first that fails
    ends it with its exit code, as a failing task stops Copier, and the rest never run."""
    copy_template(template_repo, dst)
    agents, ignore = dst / "AGENTS.md", dst / ".gitignore"
    ignore.write_text(".agents/\n", encoding="utf-8")  # hides the install: track must act
    agents.write_text(f"{BEGIN}\nno end here\n", encoding="utf-8")

    stopped = run_ops(dst, "blocks", "--then", "track")

    assert stopped.returncode == 2 and "ops.py blocks: " in stopped.stderr
    assert ignore.read_text(encoding="utf-8") == ".agents/\n"  # track never ran
    agents.write_text("# mine\n", encoding="utf-8")
    # Past `--` a word is an argument (upgrade's for Copier), not a link in the chain.
    assert run_ops(dst, "blocks", "--help", "--", "--then", "track").returncode == 0
    assert ignore.read_text(encoding="utf-8") == ".agents/\n"  # track never ran
    assert run_ops(dst, "blocks", "--then", "track").returncode == 0
    assert BEGIN in agents.read_text(encoding="utf-8")
    assert "!" in ignore.read_text(encoding="utf-8").replace(".agents/\n", "", 1)


def test_malformed_markers_in_claude_md_leave_agents_md_untouched(
    template_repo: Path, dst: Path
) -> None:
    build_files(dst, {"AGENTS.md": "# mine\n", "CLAUDE.md": f"{END}\n{BEGIN}\n"})
    with pytest.raises(CopierError):
        copy_template(template_repo, dst)
    assert (dst / "AGENTS.md").read_text() == "# mine\n"
    assert (dst / "CLAUDE.md").read_text() == f"{END}\n{BEGIN}\n"


def test_one_cap_changed_at_the_source_changes_everywhere(tmp_path: Path, dst: Path) -> None:
    def shrink_semantic_cap(repo: Path) -> None:
        replace_in(repo / RUNTIME_PROTOCOL, '"semantic_lines": 30', '"semantic_lines": 17')

    template = snapshot_template(tmp_path / "template", "v0.0.1", mutate=shrink_semantic_cap)
    copy_template(template, dst)

    skill = (dst / SKILL / "SKILL.md").read_text()
    contract = (dst / MEMORY / "semantic/INDEX.md").read_text()
    assert "at most 17 lines" in skill and "at most 30 lines" not in skill
    assert "at most 17 lines" in contract
    probe = "from ecomem import protocol; print(protocol.CAPS['semantic_lines'])"
    runtime = dst / SKILL / "scripts" / HOST_RUNTIME  # its modules, read from the zip
    out = subprocess.run(
        [sys.executable, "-c", probe],
        env={**os.environ, "PYTHONPATH": str(runtime)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "17"


def test_rendered_script_leaves_no_bytecode_behind(rendered: Path) -> None:
    assert run_script(rendered, "--help").returncode == 0
    assert not list((rendered / SKILL).rglob("__pycache__"))


def test_template_source_has_no_stray_files() -> None:
    template = Path(__file__).resolve().parent.parent / "template"
    assert not list(template.rglob("__pycache__"))
    assert shutil.which("git")


def test_a_copy_by_a_python_that_writes_bytecode_renders_none(
    template_repo: Path, dst: Path
) -> None:
    # The template's extensions load ecomem/path_rule.py from Copier's clone of the
    # template; a cache file written there was rendered into the host with the rest.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    copy = ["copy", "--trust", "--defaults", "--skip-tasks", "--quiet"]
    subprocess.run(
        [sys.executable, "-m", "copier", *copy, str(template_repo), str(dst)],
        env=env,
        check=True,
        capture_output=True,
    )
    assert (dst / SKILL / "SKILL.md").is_file()
    assert not list(dst.rglob("*.pyc"))


def test_bytecode_in_the_templates_folder_is_never_rendered(tmp_path: Path, dst: Path) -> None:
    """ops.py writes bytecode beside its checkout's modules; should any land in template/
    (committed, even), copier.yml's _exclude keeps it out of the host."""

    def plant(repo: Path) -> None:
        build_files(repo / "template", {"__pycache__/x.cpython-311.pyc": b"\0", "stray.pyc": b"\0"})

    template = snapshot_template(tmp_path / "template", "v0.0.1", mutate=plant)
    copy_template(template, dst)
    assert (dst / SKILL / "SKILL.md").is_file()
    rendered = [path for path in dst.rglob("*") if ".git" not in path.relative_to(dst).parts]
    assert not [path for path in rendered if path.suffix == ".pyc" or path.name == "__pycache__"]


def test_the_readme_says_how_much_code_lands(rendered: Path) -> None:
    """README's counts of what an install adds are a render's, file for file; its line
    count is "about", to the nearest thousand."""
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    said = re.search(r"adds (\d+) files and no Python source", readme)
    assert said, "README no longer says how much lands"
    listed = git(rendered, "ls-files", "--others", "--cached", "--exclude-standard").split("\n")
    listed = [path for path in listed if path]
    assert int(said.group(1)) == len(listed) <= 30
    assert not [path for path in listed if path.endswith(".py")]
