"""The catalog merge driver is safe to leave configured: git runs only a copy kept in
the git dir, a driver that fails leaves git's own conflict, paths need no quoting, and
a criss-cross merge never brings a row back. Real git, real merges, real history."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from copier.errors import CopierError
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.helpers import (
    MEMORY,
    PROJECT,
    SKILL,
    change_runtime_module,
    commit_all,
    copy_template,
    git,
    init_repo,
    runtime_module,
)
from tests.memory_helpers import fact, mem

SEMANTIC = f"{MEMORY}/semantic/INDEX.md"
SECTION = "merge.eco-mem-catalog"
# Inside a merge git runs `python3` from PATH: put this interpreter first, not a
# version manager's shim that costs far more than the merge.
PATH = os.pathsep.join((str(Path(sys.executable).parent), os.environ["PATH"]))
ENV = {**os.environ, "PATH": PATH}
SEEDS = ("Alpha service owns billing", "Middle tier caches for a minute", "Omega job runs nightly")
# Both sort after every seed: the same gap, so git's text merge conflicts and the
# driver's Python has to run.
OURS_ROW, THEIRS_ROW = "Zz ours worker pool holds eight", "Zz theirs worker queue is redis"


def slug(title: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in title.lower()).split())


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def run_git(repo: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, env=env or ENV, check=False
    )


def common_dir(repo: Path) -> Path:
    return (repo / git(repo, "rev-parse", "--git-common-dir").strip()).resolve()


def driver_copies(repo: Path) -> list[Path]:
    return sorted((common_dir(repo) / "eco-mem").glob("merge-driver-*"))


def driver_home(repo: Path) -> Path:
    """The one copy of the driver this clone has."""
    copies = driver_copies(repo)
    assert len(copies) == 1, copies
    return copies[0]


def copy_bytes(repo: Path) -> dict[str, bytes]:
    folder = common_dir(repo) / "eco-mem"
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.parts
        and not {"write.lock", "journal"} & set(path.relative_to(folder).parts)
    }


@pytest.fixture(scope="module")
def store(pristine: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A render with a few facts committed; the driver as copy left it."""
    repo = tmp_path_factory.mktemp("store") / "repo"
    shutil.copytree(pristine, repo, symlinks=True)
    for title in SEEDS:
        ok(fact(repo, title))
    commit_all(repo, "a store in use")
    return repo


