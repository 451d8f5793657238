"""A v0.4.1 install, with a team's memory, moved to this release's layout in one step.

v0.4.1 (commit 0a7d387, from this repository's history, tagged in a scratch template
repo) rendered its answers into the scripts and shipped the install, upgrade and
experiment code to every host. This working tree, tagged v0.5.0, keeps only what runs
in a host. One `copier update`, or the v0.4.1 host's own `eco_mem.pyz upgrade`, must
leave exactly a fresh v0.5.0 install's skill folder, every memory byte where it was,
and the removed code listed once in the diff.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from tests.fleet import TEAM_MEMORY, TEAM_ROWS
from tests.helpers import (
    MEMORY,
    SKILL,
    assert_no_traceback,
    build_files,
    built_once,
    commit_all,
    copy_template,
    git,
    init_repo,
    run_ops,
    run_script,
    snapshot_template,
    template_from_history,
    update_project,
)

pytestmark = pytest.mark.start_early(seconds=110)  # see tests/conftest.py

V041 = "0a7d387"  # "Release v0.4.1"
GONE = (f"{SKILL}/scripts/ecomem/install", f"{SKILL}/scripts/ecomem/experiment")


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("v041") / "eco-mem"
    init_repo(repo)
    template_from_history(repo, V041)
    commit_all(repo, "template v0.4.1")
    git(repo, "tag", "v0.4.1")
    snapshot_template(repo, "v0.5.0")
    return repo


@pytest.fixture(scope="module")
def fresh(template: Path, tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    host = init_repo(tmp_path_factory.mktemp("fresh") / "host")
    copy_template(template, host, vcs_ref="v0.5.0")
    return files_under(host, SKILL)


def files_under(host: Path, folder: str) -> set[str]:
    return {
        str(path.relative_to(host))
        for path in (host / folder).rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


def memory_bytes(host: Path) -> dict[str, bytes]:
    """Every memory file's bytes; of an INDEX, its catalog (the contract above it is the
    release's text, and a release may reword it)."""
    found = {}
    # The drawers' files; the tool settings at the memory root are the release's text.
    for name in files_under(host, MEMORY):
        if "/" not in name[len(MEMORY) + 1 :]:
            continue
        data = (host / name).read_bytes()
        found[name] = data.partition(b"\n## Catalog\n")[2] if name.endswith("INDEX.md") else data
    return found


def install_v041_with_memory(template: Path, dst: Path) -> dict[str, bytes]:
    """`dst` (empty) with v0.4.1 and the team's memory committed, built once per template
    and copied after: these tests are about the move from it."""

    def install(host: Path) -> None:
        copy_template(template, host, vcs_ref="v0.4.1")
        assert (host / SKILL / "scripts/ecomem/install/upgrade.py").is_file()  # really v0.4.1
        build_files(host, TEAM_MEMORY)
        for drawer, row in TEAM_ROWS.items():
            with (host / MEMORY / drawer / "INDEX.md").open("a", encoding="utf-8") as index:
                index.write(row)
        commit_all(host, "eco-mem v0.4.1 and the team's memory")
        assert run_script(host, "verify").returncode == 0

    built_once(dst, template.parent / "v041-install-with-memory", install)
    return memory_bytes(dst)


def assert_moved(dst: Path, fresh: set[str], memory: dict[str, bytes]) -> None:
    assert files_under(dst, SKILL) == fresh
    after = memory_bytes(dst)
    assert {name: after.get(name) for name in memory} == memory  # new tool settings may join
    removed = git(dst, "diff", "--name-only", "--diff-filter=D", "HEAD").split()
    assert any(path.startswith(GONE) for path in removed)
    assert not [path for path in removed if path.startswith(MEMORY)]
    verify = run_script(dst, "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_one_copier_update_moves_v041_to_the_new_layout(
    template: Path, dst: Path, fresh: set[str]
) -> None:
    memory = install_v041_with_memory(template, dst)

    update_project(dst, vcs_ref="v0.5.0")

    assert_moved(dst, fresh, memory)


def test_the_v041_hosts_own_upgrade_moves_it_too(
    template: Path, dst: Path, fresh: set[str]
) -> None:
    memory = install_v041_with_memory(template, dst)

    result = run_script(dst, "upgrade", "--vcs-ref", "v0.5.0")

    assert result.returncode == 0, result.stdout + result.stderr
    assert_no_traceback(result)
    assert_moved(dst, fresh, memory)


