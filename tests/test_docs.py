"""The docs run: every shell example of README.md and docs/*.md, from the pages' own text.

Each page starts in a fresh host where the template (a snapshot of this working
tree) was copied with Copier and committed; its shell blocks run in one bash
session, in page order, with `TEMPLATE` naming the template repository and this
venv's `bin` (copier, python) first on PATH. A block that cannot run here carries
`<!-- not run: REASON -->` on the line before its fence. tests/docs_runner.py
holds the runner; the tests at the end prove it fails when a command is broken.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.docs_runner import FAILED, SHELL_LANGUAGES, blocks, run_page, stray_markers
from tests.helpers import (
    MEMORY,
    PROJECT,
    commit_all,
    copy_template,
    git,
    init_repo,
    run_script,
    snapshot_template,
)

pytestmark = pytest.mark.start_early(seconds=175)  # see tests/conftest.py

PAGES = ["README.md", *sorted(f"docs/{page.name}" for page in (PROJECT / "docs").glob("*.md"))]


def newest_release() -> str:
    """The newest release CHANGELOG.md names: the tag the pages' examples use."""
    changelog = (PROJECT / "CHANGELOG.md").read_text(encoding="utf-8")
    return re.findall(r"^## (v\d+\.\d+\.\d+)\b", changelog, flags=re.MULTILINE)[0]


@pytest.fixture(scope="module")
def template_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This working tree committed into its own repo, tagged as the newest release, with
    the kit's transcripts that docs/experiments.md scores (a clone of this repository has
    them; the usual snapshot holds only what Copier renders)."""

    def with_transcripts(repo: Path) -> None:
        shutil.copytree(PROJECT / TRANSCRIPTS, repo / TRANSCRIPTS)

    return snapshot_template(
        tmp_path_factory.mktemp("docs-template"), tag=newest_release(), mutate=with_transcripts
    )


TRANSCRIPTS = "tests/fixtures/transcripts"


@pytest.fixture(scope="module")
def installed(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A host with the template copied and committed, as each page expects to start."""
    host = init_repo(tmp_path_factory.mktemp("docs-pristine") / "host")
    copy_template(template_repo, host)
    commit_all(host, "Install eco-mem")
    return host


def session_env(template_repo: Path, scratch: Path) -> dict[str, str]:
    """The reader's environment, with a HOME of its own so no page writes to the real one."""
    home = scratch / "home"
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "HOME": str(home),
        "TEMPLATE": str(template_repo),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GIT_AUTHOR_NAME": "Docs",
        "GIT_AUTHOR_EMAIL": "docs@example.invalid",
        "GIT_COMMITTER_NAME": "Docs",
        "GIT_COMMITTER_EMAIL": "docs@example.invalid",
    }
    env.pop("ECO_MEM_DEBUG", None)
    return env


def fresh_host(installed: Path, tmp_path: Path) -> Path:
    host = tmp_path / "host"
    shutil.copytree(installed, host, symlinks=True)
    return host


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_as_written(
    page: str, installed: Path, template_repo: Path, tmp_path: Path
) -> None:
    text = (PROJECT / page).read_text(encoding="utf-8")
    assert not stray_markers(text), f"{page}: a `not run` marker above no shell block"
    for block in blocks(text):
        if block.language in SHELL_LANGUAGES and block.not_run is not None:
            assert block.not_run, f"{page}:{block.line}: `not run` needs a reason"
    outcome = run_page(
        page, text, fresh_host(installed, tmp_path), session_env(template_repo, tmp_path)
    )
    assert outcome.status == 0, (
        f"{page}: block at line {outcome.failed_line} failed\n{outcome.output}"
    )


# The runner itself: a broken documented command must fail the page, naming its block.

BROKEN_PAGE = """\
# A page

```sh
mem() { python3 .agents/skills/eco-mem/scripts/eco_mem.pyz "$@"; }
mem verify
```

Then a typo:

```sh
mem verfy
echo "never reached"
```
"""


def test_a_misspelt_subcommand_fails_its_page(
    installed: Path, template_repo: Path, tmp_path: Path
) -> None:
    outcome = run_page(
        "broken.md",
        BROKEN_PAGE,
        fresh_host(installed, tmp_path),
        session_env(template_repo, tmp_path),
    )
    assert outcome.status == 2, outcome.output  # argparse: invalid choice
    assert outcome.failed_line == 10
    assert f"{FAILED} 10 of broken.md failed (exit 2)" in outcome.output
    assert "invalid choice: 'verfy'" in outcome.output
    assert "never reached" not in outcome.output