@pytest.fixture
def repo(store: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(store, copy, symlinks=True)
    return copy


def rows_in_one_gap(repo: Path, runner=fact) -> None:
    """`theirs-side` adds one fact and the current branch another, in the same gap."""
    branch = git(repo, "branch", "--show-current").strip()
    git(repo, "checkout", "-q", "-b", "theirs-side")
    ok(runner(repo, THEIRS_ROW))
    commit_all(repo, "theirs")
    git(repo, "checkout", "-q", branch)
    ok(runner(repo, OURS_ROW))
    commit_all(repo, "ours")


def assert_never_worse_than_git(repo: Path, merged: subprocess.CompletedProcess, index: str):
    """Neither side's row is lost: a clean merge holds both rows, a stopped one holds
    them with git's markers around, and no scratch file is left behind."""
    text = (repo / index).read_text(encoding="utf-8")
    assert slug(OURS_ROW) in text and slug(THEIRS_ROW) in text, text
    if merged.returncode == 0:
        assert "<<<<<<<" not in text
    else:
        assert "<<<<<<<" in text and ">>>>>>>" in text, text
    assert not [name for name in os.listdir(repo) if name.startswith(".merge_file")]
    # The token holding git's text merge lives in the git dir, and is gone too.
    assert not list((repo / ".git").glob("eco-mem-merge-*"))


def test_the_copy_lives_in_the_common_git_dir_and_merges(repo: Path, tmp_path: Path) -> None:
    home = driver_home(repo)
    assert home.parent == repo / ".git" / "eco-mem"
    command = git(repo, "config", f"{SECTION}.driver")
    assert str(repo) not in command and SKILL not in command  # no path to quote
    # A linked worktree shares the config and the copy, and merges through it.
    tree = tmp_path / "tree"
    git(repo, "worktree", "add", "-q", "-b", "in-tree", str(tree))
    rows_in_one_gap(tree)
    merged = run_git(tree, "merge", "--no-edit", "theirs-side")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert_never_worse_than_git(tree, merged, SEMANTIC)
    assert driver_copies(repo) == [home]


def plant(tree: Path, proof: Path) -> None:
    """Make the skill's scripts in `tree` leave `proof` behind whenever they run."""
    line = f"open({str(proof)!r}, 'w').close()\n"
    entry = runtime_module(tree, "__main__.py")
    change_runtime_module(
        tree, "__main__.py", entry.replace("import sys\n", "import sys\n" + line, 1)
    )
    for module in ("__init__.py", "commands/merge_catalog.py", "store/merge.py"):
        entry = f"ecomem/{module}"
        change_runtime_module(tree, entry, runtime_module(tree, entry) + line)


@pytest.mark.parametrize("operation", ["cherry-pick", "rebase"])
def test_commits_being_applied_cannot_change_what_the_driver_runs(
    repo: Path, tmp_path: Path, operation: str
) -> None:
    proof = tmp_path / "the-scripts-in-the-tree-ran"
    # The branch's row, written by the real command on a side branch.
    git(repo, "checkout", "-q", "-b", "row")
    ok(fact(repo, THEIRS_ROW))
    commit_all(repo, "the row")
    # evil: first a commit that changes the scripts, then one whose row conflicts.
    git(repo, "checkout", "-q", "-b", "evil", "main")
    plant(repo, proof)
    commit_all(repo, "scripts")
    git(repo, "checkout", "row", "--", MEMORY)
    commit_all(repo, "a row")
    git(repo, "checkout", "-q", "main")
    ok(fact(repo, OURS_ROW))
    commit_all(repo, "ours")
    assert not proof.exists()
    before = copy_bytes(repo)

    if operation == "cherry-pick":
        done = run_git(repo, "cherry-pick", "main..evil")
    else:
        git(repo, "checkout", "-q", "evil")
        done = run_git(repo, "rebase", "main")

    assert not proof.exists(), "git ran a script that a commit being applied brought"
    assert done.returncode == 0, done.stdout + done.stderr
    assert_never_worse_than_git(repo, done, SEMANTIC)
    assert copy_bytes(repo) == before  # no git operation writes the copy


def interpreter(version: str) -> str | None:
    """The real executable of a Python `version` (not a version manager's shim, which
    picks its interpreter by the name it is called under)."""
    found = sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{version}.*/bin/python3")))
    found.append(shutil.which(f"python{version}") or "")
    probe = "import sys; print('%d.%d' % sys.version_info[:2]); print(sys.executable)"
    for candidate in filter(None, found):
        done = subprocess.run([candidate, "-S", "-c", probe], capture_output=True, text=True)
        lines = done.stdout.splitlines()
        if done.returncode == 0 and lines[:1] == [version]:
            return lines[1]
    return None


@pytest.mark.parametrize("version", ["3.6", "3.7"])
def test_a_python_too_old_for_the_scripts_leaves_gits_conflict(
    repo: Path, tmp_path: Path, version: str
) -> None:
    # python3 on PATH is an old interpreter: the scripts fail on it with exit 1.
    python = interpreter(version)
    if python is None:
        pytest.skip(f"no Python {version} on this machine")
    rows_in_one_gap(repo)
    tools = tmp_path / "old-python"
    tools.mkdir()
    (tools / "python3").symlink_to(python)

    merged = run_git(
        repo, "merge", "--no-edit", "theirs-side", env={**ENV, "PATH": f"{tools}{os.pathsep}{PATH}"}
    )

    assert_never_worse_than_git(repo, merged, SEMANTIC)


DAMAGE = {
    "raises": "raise RuntimeError('broken')\n",
    "syntax error": "def (\n",
    "killed by a signal": "import os\nos.kill(os.getpid(), 9)\n",
    "exits 0 without merging": "import sys\nsys.exit(0)\n",
}


@pytest.mark.parametrize("damage", [*DAMAGE, "removed"])
def test_a_driver_that_fails_leaves_gits_own_conflict(repo: Path, damage: str) -> None:
    rows_in_one_gap(repo)
    home = driver_home(repo)
    if damage == "removed":
        shutil.rmtree(home)
    else:
        module = home / "ecomem/store/merge.py"
        module.write_text(DAMAGE[damage] + module.read_text(encoding="utf-8"), encoding="utf-8")

    merged = run_git(repo, "merge", "--no-edit", "theirs-side")

    assert merged.returncode != 0
    assert_never_worse_than_git(repo, merged, SEMANTIC)
    # `track`, run on purpose, rebuilds the copy; `resolve` (which runs that copy)
    # then finishes the merge from git's stages.
    ok(mem(repo, "track"))
    ok(mem(repo, "resolve"))
    text = (repo / SEMANTIC).read_text(encoding="utf-8")
    assert "<<<<<<<" not in text and slug(OURS_ROW) in text and slug(THEIRS_ROW) in text


def script_runner(skill: str):
    def run_fact(host: Path, title: str) -> subprocess.CompletedProcess:
        script = str(host / skill / "eco-mem/scripts/eco_mem.pyz")
        args = ["new", "semantic", "--title", title, "--source", "verified", "--scope", "repo"]
        return subprocess.run(
            [sys.executable, script, *args, "--expires", "never", "--body", "Checked."],
            cwd=host,
            capture_output=True,
            text=True,
        )

    return run_fact


def test_paths_with_every_allowed_character_merge_row_by_row(
    template_repo: Path, tmp_path: Path
) -> None:
    # Shell characters are refused answers now (tests/test_path_answers.py); the driver
    # still meets the rule's whole charset: dots, dashes, underscores, digits, capitals.
    skill, memory = "Tools.v2_ai-x", "notes..x/V1.2_mem-o"
    host = init_repo(tmp_path / "host")
    copy_template(template_repo, host, skill_path=skill, memory_path=memory)
    commit_all(host, "install eco-mem")
    rows_in_one_gap(host, script_runner(skill))

    merged = run_git(host, "merge", "--no-edit", "theirs-side")

    assert merged.returncode == 0, merged.stdout + merged.stderr
    assert_never_worse_than_git(host, merged, f"{memory}/semantic/INDEX.md")
    assert not (host / "pwned").exists()


@pytest.mark.parametrize(
    "answers",
    [{"memory_path": "-mem"}, {"skill_path": "tools/--skills"}, {"memory_path": "notes/-x"}],
    ids=str,
)
def test_folder_names_starting_with_a_dash_are_refused(
    template_repo: Path, dst: Path, answers: dict
) -> None:
    with pytest.raises((CopierError, ValueError)) as failure:
        copy_template(template_repo, dst, **answers)
    assert "must not have a folder name starting with '-'" in str(failure.value)
    assert git(dst, "status", "--porcelain", "--ignored") == ""


def test_the_driver_reads_its_arguments_as_paths_not_options(repo: Path, tmp_path: Path) -> None:
    base = (repo / SEMANTIC).read_text(encoding="utf-8")
    row = "| zebra | Zebra | 2024-01-01 | verified | zebra.md |\n"
    names = {}
    for name, text in (("base", base), ("ours", base), ("theirs", base + row)):
        names[name] = tmp_path / f"-{name}"
        names[name].write_text(text, encoding="utf-8")
    entry = driver_home(repo) / "driver.py"
    given = [f"./-{name}" for name in ("base", "ours", "theirs")]
    for path in ("--help", "-x/INDEX.md"):
        done = subprocess.run(
            [sys.executable, "-I", "-S", str(entry), *given, path],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        assert names["ours"].read_text(encoding="utf-8") == base + row


def trace_config_writes(trace: Path) -> list[str]:
    return [
        line.split("config", 1)[1]
        for line in trace.read_text(encoding="utf-8").splitlines()
        if " config " in line and SECTION in line and "--get" not in line
    ]


def test_a_section_without_a_command_is_never_left_behind(repo: Path, tmp_path: Path) -> None:
    # git stops every merge of a catalog whose driver section names no command.
    rows_in_one_gap(repo)
    git(repo, "config", "--unset", f"{SECTION}.driver")
    stuck = run_git(repo, "merge", "--no-edit", "theirs-side")
    assert stuck.returncode == 128 and "lacks command line" in stuck.stderr
    # So the command is written first, each key in one atomic `git config` write:
    # stopped between the two, the clone has a working driver without a name.
    git(repo, "config", "--remove-section", SECTION)
    trace = tmp_path / "trace"
    ok(mem(repo, "track", env={"GIT_TRACE": str(trace)}))
    writes = trace_config_writes(trace)
    assert writes and f"{SECTION}.driver" in writes[0], writes
    merged = run_git(repo, "merge", "--no-edit", "theirs-side")
    assert merged.returncode == 0, merged.stdout + merged.stderr
    # A section an older eco-mem left with only the name: memory commands say so,
    # and `track` repairs it.
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    git(repo, "config", "--unset", f"{SECTION}.driver")
    assert "no catalog merge driver" in mem(repo, "forget", "no-such-entry").stderr
    assert "merge driver" not in ok(mem(repo, "find", "alpha")).stderr  # a reader is not told
    ok(mem(repo, "track"))
    assert run_git(repo, "merge", "--no-edit", "theirs-side").returncode == 0


def test_a_criss_cross_merge_never_brings_a_forgotten_row_back(repo: Path, tmp_path: Path) -> None:
    middle, omega = slug(SEEDS[1]), slug(SEEDS[2])
    # x and y change one row differently, then each merges the other and both
    # settle it the same way: a criss-cross, with x and y as its two merge bases.
    git(repo, "checkout", "-q", "-b", "x")
    ok(mem(repo, "revise", middle, "--title", "Middle tier caches for five minutes"))
    commit_all(repo, "x")
    git(repo, "checkout", "-q", "-b", "y", "main")
    ok(mem(repo, "revise", middle, "--title", "Middle tier caches for an hour"))
    commit_all(repo, "y")
    bases = {name: git(repo, "rev-parse", name).strip() for name in ("x", "y")}
    for branch, other, side in (("x", "y", "--ours"), ("y", "x", "--theirs")):
        git(repo, "checkout", "-q", branch)
        assert run_git(repo, "merge", "--no-edit", bases[other]).returncode != 0
        git(repo, "checkout", side, "--", MEMORY)
        commit_all(repo, f"{branch}: settled as x")
    # Then x forgets a row that sits after the settled one, and y adds a fact.
    git(repo, "checkout", "-q", "x")
    ok(mem(repo, "forget", omega))
    commit_all(repo, "x: forget omega")
    git(repo, "checkout", "-q", "y")
    ok(fact(repo, "Beta queue drains hourly"))
    commit_all(repo, "y: one more fact")
    git(repo, "checkout", "-q", "x")
    plain = tmp_path / "plain"
    shutil.copytree(repo, plain, symlinks=True)
    git(plain, "config", "--remove-section", SECTION)

    merged = run_git(repo, "merge", "--no-edit", "y")

    # git's virtual base merges x and y and holds their conflict between markers.
    # Plain git stops here; so must the driver, not report a clean merge with the
    # forgotten row back.
    assert run_git(plain, "merge", "--no-edit", "y").returncode != 0
    text = (repo / SEMANTIC).read_text(encoding="utf-8")
    assert merged.returncode != 0, f"a clean merge that kept {omega}:\n{text}"


def test_remove_driver_takes_out_the_section_and_every_copy(repo: Path) -> None:
    rows_in_one_gap(repo)
    scripts = PROJECT  # the operator's, with this checkout's runtime
    code = (
        "import sys; from pathlib import Path; sys.path[:0] = [sys.argv[1], sys.argv[1] + '/runtime'];"
        " from eco_mem_ops.install.driver_removal import remove_driver;"
        " print(remove_driver(Path(sys.argv[2])))"
    )
    first = ok(subprocess.run([sys.executable, "-B", "-c", code, str(scripts), str(repo)], **QUIET))
    assert first.stdout.strip() == "True"
    assert SECTION not in git(repo, "config", "--list")
    # Every copy, the launcher, the lock and upgrade's record of the trusted source go:
    # uninstall (its one caller) leaves nothing of eco-mem in the git dir.
    assert not (repo / ".git/eco-mem").exists()
    again = ok(subprocess.run([sys.executable, "-B", "-c", code, str(scripts), str(repo)], **QUIET))
    assert again.stdout.strip() == "False"
    # Git merges the catalogs as plain text again: it stops, as without eco-mem.
    merged = run_git(repo, "merge", "--no-edit", "theirs-side")
    assert merged.returncode != 0
    assert_never_worse_than_git(repo, merged, SEMANTIC)


QUIET = {"capture_output": True, "text": True, "check": False}


def test_the_copy_changes_only_when_track_runs(repo: Path) -> None:
    home = driver_home(repo)
    config = (repo / ".git/config").read_bytes()
    assert "merge driver" not in ok(mem(repo, "find", "alpha")).stderr  # all is current
    assert (repo / ".git/config").read_bytes() == config
    # A changed module in the skill: memory commands leave the copy and the config as
    # they are; `track`, run on purpose, writes a new copy, points the config at it
    # and removes the old one.
    changed = runtime_module(repo, "ecomem/store/merge.py") + "# changed\n"
    change_runtime_module(repo, "ecomem/store/merge.py", changed)
    before = copy_bytes(repo)
    for command in (("find", "alpha"), ("verify",), ("context",)):
        assert "merge driver" not in mem(repo, *command).stderr
    assert copy_bytes(repo) == before and (repo / ".git/config").read_bytes() == config
    assert "driver set for this clone" in ok(mem(repo, "track")).stdout
    assert driver_copies(repo) != [home] and len(driver_copies(repo)) == 1
    fresh = driver_home(repo)
    assert (fresh / "ecomem/store/merge.py").read_text(encoding="utf-8") == changed
    assert fresh.name.removeprefix("merge-driver-") in git(repo, "config", f"{SECTION}.driver")
    rows_in_one_gap(repo)
    assert run_git(repo, "merge", "--no-edit", "theirs-side").returncode == 0


# Randomized three-way merges of one catalog, each a real `git merge` through the
# driver as configured, checked against the rules of docs/teamwork.md computed
# here on their own. Examples scale with the Hypothesis profile (conftest.py);
# ECO_MEM_MERGE_EXAMPLES sets the count for a long run.
IDENTITIES = tuple(f"row-{letter}" for letter in "bdfhjlnp")
CHANGE = st.sampled_from(["keep", "keep", "keep", "keep", "drop", "v1", "v2"])
NOTE = "Confirmed facts about this repository"


@st.composite
def three_catalogs(draw) -> tuple[dict, dict, dict, str]:
    """base, ours, theirs ({identity: version or None}) and who edits the note above."""
    base, ours, theirs = {}, {}, {}
    for identity in IDENTITIES:
        base[identity] = draw(st.sampled_from([None, "v0"]))
        for side in (ours, theirs):
            change = draw(CHANGE)
            side[identity] = {"keep": base[identity], "drop": None}.get(change, change)
    return base, ours, theirs, draw(st.sampled_from(["nobody", "ours", "theirs", "both"]))


def catalog_row(identity: str, version: str) -> str:
    return f"| {identity} | {identity} {version} | 2024-01-01 | verified | {identity}.md |"


def expected_merge(base: dict, ours: dict, theirs: dict) -> tuple[list[str], bool]:
    """(every row line the merged file must hold, sorted; whether the merge must stop)."""
    rows, stops = [], False
    for identity in IDENTITIES:
        b, o, t = base[identity], ours[identity], theirs[identity]
        if o == t or t == b:
            kept = [o]
        elif o == b:
            kept = [t]
        else:  # changed differently on both sides: both versions stay, between markers
            kept, stops = [o, t], True
        rows += [catalog_row(identity, version) for version in kept if version is not None]
    return sorted(rows), stops


@pytest.fixture(scope="module")
def playground(store: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A clone to merge in, and the semantic catalog's lines down to the table head."""
    repo = tmp_path_factory.mktemp("playground") / "repo"
    shutil.copytree(store, repo, symlinks=True)
    head = git(repo, "show", f"main:{SEMANTIC}").split("\n")
    return repo, head[: head.index("|---|---|---|---|---|") + 1]


def import_commits(repo: Path, commits: list[tuple[str, str, str]]) -> None:
    """Write (branch, parent, catalog text) commits in one `git fast-import`."""
    stream = []
    for branch, parent, text in commits:
        data = text.encode("utf-8")
        stream += [
            f"commit refs/heads/{branch}\ncommitter T <t@example.invalid> 0 +0000\n",
            f"data {len(branch)}\n{branch}\nfrom {parent}\n",
            f"M 100644 inline {SEMANTIC}\ndata {len(data)}\n{text}\n",
        ]
    done = subprocess.run(
        ["git", "fast-import", "--quiet", "--force"],
        cwd=repo,
        input="".join(stream).encode("utf-8"),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr


MERGE_EXAMPLES = int(os.environ.get("ECO_MEM_MERGE_EXAMPLES") or 5 * settings.default.max_examples)


@settings(
    max_examples=MERGE_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(versions=three_catalogs())
def test_randomized_merges_through_the_configured_driver_lose_nothing(
    playground: tuple[Path, list[str]], versions: tuple[dict, dict, dict, str]
) -> None:
    repo, top = playground
    base, ours, theirs, note = versions

    def catalog(rows: dict, words: str) -> str:
        lines = [line.replace(NOTE, f"{NOTE} ({words})") for line in top] if words else top
        rows_text = [catalog_row(i, v) for i, v in sorted(rows.items()) if v is not None]
        return "\n".join([*lines, *rows_text]) + "\n"

    texts = {
        "base": catalog(base, ""),
        "ours": catalog(ours, "ours" * (note in ("ours", "both"))),
        "theirs": catalog(theirs, "theirs" * (note in ("theirs", "both"))),
    }
    parents = {
        "base": "refs/heads/main",
        "ours": "refs/heads/p-base",
        "theirs": "refs/heads/p-base",
    }
    import_commits(repo, [(f"p-{name}", parents[name], text) for name, text in texts.items()])
    # Which path the driver takes: git's text merge alone, or Python after it conflicts.
    for name, text in texts.items():
        (repo / ".git" / f"p-{name}").write_text(text, encoding="utf-8")
    plain = run_git(
        repo, "merge-file", "-p", "-q", *(f".git/p-{n}" for n in ("ours", "base", "theirs"))
    )
    event(
        "the text merge conflicts: Python merges" if plain.returncode else "the text merge is clean"
    )
    git(repo, "checkout", "-q", "-f", "p-ours")
    merged = run_git(repo, "merge", "-q", "--no-edit", "p-theirs")
    text = (repo / SEMANTIC).read_text(encoding="utf-8")
    if merged.returncode != 0:
        git(repo, "merge", "--abort")

    rows, stops = expected_merge(base, ours, theirs)
    assert sorted(line for line in text.splitlines() if line.startswith("| row-")) == rows, text
    stops = stops or note == "both"
    assert (merged.returncode != 0) == stops, merged.stdout + merged.stderr + text
    assert ("<<<<<<<" in text) == stops, text
    for side in ("ours", "theirs"):
        if note == side:
            assert f"{NOTE} ({side})" in text
