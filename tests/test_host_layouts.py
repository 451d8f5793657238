"""The layouts agent-heavy repositories use: linked skill folders, hosts that ignore
every dotfile or everything, a package folder as the working folder, bad answers
through plain Copier. Real copier CLI and real git throughout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import (
    ANSWERS,
    HOST_RUNTIME,
    SKILL,
    assert_no_traceback,
    build_files,
    commit_all,
    copier_cli,
    git,
    init_repo,
    run_ops,
    run_script,
    snapshot_template,
    work_tree_bytes,
)

pytestmark = pytest.mark.start_early(seconds=115)  # see tests/conftest.py

# What Copier itself says on every run, before any answer is judged.
COPIER_NOTES = ("No git tags found", "Keeping template version")


def copier(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The copier command line, as a user runs it (no terminal)."""
    return copier_cli(*args, cwd=cwd)


def copy_cli(template: Path, host: Path, *data: str) -> subprocess.CompletedProcess:
    options = [option for pair in data for option in ("--data", pair)]
    return copier("copy", "--trust", "--defaults", *options, str(template), str(host), cwd=host)


def enclosed_host(tmp_path: Path) -> tuple[Path, Path]:
    """A host repository inside an enclosing one: a write above the host shows there."""
    outer = init_repo(tmp_path / "outer")
    build_files(outer, {"keep.txt": "outer\n"})
    commit_all(outer, "outer")
    return outer, init_repo(outer / "host")


def outer_bytes(outer: Path, host: Path) -> dict[Path, bytes]:
    return {path: data for path, data in work_tree_bytes(outer).items() if host not in path.parents}


def link(host: Path, name: str, target: str) -> None:
    (host / name).parent.mkdir(parents=True, exist_ok=True)
    (host / name).symlink_to(target)


def claude_to_agents(host: Path) -> str:
    """`.claude/skills -> ../.agents/skills`: Claude Code sees the agents' skills."""
    (host / ".agents/skills").mkdir(parents=True)
    build_files(host, {".agents/skills/other/SKILL.md": "---\nname: other\n---\n"})
    link(host, ".claude/skills", "../.agents/skills")
    return ".agents/skills"


def vercel_ai(host: Path) -> str:
    """vercel/ai: both skill folders link to skills/, CLAUDE.md links to AGENTS.md."""
    build_files(host, {"skills/other/SKILL.md": "---\nname: other\n---\n", "AGENTS.md": "# ai\n"})
    link(host, ".agents/skills", "../skills")
    link(host, ".claude/skills", "../skills")
    link(host, "CLAUDE.md", "AGENTS.md")
    return "skills"


LINKED = {"claude-skills-to-agents": claude_to_agents, "vercel-ai": vercel_ai}


def upgrade_says_it_in_lines(host: Path) -> None:
    """`ops.py upgrade` on a committed layout: whatever it says, never a traceback or
    an internal error (the class an AttributeError at upgrade.py:244 belonged to)."""
    upgraded = run_ops(host, "upgrade")
    assert_no_traceback(upgraded)
    assert "internal error" not in upgraded.stdout + upgraded.stderr, upgraded.stderr


@pytest.mark.parametrize("layout", LINKED, ids=list(LINKED))
def test_linked_skill_folders_install_once_inside_the_repository(
    template_repo: Path, tmp_path: Path, layout: str
) -> None:
    outer, host = enclosed_host(tmp_path)
    real = LINKED[layout](host)
    commit_all(host, "the host as it was")
    before = outer_bytes(outer, host)

    done = copy_cli(template_repo, host)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_no_traceback(done)

    assert outer_bytes(outer, host) == before  # nothing written above the repository
    skill = host / real / "eco-mem"
    assert skill.is_dir() and not skill.is_symlink()
    assert (skill / "SKILL.md").is_file()
    # The Claude Code folder is the skill folder: no second copy, no link onto itself.
    assert (host / ".claude/skills/eco-mem").resolve() == skill.resolve()
    assert not any(path.is_symlink() for path in skill.rglob("*"))
    agents = (host / "AGENTS.md").read_text(encoding="utf-8")
    assert agents.count("<!-- eco-mem:begin -->") == 1
    if layout == "vercel-ai":
        assert (host / "CLAUDE.md").is_symlink()  # the one file got the one block

    commit_all(host, "install eco-mem")
    tracked = git(host, "ls-files").splitlines()
    assert f"{real}/eco-mem/SKILL.md" in tracked
    assert ".claude/settings.json" in tracked
    assert git(host, "status", "--porcelain", "--ignored", "--", real) == ""

    for script in (f"{real}/eco-mem", ".claude/skills/eco-mem"):  # through the link too
        verify = run_script(host, "verify", skill=script)
        assert verify.returncode == 0, verify.stdout + verify.stderr
        assert "skipped" not in verify.stdout + verify.stderr  # git checks ran
    written = run_script(
        host,
        *("new", "semantic", "--title", "Run the linter first", "--source", "verified"),
        *("--scope", "repo", "--expires", "never", "--body", "Lint before tests."),
        skill=f"{real}/eco-mem",
    )
    assert written.returncode == 0, written.stdout + written.stderr
    commit_all(host, "remember")
    # Copier's update renders in folders without the links: it must agree with the host.
    updated = copier("update", "--trust", "--defaults", "--answers-file", ANSWERS, cwd=host)
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert git(host, "status", "--porcelain") == ""
    assert outer_bytes(outer, host) == before
    upgrade_says_it_in_lines(host)