def test_a_failing_last_command_in_an_and_list_fails_its_block(
    installed: Path, template_repo: Path, tmp_path: Path
) -> None:
    # Plain `set -e` lets `x && y` through when x fails; the runner does not.
    page = "```sh\nfalse && echo no\n```\n\n```sh\necho next block\n```\n"
    outcome = run_page(
        "and.md", page, fresh_host(installed, tmp_path), session_env(template_repo, tmp_path)
    )
    assert outcome.status == 1 and outcome.failed_line == 1, outcome.output
    assert "next block" not in outcome.output


def test_blocks_share_one_session_and_markers_skip(
    installed: Path, template_repo: Path, tmp_path: Path
) -> None:
    page = (
        "```bash\nmkdir sub && cd sub && WORD=kept\n```\n"
        "<!-- not run: needs a placeholder -->\n```sh\nexit 7\n```\n"
        "```yaml\nnot: shell\n```\n"
        '```console\n$ test "$WORD" = kept && basename "$PWD"\nsub\n```\n'
    )
    outcome = run_page(
        "s.md", page, fresh_host(installed, tmp_path), session_env(template_repo, tmp_path)
    )
    assert outcome.status == 0, outcome.output
    assert [block.line for block in outcome.ran] == [1, 11]
    assert outcome.output.rstrip().endswith("sub")


def test_a_stray_marker_is_reported() -> None:
    page = "<!-- not run: nothing below -->\n\ntext\n\n<!-- not run: why -->\n```sh\nx\n```\n"
    shown = "```text\n<!-- not run: an example of the syntax -->\n```\n"
    assert stray_markers(page + shown) == [1]


# README's set-up blocks are not run here (they build .venv and the demo, and run
# the whole suite); their markers say .ci/run runs them, so .ci/run must hold them.


def test_ci_runs_the_readme_set_up_blocks_as_written() -> None:
    ci = (PROJECT / ".ci/run").read_text(encoding="utf-8")
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    in_ci = [
        block
        for block in blocks(readme)
        if block.language in SHELL_LANGUAGES and ".ci/run" in (block.not_run or "")
    ]
    joined = "".join(block.text for block in in_ci)
    assert "venv" in joined and "copier copy" in joined and "-m pytest" in joined
    for block in in_ci:
        for line in block.text.strip().splitlines():
            assert line in ci, f".ci/run lacks README.md line {block.line}'s command: {line}"


NUMBERS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
]


def test_readme_counts_the_questions_copier_asks() -> None:
    """README counts the questions every install is asked; a question asked only after
    some answer is named there by what it is for, and install.md lists every one."""
    config = yaml.safe_load((PROJECT / "copier.yml").read_text(encoding="utf-8"))
    questions = {
        name: spec
        for name, spec in config.items()
        if not name.startswith("_") and isinstance(spec, dict) and "help" in spec
    }
    always = [name for name, spec in questions.items() if "when" not in spec]
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    said = re.findall(r"answer its (\w+) questions", readme)
    assert said == [NUMBERS[len(always)]], (always, said)
    install = (PROJECT / "docs/install.md").read_text(encoding="utf-8")
    unlisted = [name for name in questions if f"| `{name}` |" not in install]
    assert not unlisted, f"docs/install.md's question table lacks {unlisted}"


# verify's text output, in the shapes docs/verify.md gives.

SHAPE_WORDS = {
    "path": r"\S+?",
    "line": r"[1-9]\d*",
    "severity": r"(error|warning)",
    "rule-id": r"[a-z0-9.-]+",
    "how to fix it": r".+",
}


def test_verify_prints_findings_in_the_shapes_verify_md_gives(
    installed: Path, tmp_path: Path
) -> None:
    host = fresh_host(installed, tmp_path)
    page = (PROJECT / "docs/verify.md").read_text(encoding="utf-8")
    shapes = re.findall(r"`(path(?::line)?: severity \[rule-id\] how to fix it)`", page)
    assert len(shapes) == 2, shapes  # one with a line, one for the whole file
    patterns = []
    for shape in shapes:
        pattern = re.escape(shape)
        for word, regex in SHAPE_WORDS.items():
            pattern = pattern.replace(re.escape(word), regex)
        patterns.append(re.compile(pattern + "$"))
    semantic = host / MEMORY / "semantic"
    with (semantic / "INDEX.md").open("a", encoding="utf-8") as index:
        index.write("| gone | Gone | 2026-11-02 | verified | gone.md |\n")  # a row: has a line
    (semantic / "dump.json").write_text("{}\n", encoding="utf-8")  # a stray file: the whole file

    result = run_script(host, "verify")

    lines = result.stdout.splitlines()
    assert result.returncode == 1 and len(lines) == 2, result.stdout
    used = [next(i for i, p in enumerate(patterns) if p.match(line)) for line in lines]
    assert sorted(used) == [0, 1], (lines, shapes)