def test_what_host_tools_left_in_the_old_scripts_breaks_neither_upgrade_nor_verify(
    template: Path, dst: Path
) -> None:
    """A user's `ruff check .` wrote `.ruff_cache/` into the old scripts folder, and a
    Python without the cache prefix wrote `__pycache__/`: untracked, Copier leaves them
    where the source was. The upgrade and verify must not trip on them, and no Python
    source of ours stays in the skill."""
    memory = install_v041_with_memory(template, dst)
    scripts = dst / SKILL / "scripts"
    # As ruff writes its cache (ignored by its own .gitignore), and as a Python host
    # ignores bytecode.
    with (dst / ".gitignore").open("a", encoding="utf-8") as ignore:
        ignore.write("__pycache__/\n")
    commit_all(dst, "the host ignores bytecode")
    ruff_cache = {
        "CACHEDIR.TAG": "Signature: 8a477f597d28d172789f06886806bc55\n",
        ".gitignore": "# Automatically created by ruff.\n*\n",
        "0.9.0/123": "x",
    }
    build_files(dst, {f"{SKILL}/scripts/.ruff_cache/{k}": v for k, v in ruff_cache.items()})
    (scripts / "ecomem" / "__pycache__").mkdir(exist_ok=True)
    (scripts / "ecomem" / "__pycache__" / "cli.cpython-311.pyc").write_bytes(b"\0\0")
    assert git(dst, "status", "--porcelain") == ""

    result = run_ops(dst, "upgrade", "--template", str(template), "--vcs-ref", "v0.5.0")

    assert result.returncode == 0, result.stdout + result.stderr
    assert_no_traceback(result)
    assert not [path for path in (dst / SKILL).rglob("*.py")]
    after = memory_bytes(dst)
    assert {name: after.get(name) for name in memory} == memory
    verify = run_script(dst, "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr


def named_command(said: str) -> list[str]:
    """The command a one-line refusal ends with, between backticks, as words (the
    hiding rule before it is quoted the same way)."""
    return shlex.split(said.split("`")[-2])


def test_every_command_an_upgrade_refusal_names_runs_in_a_source_tree_install(
    template: Path, dst: Path
) -> None:
    """A v0.4.1 host holds scripts/eco_mem.py, not the runtime file: a refusal that named
    `eco_mem.pyz track` sent the operator to a file that is not there (found on httpx,
    where `.claude/` is ignored for personal settings). The command named must run, and
    after it and a commit the upgrade must go through with every memory byte kept."""
    memory = install_v041_with_memory(template, dst)
    with (dst / ".gitignore").open("a", encoding="utf-8") as ignore:
        ignore.write(".claude/\n")  # personal Claude Code settings, hidden after the install
    commit_all(dst, "keep personal .claude/ settings out of git")

    refused = run_ops(dst, "upgrade", "--template", str(template), "--vcs-ref", "v0.5.0")

    said = refused.stdout + refused.stderr
    assert refused.returncode == 2 and "`" in said, said
    assert_no_traceback(refused)
    tracked = subprocess.run(named_command(said), cwd=dst, capture_output=True, text=True)
    assert tracked.returncode == 0, tracked.stdout + tracked.stderr
    commit_all(dst, "eco-mem: keep its files in git")
    upgraded = run_ops(dst, "upgrade", "--vcs-ref", "v0.5.0")
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
    after = memory_bytes(dst)
    assert {name: after.get(name) for name in memory} == memory


def test_uninstall_takes_out_the_workflows_of_a_source_tree_install(
    template: Path, dst: Path
) -> None:
    """The CI workflows a v0.4.1 install rendered run `scripts/eco_mem.py`: uninstall kept
    them, and the host's CI then ran a script the uninstall had deleted."""
    copy_template(template, dst, vcs_ref="v0.4.1", ci="github-actions")
    workflows = sorted((dst / ".github" / "workflows").glob("eco-mem*.yml"))
    assert len(workflows) == 2 and all("eco_mem.py " in w.read_text() for w in workflows)
    commit_all(dst, "eco-mem v0.4.1 with CI")

    removed = run_ops(dst, "uninstall")

    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert not [w for w in workflows if w.exists()]


def test_a_desk_from_before_the_record_of_writes_is_named_until_adopted(
    template: Path, dst: Path
) -> None:
    """v0.4.1 kept no record of what a clone's memory commands wrote, so after the upgrade
    its open desk is named, never shown, until `adopt` takes it back (docs/updating.md
    says so, and how); its bytes are not touched on the way."""
    install_v041_with_memory(template, dst)
    # A clone of a team's repository: its default branch is origin's (a repository with
    # no remote holds only what was made in it, and names nothing).
    origin = dst.parent / "origin.git"
    git(dst.parent, "clone", "-q", "--bare", str(dst), str(origin))
    git(dst, "remote", "add", "origin", str(origin))
    git(dst, "fetch", "-q", "origin")
    git(dst, "remote", "set-head", "origin", "--auto")
    opened = run_script(dst, "new", "working", "--title", "Port the parser", "--goal", "3.13")
    assert opened.returncode == 0, opened.stdout + opened.stderr
    desk = dst / MEMORY / "working" / "port-the-parser.md"
    before = desk.read_bytes()
    upgraded = run_ops(dst, "upgrade", "--template", str(template), "--vcs-ref", "v0.5.0")
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr

    named = run_script(dst, "context").stdout
    assert "desk `port-the-parser`" in named and "Goal" not in named, named
    shown = run_script(dst, "adopt", "port-the-parser", "--json")
    token = json.loads(shown.stdout)["token"]
    taken = run_script(dst, "adopt", "port-the-parser", "--take", token)
    assert taken.returncode == 0, taken.stdout + taken.stderr
    assert "desk `port-the-parser`" not in run_script(dst, "context").stdout
    assert desk.read_bytes() == before