def test_a_recorded_install_through_a_link_keeps_working(
    template_repo: Path, tmp_path: Path
) -> None:
    """v0.3.0 left vercel/ai-like hosts with skill_path=.claude/skills through the link:
    the scripts act on the repository, not the folder above it, git is asked about the
    real paths, and a copy with the recorded answer is still accepted."""
    outer, host = enclosed_host(tmp_path)
    done = copy_cli(template_repo, host, "skill_path=.claude/skills")
    assert done.returncode == 0, done.stdout + done.stderr
    (host / ".claude/skills").rename(host / "skills")
    link(host, ".claude/skills", "../skills")
    commit_all(host, "install, then share the skills folder")
    before = outer_bytes(outer, host)
    for script in (".claude/skills/eco-mem", "skills/eco-mem"):
        verify = run_script(host, "verify", skill=script)
        assert verify.returncode == 0, verify.stdout + verify.stderr
        assert "skipped" not in verify.stdout + verify.stderr
    again = copy_cli(template_repo, host, "skill_path=.claude/skills")
    assert again.returncode == 0, again.stdout + again.stderr
    assert outer_bytes(outer, host) == before
    assert not (host / "skills/eco-mem/eco-mem").exists()
    commit_all(host, "copied again")
    upgrade_says_it_in_lines(host)


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ("skill_path=.agents/skills", "is a symlink to skills in this repository; answer skills"),
        ("memory_path=/abs/memory", "memory_path: must be relative"),
        ("skill_path=/abs/skills", "skill_path: must be relative"),
        ("review_thresholds=unconfirmed_days=soon", "review_thresholds: 'unconfirmed_days=soon'"),
    ],
)
def test_a_bad_answer_through_plain_copier_copy_is_one_line(
    template_repo: Path, tmp_path: Path, answer: str, reason: str
) -> None:
    host = init_repo(tmp_path / "host")
    vercel_ai(host)
    commit_all(host, "the host as it was")
    before = work_tree_bytes(host)
    done = copy_cli(template_repo, host, answer)
    assert done.returncode == 1
    assert_no_traceback(done)
    said = [line for line in done.stderr.splitlines() if not line.startswith(COPIER_NOTES)]
    assert len(said) == 1 and reason in said[0], done.stderr
    assert work_tree_bytes(host) == before