# docs/install.md, "When AGENTS.md or CLAUDE.md is a link": what a stopped copy left,
# and that the two commands the page gives finish the install.


def test_a_copy_stopped_by_a_link_out_is_finished_by_blocks_and_track(
    template_repo: Path, tmp_path: Path
) -> None:
    from copier.errors import TaskError

    outside = tmp_path / "outside.md"
    outside.write_text("# elsewhere\n", encoding="utf-8")
    host = init_repo(tmp_path / "host")
    (host / "AGENTS.md").symlink_to(outside)
    commit_all(host, "AGENTS.md links out")

    with pytest.raises(TaskError):
        copy_template(template_repo, host)

    written = run_script(host, "verify")  # the script is there: Copier wrote the skill
    assert written.returncode in (0, 1), written.stderr
    for path in (".agents/skills/eco-mem/SKILL.md", ".copier-answers.eco-mem.yml"):
        assert (host / path).is_file(), path
    assert not (host / ".gitattributes").exists()  # `track` never ran
    assert outside.read_text(encoding="utf-8") == "# elsewhere\n"
    page = (PROJECT / "docs/install.md").read_text(encoding="utf-8")
    section = page[page.index("### When AGENTS.md or CLAUDE.md is a link") :]
    finish = next(block for block in blocks(section) if block.language in SHELL_LANGUAGES)

    (host / "AGENTS.md").unlink()
    (host / "AGENTS.md").write_text("# Agents\n", encoding="utf-8")
    fenced = f"```sh\n{finish.text}```\n"
    outcome = run_page("install.md", fenced, host, session_env(template_repo, tmp_path))

    assert outcome.status == 0 and len(outcome.ran) == 1, outcome.output
    assert "eco-mem:begin" in (host / ".gitattributes").read_text(encoding="utf-8")
    assert "eco-mem" in (host / "AGENTS.md").read_text(encoding="utf-8")


def test_the_install_tree_names_every_script_command() -> None:
    table = PROJECT / "runtime/ecomem/commands/__init__.py"
    names = re.findall(r'^    "([a-z-]+)": "', table.read_text(encoding="utf-8"), re.MULTILINE)
    page = (PROJECT / "docs/install.md").read_text(encoding="utf-8")
    tree = next(block.text for block in blocks(page) if "scripts/eco_mem.pyz" in block.text)
    assert len(names) > 10
    missing = [name for name in names if not re.search(rf"\b{re.escape(name)}\b", tree)]
    assert not missing, f"docs/install.md's tree omits: {missing}"


# README's demo: Copier sits in the clone's .venv, off PATH in the demo. upgrade says
# where it is, and the command it prints works.

SYSTEM_PYTHON = Path("/usr/bin/python3")


@pytest.mark.skipif(
    not SYSTEM_PYTHON.is_file()
    or subprocess.run([str(SYSTEM_PYTHON), "-c", "import copier"], capture_output=True).returncode
    == 0,
    reason="needs a system Python without copier",
)
def test_upgrade_without_copier_on_path_names_the_templates_venv(tmp_path: Path) -> None:
    template = snapshot_template(tmp_path / "clone", tag=newest_release())
    (template / ".venv").mkdir()
    (template / ".venv/bin").symlink_to(Path(sys.executable).parent)  # the set-up's venv
    (template / ".git/info/exclude").write_text(".venv\n", encoding="utf-8")
    host = init_repo(tmp_path / "demo")
    copy_template(template, host)
    commit_all(host, "Install eco-mem")
    git(template, "tag", "v99.0.0")  # a newer release: the up-to-date answer does not apply
    bare = {**os.environ, "PATH": "/usr/bin:/bin"}
    ops = str(template / "ops.py")  # the demo's clone: where the README runs ops.py from

    refused = subprocess.run(
        [str(SYSTEM_PYTHON), ops, "upgrade", "--root", "."],
        cwd=host, env=bare, capture_output=True, text=True,
    )  # fmt: skip

    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    hint = re.search(r"`(PATH=\S+ python3 \S+ upgrade --root \.)`", refused.stderr)
    assert hint and f"{template}/.venv/bin" in hint.group(1), refused.stderr
    assert "pipx inject copier copier-template-extensions" in refused.stderr
    followed = subprocess.run(
        ["bash", "-c", hint.group(1).replace("python3", str(SYSTEM_PYTHON), 1)],
        cwd=host, env=bare, capture_output=True, text=True,
    )  # fmt: skip
    assert followed.returncode == 0, followed.stdout + followed.stderr
    assert "nothing changed" in followed.stdout  # Copier ran: v99.0.0 is the same commit