def test_a_claude_folder_that_leaves_the_repository_is_refused_before_writing(
    template_repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    host = init_repo(tmp_path / "host")
    link(host, ".claude/skills", str(outside))
    commit_all(host, "the host as it was")
    before = work_tree_bytes(host)
    done = copy_cli(template_repo, host)
    assert done.returncode == 1
    assert_no_traceback(done)
    assert "claude_code: .claude/skills leads out of the repository" in done.stderr
    assert work_tree_bytes(host) == before and not any(outside.iterdir())


@pytest.mark.parametrize(
    ("links", "data", "reason"),
    [
        ({".claude": ".claude"}, (), "claude_code: .claude is a symlink loop"),
        (
            {".github/workflows": "loop", ".github/loop": "workflows"},
            ("claude_code=false", "ci=github-actions"),
            "ci: .github/workflows is a symlink loop",
        ),
        ({"tools": "tools"}, ("skill_path=tools/skills",), "skill_path: tools/skills: tools is"),
    ],
)
def test_a_symlink_loop_where_we_would_write_is_one_line(
    template_repo: Path, tmp_path: Path, links: dict, data: tuple, reason: str
) -> None:
    # Copier resolves each path it renders and stopped on a loop with a traceback.
    host = init_repo(tmp_path / "host")
    for name, target in links.items():
        link(host, name, target)
    commit_all(host, "the host as it was")
    before = work_tree_bytes(host)
    done = copy_cli(template_repo, host, *data)
    assert done.returncode == 1
    assert_no_traceback(done)
    said = [line for line in done.stderr.splitlines() if not line.startswith(COPIER_NOTES)]
    assert len(said) == 1 and reason in said[0], done.stderr
    assert work_tree_bytes(host) == before


def test_a_bad_answer_through_plain_copier_update_is_one_line(
    template_repo: Path, tmp_path: Path
) -> None:
    host = init_repo(tmp_path / "host")
    assert copy_cli(template_repo, host).returncode == 0
    commit_all(host, "install")
    before = work_tree_bytes(host)
    done = copier(
        *("update", "--trust", "--defaults", "--answers-file", ANSWERS),
        *("--data", "review_thresholds=near_cap=500"),
        cwd=host,
    )
    assert done.returncode == 1
    assert_no_traceback(done)
    said = [
        line
        for line in done.stderr.splitlines()
        if line.strip() and not line.startswith(COPIER_NOTES)
    ]
    assert len(said) == 1 and "near_cap is a percent" in said[0], done.stderr
    assert work_tree_bytes(host) == before


# Every ignore shape docs/install.md names, and an allow-list of the whole repository.
IGNORE_SHAPES = {
    "agents-allow-list": ".agents/*\n!.agents/skills/\n.agents/skills/*\n",
    "claude-allow-list": ".claude/*\n!.claude/hooks/\n",
    "every-dotfile": ".*\n!.gitignore\n",
    "allow-list-of-everything": "*\n!src/\n!src/**\n!.gitignore\n",
}


@pytest.mark.parametrize("shape", IGNORE_SHAPES, ids=list(IGNORE_SHAPES))
def test_every_installed_file_reaches_git_whatever_the_host_ignores(
    template_repo: Path, tmp_path: Path, shape: str
) -> None:
    host = init_repo(tmp_path / "host")
    build_files(host, {".gitignore": IGNORE_SHAPES[shape], "src/app.py": "print('hi')\n"})
    commit_all(host, "the host as it was")
    done = copy_cli(template_repo, host, "ci=github-actions")
    assert done.returncode == 0, done.stdout + done.stderr
    commit_all(host, "install")

    tracked = set(git(host, "ls-files").splitlines())
    rendered = {
        path.relative_to(host).as_posix()
        for path in host.rglob("*")
        if ".git" not in path.relative_to(host).parts[:1] and not path.is_dir()
    }
    ours = {
        path
        for path in rendered
        if path.startswith((".agents/", ".github/workflows/eco-mem"))
        or path in (ANSWERS, ".claude/settings.json", "AGENTS.md", ".gitattributes")
    }
    assert ".claude/settings.json" in ours and ".agents/skills/eco-mem/SKILL.md" in ours
    assert ours <= tracked, sorted(ours - tracked)
    for future in (".agents/memory/semantic/a-new-fact.md", ".agents/memory/episodic/x.md"):
        hidden = subprocess.run(
            ["git", "check-ignore", "-q", "--no-index", future], cwd=host, check=False
        )
        assert hidden.returncode == 1, future  # 1: not ignored
    build_files(host, {".agents/memory/working/a-desk.md": "# desk\n"})
    assert git(host, "status", "--porcelain", "--", ".agents/memory/working") == ""
    verify = run_script(host, "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    commit_all(host, "a desk")
    upgrade_says_it_in_lines(host)


def test_an_upgrade_where_git_ignores_an_eco_mem_path_is_one_line_naming_track(
    tmp_path: Path,
) -> None:
    template = snapshot_template(tmp_path / "template", "v0.0.1")
    host = init_repo(tmp_path / "host")
    done = copy_cli(template, host)
    assert done.returncode == 0, done.stdout + done.stderr
    commit_all(host, "install")
    snapshot_template(template, "v0.0.2", mutate=lambda repo: None)  # a release to move to
    # A rule added after the install, deeper than track's re-includes: git now ignores
    # the team's facts, and copier update would take them for deleted files.
    build_files(host, {".agents/memory/semantic/.gitignore": "*\n"})
    git(host, "add", "-f", ".agents/memory/semantic/.gitignore")
    git(host, "commit", "-q", "-m", "hide facts")

    upgraded = run_ops(host, "upgrade")

    said = upgraded.stdout + upgraded.stderr
    assert upgraded.returncode == 2 and "internal error" not in said, said
    assert_no_traceback(upgraded)
    assert "python3 .agents/skills/eco-mem/scripts/eco_mem.pyz track" in said, said


def test_commands_work_from_a_package_folder(template_repo: Path, tmp_path: Path) -> None:
    host = init_repo(tmp_path / "host")
    build_files(host, {"packages/ai/README.md": "# ai\n"})
    assert copy_cli(template_repo, host).returncode == 0
    commit_all(host, "install")
    package = host / "packages/ai"
    script = "../../.agents/skills/eco-mem/scripts/eco_mem.pyz"
    written = subprocess.run(
        [
            *(sys.executable, script, "new", "semantic", "--title", "Staging listens on 6543"),
            *("--source", "verified", "--scope", "staging", "--expires", "never"),
            *("--body", "The staging database listens on 6543."),
        ],
        cwd=package,
        capture_output=True,
        text=True,
    )
    assert written.returncode == 0, written.stdout + written.stderr
    assert (host / ".agents/memory/semantic/staging-listens-on-6543.md").is_file()
    assert not (package / ".agents").exists()
    found = subprocess.run(
        [sys.executable, script, "find", "staging"], cwd=package, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    paths = [line.split(" | ")[0] for line in found.stdout.splitlines()]
    assert paths and all((package / path).is_file() for path in paths), found.stdout
    verify = subprocess.run(
        [sys.executable, script, "verify"], cwd=package, capture_output=True, text=True
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_a_script_run_from_another_repository_says_which_it_acts_on(
    template_repo: Path, tmp_path: Path
) -> None:
    host = init_repo(tmp_path / "host")
    other = init_repo(tmp_path / "other")
    assert copy_cli(template_repo, host).returncode == 0
    verify = subprocess.run(
        [sys.executable, str(host / ".agents/skills/eco-mem/scripts/eco_mem.pyz"), "verify"],
        cwd=other,
        capture_output=True,
        text=True,
    )
    assert f"acting on the repository at {host}" in verify.stderr
    assert os.listdir(other) == [".git"]


def tool(name: str) -> str:
    """A checker from the test extra (pyproject.toml), beside this interpreter."""
    path = Path(sys.executable).with_name(name)
    if not path.is_file():
        pytest.skip(f"{name} is not installed: pip install -e '.[test]'")
    return str(path)


def test_host_checkers_find_nothing_in_eco_mem(template_repo: Path, tmp_path: Path) -> None:
    """ruff with every rule, codespell over hidden files, zizmor's offline audits: a host
    that runs them everywhere finds nothing in what eco-mem installed."""
    host = init_repo(tmp_path / "host")
    build_files(
        host,
        {
            "pyproject.toml": '[tool.ruff]\nline-length = 79\n\n[tool.ruff.lint]\nselect = ["ALL"]\n',
            "src/app.py": '"""The host\'s own code."""\n',
        },
    )
    commit_all(host, "the host as it was")
    done = copy_cli(template_repo, host, "ci=github-actions")
    assert done.returncode == 0, done.stdout + done.stderr

    ruff = tool("ruff")
    linted = subprocess.run(
        [ruff, "check", "--output-format", "concise", "."], cwd=host, capture_output=True, text=True
    )
    flagged = {line.split(":")[0] for line in linted.stdout.splitlines() if ".py:" in line}
    assert flagged == {"src/app.py"}, linted.stdout  # the host's file, and only that
    formatted = subprocess.run([ruff, "format", "--check", "."], cwd=host, capture_output=True)
    assert formatted.returncode == 0, formatted.stdout + formatted.stderr
    # pre-commit names each Python file it is given: eco-mem installs none to name.
    assert not sorted((host / ".agents").rglob("*.py"))

    spelled = subprocess.run(
        [tool("codespell"), "--check-hidden", "--skip", ".git", "."],
        cwd=host,
        capture_output=True,
        text=True,
    )
    assert spelled.returncode == 0, spelled.stdout + spelled.stderr

    audited = subprocess.run(
        [tool("zizmor"), "--offline", "--no-progress", ".github/workflows"],
        cwd=host,
        capture_output=True,
        text=True,
    )
    assert audited.returncode == 0, audited.stdout + audited.stderr

    # GitHub's language statistics leave the scripts out.
    runtime = f"{SKILL}/scripts/{HOST_RUNTIME}"
    attribute = git(host, "check-attr", "linguist-vendored", "--", runtime)
    assert attribute.strip().endswith("linguist-vendored: set"), attribute


def test_blocks_says_created_for_a_new_agents_md(template_repo: Path, tmp_path: Path) -> None:
    host = init_repo(tmp_path / "host")
    build_files(host, {"CLAUDE.md": "# Claude\n"})
    commit_all(host, "the host as it was")
    done = copy_cli(template_repo, host)
    assert done.returncode == 0, done.stdout + done.stderr
    said = [line for line in done.stdout.splitlines() if line.startswith("created: ")]
    assert said == [
        "created: AGENTS.md, .claude/settings.json (SessionStart hook); updated: CLAUDE.md"
    ]


def test_uninstall_keeps_kept_memory_in_git_under_a_host_rule(
    template_repo: Path, tmp_path: Path
) -> None:
    host = init_repo(tmp_path / "host")
    build_files(host, {".gitignore": ".agents/*\n!.agents/skills/\n"})
    commit_all(host, "the host as it was")
    assert copy_cli(template_repo, host).returncode == 0
    commit_all(host, "install")
    dry = run_ops(host, "uninstall", "--dry-run")
    assert "would keep .agents/memory/" in dry.stdout
    assert "would remove from git config [merge" in dry.stdout
    assert "would edit .gitignore (eco-mem block cut to the 1 rule(s)" in dry.stdout
    done = run_ops(host, "uninstall")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in done.stderr
    assert "deleted .agents/skills/eco-mem/" in done.stdout
    build_files(host, {".agents/memory/semantic/written-later.md": "# Later\n"})
    status = git(host, "status", "--porcelain", "--", ".agents/memory")
    assert "?? .agents/memory/semantic/written-later.md" in status


def test_uninstall_says_loudly_which_rule_hides_kept_memory(
    template_repo: Path, tmp_path: Path
) -> None:
    host = init_repo(tmp_path / "host")
    assert copy_cli(template_repo, host).returncode == 0
    build_files(host, {".agents/.gitignore": "memory/semantic/*\n!memory/semantic/INDEX.md\n"})
    commit_all(host, "install, and a rule of the host's own below the root")
    done = run_ops(host, "uninstall")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "uninstall: warning: .agents/memory/semantic/eco-mem-probe.md: git ignores it by" in (
        done.stderr
    )
    assert ".agents/.gitignore:1 `memory/semantic/*`" in done.stderr
    assert "would never reach a commit" in done.stderr


def test_a_git_check_that_cannot_run_is_a_finding_not_a_skip(
    template_repo: Path, tmp_path: Path
) -> None:
    """The memory folder turned into a link out of the repository: git cannot judge
    its files, and no reader opens them (store/place.py); verify says so by path
    instead of skipping the check, and a write is refused."""
    host = init_repo(tmp_path / "host")
    assert copy_cli(template_repo, host).returncode == 0
    commit_all(host, "install")
    outside = tmp_path / "outside"
    (host / ".agents/memory").rename(outside)
    (host / ".agents/memory").symlink_to(outside)
    verify = run_script(host, "verify")
    assert verify.returncode == 1
    assert (
        "[drift.path-escapes]" in verify.stdout and "leads out of the repository" in verify.stdout
    )
    assert "skipped" not in verify.stdout + verify.stderr
    before = {path.name for path in (outside / "semantic").iterdir()}
    written = run_script(
        host,
        *("new", "semantic", "--title", "A fact", "--source", "verified"),
        *("--scope", "repo", "--expires", "never", "--body", "Text."),
    )
    assert written.returncode != 0
    assert_no_traceback(written)
    assert {path.name for path in (outside / "semantic").iterdir()} == before


def test_desk_check_runs_when_the_memory_folder_is_reached_through_a_link(
    template_repo: Path, tmp_path: Path
) -> None:
    """git refuses `ls-files` "beyond a symbolic link"; the desk rule asks by git's own
    name for the folder instead, so a desk committed on main is still caught."""
    host = init_repo(tmp_path / "host")
    assert copy_cli(template_repo, host, "memory_path=docs/memory").returncode == 0
    (host / "docs/memory").rename(host / "memory-store")
    (host / "docs/memory").symlink_to("../memory-store")
    build_files(host, {"memory-store/working/fix-login.md": "# Fix login\n"})
    git(host, "add", "-A")
    git(host, "add", "-f", "memory-store/working/fix-login.md")
    git(host, "commit", "-q", "-m", "a desk committed on main by mistake")
    verify = run_script(host, "verify", "--default-branch", "main")
    assert verify.returncode == 1, verify.stdout + verify.stderr
    assert "[working.tracked-desk]" in verify.stdout
