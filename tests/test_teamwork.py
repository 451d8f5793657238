"""Parallel memory branches merge without hand edits: row placement, the catalog
merge driver, and `resolve`, all with real git (worktrees, clones, rebases)."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import MEMORY, PROJECT, commit_all, git
from tests.memory_helpers import SCRIPT, episode, fact, mem

SEMANTIC = f"{MEMORY}/semantic/INDEX.md"
EPISODIC = f"{MEMORY}/episodic/INDEX.md"
DRIVER_KEY = "merge.eco-mem-catalog.driver"

# A store a team has used for a while: the facts and episodes already on main.
SEED_FACTS = (
    "API responses are paginated with cursor tokens",
    "Billing webhooks retry for three days",
    "CI caches pip wheels keyed on the lockfile hash",
    "Dependabot updates are grouped weekly",
    "Error messages are translated with gettext",
    "Frontend bundles are built with Vite",
    "GraphQL schema is generated from the models",
    "Logs ship to Loki through promtail",
    "Payments use the Stripe test keys in staging",
    "Postgres 15 is the oldest supported database",
    "Release tags are signed with the team GPG key",
    "Staging deploys from the main branch every hour",
    "The docs site builds with mkdocs material",
    "Uploads are stored in the S3 media bucket",
)
SEED_EPISODES = (
    "Cache key collision broke the nightly build",
    "Expired staging certificate blocked the demo",
    "Migration locked the orders table at peak",
    "Release script pushed tags before the build",
    "Timezone bug doubled the invoice run",
)
# What eight agents learned on eight branches, the first four with an episode too.
BRANCH_FACTS = (
    "Integration tests need the redis container running",
    "Mypy runs in strict mode on the api package",
    "Feature flags live in config flags yaml",
    "Alembic migrations must be reversible",
    "Sentry DSN comes from the environment only",
    "Black line length is one hundred",
    "Nightly job rebuilds the search index",
    "Windows builds run on GitHub hosted runners",
)
BRANCH_EPISODES = (
    "Redis container missing made the suite hang",
    "Strict mypy caught a None leak in billing",
    "Flag rename broke the mobile client",
    "Irreversible migration blocked a rollback",
)
BRANCHES = [f"agent-{number}" for number in range(1, 9)]


def slug(title: str) -> str:
    """The file name `new` gives a title: the runtime's own rule (store/shapes.py)."""
    return _slugify()(title)


@functools.cache
def _slugify():
    sys.path.insert(0, str(PROJECT / "runtime"))  # as the `ecomem` fixture does
    from ecomem.store.shapes import slugify

    return slugify


def ok(result: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert result.returncode == 0, result.stderr
    return result


def run_git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)


@pytest.fixture(scope="module")
def team(pristine: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """main with a used store, and eight branches each written in its own worktree."""
    repo = tmp_path_factory.mktemp("team") / "repo"
    shutil.copytree(pristine, repo, symlinks=True)
    for title in SEED_FACTS:
        ok(fact(repo, title))
    for title in SEED_EPISODES:
        ok(episode(repo, title, f"Lesson from {title.lower()}.", "--date", "2024-03-01"))
    commit_all(repo, "a store in use")
    for number, branch in enumerate(BRANCHES):
        tree = repo.parent / branch
        git(repo, "worktree", "add", "-q", "-b", branch, str(tree), "main")
        ok(fact(tree, BRANCH_FACTS[number]))
        if number < len(BRANCH_EPISODES):
            ok(episode(tree, BRANCH_EPISODES[number], "Check it first."))
        commit_all(tree, f"{branch}: what this agent learned")
        git(repo, "worktree", "remove", str(tree))
    return repo


@pytest.fixture
def repo(team: Path, tmp_path: Path) -> Path:
    """A copy of the team's clone, merge driver configured (the copy task set it)."""
    copy = tmp_path / "repo"
    shutil.copytree(team, copy, symlinks=True)
    return copy


@pytest.fixture
def fresh(team: Path, tmp_path: Path) -> Path:
    """A fresh `git clone` where no eco-mem command ran: no driver in its config."""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(team), str(clone))
    for branch in BRANCHES:
        git(clone, "branch", "-q", branch, f"origin/{branch}")
    git(clone, "config", "user.name", "Test")
    git(clone, "config", "user.email", "test@example.invalid")
    assert DRIVER_KEY not in git(clone, "config", "--list")
    return clone


def rows(repo: Path, index: str) -> list[str]:
    lines = (repo / index).read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.startswith("| ") and line.rstrip().endswith(".md |")]


def assert_every_entry_once(repo: Path) -> None:
    for index, titles, dated in (
        (SEMANTIC, SEED_FACTS + BRANCH_FACTS, False),
        (EPISODIC, SEED_EPISODES + BRANCH_EPISODES, True),
    ):
        table = rows(repo, index)
        assert len(table) == len(titles), table
        for title in titles:
            file = f"-{slug(title)}.md |" if dated else f"| {slug(title)}.md |"
            assert sum(line.endswith(file) for line in table) == 1, (title, table)
    ok(mem(repo, "verify"))


def test_new_rows_are_placed_in_key_order_not_appended(team: Path) -> None:
    table = rows(team, SEMANTIC)
    assert [line.split(" | ")[0][2:] for line in table] == sorted(map(slug, SEED_FACTS))
    episodes = [line.rsplit(" | ", 1)[1][11:-5] for line in rows(team, EPISODIC)]
    assert episodes == sorted(map(slug, SEED_EPISODES))  # by slug, the date left out


def test_eight_branches_merge_with_the_driver(repo: Path) -> None:
    for branch in BRANCHES:
        merged = run_git(repo, "merge", "--no-edit", branch)
        assert merged.returncode == 0, merged.stdout + merged.stderr
    assert_every_entry_once(repo)
    assert "<<<<<<<" not in (repo / SEMANTIC).read_text(encoding="utf-8")


def merge_all_plain(repo: Path) -> tuple[list[str], list[str]]:
    """Merge each branch with git's text merge; a conflict is finished by `resolve`.
    Returns the branches that conflicted and the conflicted texts git left."""
    conflicted, texts = [], []
    for branch in BRANCHES:
        if run_git(repo, "merge", "--no-edit", branch).returncode == 0:
            continue
        conflicted.append(branch)
        texts.append((repo / SEMANTIC).read_text(encoding="utf-8"))
        texts.append((repo / EPISODIC).read_text(encoding="utf-8"))
        done = mem(repo, "resolve")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "staged" in done.stdout and "Traceback" not in done.stderr
        git(repo, "commit", "-q", "--no-edit")
    return conflicted, texts


def test_fresh_clone_without_the_driver_merges_as_git_and_resolve_finishes(
    fresh: Path, tmp_path: Path
) -> None:
    # `resolve` runs only the copy of the merge code kept in the git dir, never the work
    # tree's (which a stopped merge has filled with the incoming branch's): a fresh clone
    # has none, and is told to run `track`, which writes it, from its own branch.
    refused = mem(fresh, "resolve")
    assert refused.returncode == 2 and "`eco_mem.pyz track`" in refused.stderr
    assert "merged" not in ok(mem(fresh, "track")).stdout and not git(fresh, "status", "-s")
    # Without the driver in its config (a tool that ignores drivers, GitHub's merge
    # button) the attribute names a driver this clone does not define: git's text merge
    # runs. A twin clone without the attribute at all must stop on the very same conflicts.
    git(fresh, "config", "--remove-section", "merge.eco-mem-catalog")
    twin = tmp_path / "twin"
    shutil.copytree(fresh, twin, symlinks=True)
    (twin / ".git/info/attributes").write_text(f"/{MEMORY}/**/INDEX.md merge=text\n")
    conflicted, texts = merge_all_plain(fresh)
    twin_conflicted, twin_texts = merge_all_plain(twin)
    assert conflicted == twin_conflicted and texts == twin_texts
    # Placement keeps plain git (GitHub's merge button) to at most half the branches.
    assert len(conflicted) <= len(BRANCHES) // 2, conflicted
    assert_every_entry_once(fresh)
    assert DRIVER_KEY not in git(fresh, "config", "--list")  # resolve reads, never configures


def test_rebase_cherry_pick_and_octopus(repo: Path) -> None:
    git(repo, "checkout", "-q", BRANCHES[1])
    rebased = run_git(repo, "rebase", BRANCHES[0])
    assert rebased.returncode == 0, rebased.stdout + rebased.stderr
    table = "\n".join(rows(repo, SEMANTIC))
    assert slug(BRANCH_FACTS[0]) in table and slug(BRANCH_FACTS[1]) in table
    picked = run_git(repo, "cherry-pick", BRANCHES[2])
    assert picked.returncode == 0, picked.stdout + picked.stderr
    assert slug(BRANCH_FACTS[2]) in "\n".join(rows(repo, SEMANTIC))
    ok(mem(repo, "verify"))
    # Git's octopus strategy never runs merge drivers; rows placed apart need none.
    git(repo, "checkout", "-q", "main")
    octopus = run_git(repo, "merge", "--no-edit", *BRANCHES[4:8])
    assert octopus.returncode == 0, octopus.stdout + octopus.stderr
    table = "\n".join(rows(repo, SEMANTIC))
    assert all(slug(title) in table for title in BRANCH_FACTS[4:8])
    ok(mem(repo, "verify"))


def test_contract_text_on_one_side_rows_on_the_other(repo: Path) -> None:
    index = repo / SEMANTIC
    text = index.read_text(encoding="utf-8")
    edited = text.replace("one fact per file.", "one fact per file, kept short.", 1)
    assert edited != text
    index.write_text(edited, encoding="utf-8")
    commit_all(repo, "tighten the contract")
    merged = run_git(repo, "merge", "--no-edit", BRANCHES[0])
    assert merged.returncode == 0, merged.stdout + merged.stderr
    result = index.read_text(encoding="utf-8")
    assert "kept short." in result and slug(BRANCH_FACTS[0]) in result


def diverge(repo: Path, ours, theirs) -> None:
    """Branch `theirs-side` from main, run `theirs` there and `ours` on main."""
    git(repo, "checkout", "-q", "-b", "theirs-side")
    ok(theirs(repo))
    commit_all(repo, "theirs")
    git(repo, "checkout", "-q", "main")
    ok(ours(repo))
    commit_all(repo, "ours")


TARGET = slug(SEED_FACTS[1])


def revise(title: str):
    return lambda repo: mem(repo, "revise", TARGET, "--title", title)


@pytest.mark.parametrize(
    "ours, theirs, kept",
    [
        pytest.param(
            revise("Billing webhooks retry for five days"),
            revise("Billing webhooks retry for a week"),
            ("for five days", "for a week"),
            id="changed-on-both-sides",
        ),
        pytest.param(
            lambda repo: mem(repo, "forget", TARGET),
            revise("Billing webhooks retry for a week"),
            ("for a week",),
            id="deleted-vs-changed",
        ),
    ],
)
def test_real_conflicts_keep_both_versions(repo: Path, tmp_path: Path, ours, theirs, kept) -> None:
    diverge(repo, ours, theirs)
    before = rows(repo, SEMANTIC)
    merged = run_git(repo, "merge", "--no-edit", "theirs-side")
    assert merged.returncode != 0
    assert "Traceback" not in merged.stderr
    text = (repo / SEMANTIC).read_text(encoding="utf-8")
    block = text[text.index("<<<<<<<") : text.index(">>>>>>>")]
    assert all(part in block for part in kept)
    assert block.count("\n| ") == len(kept)  # markers around that row only
    others = [line for line in before if TARGET not in line]
    assert all(line in text for line in others)  # nothing else lost or touched
    # resolve from git's stages says the same: exit 1, both versions printed.
    done = mem(repo, "resolve")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert all(part in done.stdout for part in kept) and "need a human" in done.stdout
    assert SEMANTIC in git(repo, "diff", "--name-only", "--diff-filter=U")


def test_resolve_add_add_and_nothing_to_resolve(team: Path, tmp_path: Path) -> None:
    # Two unrelated histories both create the same INDEX with different rows.
    repo = tmp_path / "repo"
    shutil.copytree(team, repo, symlinks=True)
    assert mem(repo, "resolve").returncode == 2
    git(repo, "checkout", "-q", "--orphan", "other")
    git(repo, "rm", "-q", "-r", "--cached", MEMORY)
    ok(fact(repo, "Orphan branches share no history"))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "other history")
    git(repo, "checkout", "-q", "main")
    git(repo, "config", "--remove-section", "merge.eco-mem-catalog")  # as in a fresh clone
    merged = run_git(repo, "merge", "--no-edit", "--allow-unrelated-histories", "other")
    assert merged.returncode != 0
    stages = {line.split()[2] for line in git(repo, "ls-files", "-u", SEMANTIC).splitlines()}
    assert stages == {"2", "3"}  # added on both sides: no base version
    done = mem(repo, "resolve")
    assert "Traceback" not in done.stderr
    assert f"{SEMANTIC}: merged row by row and staged" in done.stdout
    table = "\n".join(rows(repo, SEMANTIC))
    assert slug("Orphan branches share no history") in table and TARGET in table


def test_merge_catalog_direct(team: Path, tmp_path: Path) -> None:
    """The driver's own contract, on files: identical additions once, exit codes, usage."""
    base = (team / SEMANTIC).read_text(encoding="utf-8")
    row = "| zebra-crossing | Zebra crossing | 2024-01-01 | verified | zebra-crossing.md |"
    added = base + row + "\n"
    paths = {}
    for name, text in (("base", base), ("ours", added), ("theirs", added)):
        paths[name] = tmp_path / name
        paths[name].write_text(text, encoding="utf-8")
    script = team / SCRIPT
    done = subprocess.run(
        ["python3", str(script), "merge-catalog", *map(str, paths.values())],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert paths["ours"].read_text(encoding="utf-8").count("zebra-crossing.md") == 1
    missing = mem(team, "merge-catalog", str(tmp_path / "nope"), str(paths["ours"]), "x")
    assert missing.returncode == 2 and "Traceback" not in missing.stderr


def test_driver_config_is_written_once_into_the_common_dir_from_a_worktree(
    fresh: Path, tmp_path: Path
) -> None:
    tree = tmp_path / "tree"
    git(fresh, "worktree", "add", "-q", str(tree), BRANCHES[0])
    assert (tree / ".git").is_file()
    # A memory command only says the driver is missing; `track` sets it.
    assert "no catalog merge driver" in mem(tree, "forget", "no-such-entry").stderr
    first = mem(tree, "track")
    assert first.returncode == 0 and "driver set" in first.stdout
    assert "/eco-mem/merge-driver-" in git(fresh, "config", DRIVER_KEY)
    assert len(list((fresh / ".git/eco-mem").glob("merge-driver-*/driver.py"))) == 1
    config = (fresh / ".git/config").read_bytes()
    again = mem(tree, "forget", "no-such-entry")
    assert "merge driver" not in again.stderr and (fresh / ".git/config").read_bytes() == config


# The command git runs: its text merge first, then the copy in the git dir, named by
# the checksum of what it holds, once the shell has checked where that copy really is.
DRIVER_START = (
    'set -f; a=; IFS=:; for e in $PATH; do case "$e" in /*) a="$a${a:+:}$e";; esac; done;'
    " unset IFS; set +f; PATH=$a;"
    ' unset CDPATH; t="$(git rev-parse --git-dir)/eco-mem-merge-$$";'
    ' git merge-file -q -p %A %O %B > "$t" 2>/dev/null; m=$?;'
    ' if [ $m = 0 ]; then mv -f "$t" %A; exit 0; fi;'
    ' c="$(git rev-parse --git-common-dir)/eco-mem/merge-driver-'
)
DRIVER_END = (
    '"; h="${c%/*}"; r=; if cd -P . && w=$PWD && [ ! -L "$h" ] && [ ! -L "$c" ] && cd -P "$c" 2>/dev/null;'
    ' then r=$PWD; cd "$w" || exit 1; fi;'
    ' case "$r/" in "$w/.git/"*) ;; "/" | "$w/"*) r= ;; esac;'
    ' if [ -n "$r" ]; then python3 -I -S "$r/driver.py" %O %A %B %P "$t"; s=$?;'
    ' else s=1; echo "eco-mem: $c is missing, a link, or in the work tree:'
    ' this catalog merges as text; run eco_mem.pyz verify" >&2; fi;'
    ' if [ ! -e "$t" ]; then [ $s = 0 ]; exit; fi;'
    ' if [ $m -lt 128 ]; then mv -f "$t" %A; fi; rm -f "$t" %A.eco-mem-rows; exit 1'
)


def test_an_older_driver_command_is_replaced(fresh: Path) -> None:
    # Clones configured by an earlier eco-mem, whose driver ran the work tree's script,
    # get the command that runs the copy.
    git(fresh, "config", DRIVER_KEY, f"python3 {SCRIPT} merge-catalog %O %A %B %P")
    assert "no catalog merge driver" in mem(fresh, "forget", "no-such-entry").stderr
    assert "driver set" in ok(mem(fresh, "track")).stdout
    command = git(fresh, "config", DRIVER_KEY).strip()
    assert command.startswith(DRIVER_START) and command.endswith(DRIVER_END), command
    stamp = command[len(DRIVER_START) : -len(DRIVER_END)]
    assert (fresh / ".git/eco-mem" / f"merge-driver-{stamp}/driver.py").is_file()
    # Read back from the config text, the quoted value matches: no second write.
    config = (fresh / ".git/config").read_bytes()
    assert "merge driver" not in ok(mem(fresh, "find", "redis")).stderr
    assert (fresh / ".git/config").read_bytes() == config


def driver_imports(repo: Path, tmp_path: Path, ours, theirs) -> tuple[set[str], str]:
    """Run the driver as git does (the copy, python -I -S) on main's catalog as base, `ours(text)`,
    and `theirs(text)` with a row added; (the modules it imported, the merged text)."""
    text = (repo / SEMANTIC).read_text(encoding="utf-8")
    row = "| zebra-crossing | Zebra | 2024-01-01 | verified | zebra-crossing.md |\n"
    versions = {"base": text, "ours": ours(text), "theirs": theirs(text) + row}
    for name, version in versions.items():
        (tmp_path / name).write_text(version, encoding="utf-8")
    (entry,) = (repo / ".git/eco-mem").glob("merge-driver-*/driver.py")
    command = [sys.executable, "-I", "-S", "-X", "importtime", str(entry)]
    done = subprocess.run(
        [*command, *(str(tmp_path / name) for name in versions), SEMANTIC],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    return imported, (tmp_path / "ours").read_text(encoding="utf-8")


def test_the_driver_imports_only_what_a_merge_needs(repo: Path, tmp_path: Path) -> None:
    # git starts the driver once per catalog it merges: its start-up is the cost.
    heavy = {"re", "argparse", "pathlib", "subprocess", "tempfile", "ecomem.cli"}
    imported, merged = driver_imports(repo, tmp_path, str, str)
    assert "ecomem.store.merge" in imported and not imported & heavy, imported & heavy
    assert "zebra-crossing.md" in merged
    # The contract above the table changed on both sides: `git merge-file` merges it.
    imported, merged = driver_imports(
        repo,
        tmp_path,
        lambda text: text.replace("one fact per file.", "one fact a file.", 1),
        lambda text: text.replace("Rules for reading", "Rules for reading,", 1),
    )
    assert "subprocess" in imported and "zebra-crossing.md" in merged
    assert "one fact a file." in merged and "Rules for reading," in merged


def test_gitattributes_block_keeps_host_lines(repo: Path) -> None:
    attributes = repo / ".gitattributes"
    block = attributes.read_text(encoding="utf-8")
    assert f"/{SEMANTIC} merge=eco-mem-catalog" in block and "merge=union" not in block
    host = b"*.png binary\r\n# ours\r\n"
    attributes.write_bytes(host + block.encode())
    ok(mem(repo, "track"))
    assert attributes.read_bytes().startswith(host)
    settled = attributes.read_bytes()
    assert ok(mem(repo, "track")).stdout == "" and attributes.read_bytes() == settled
    for index in (repo / MEMORY).glob("*/INDEX.md"):  # no catalog left: the block goes
        index.unlink()
    ok(mem(repo, "track"))
    assert attributes.read_bytes() == host


def test_without_python_the_driver_leaves_gits_own_conflict(repo: Path, tmp_path: Path) -> None:
    # Both new rows sort after every seed row: the same gap, so git's text merge
    # conflicts and the driver needs Python. Where there is none (a Windows clone whose
    # python3 is missing), the file must hold git's markers and both rows, not ours alone.
    titles = ("Zz worker pool holds eight", "Zz worker queue is redis")
    diverge(repo, lambda r: fact(r, titles[0]), lambda r: fact(r, titles[1]))
    tools = tmp_path / "no-python"
    tools.mkdir()
    for tool in ("git", "mv", "rm", "sh"):
        (tools / tool).symlink_to(shutil.which(tool))

    merged = subprocess.run(
        ["git", "merge", "--no-edit", "theirs-side"],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(tools)},
    )

    assert merged.returncode != 0
    text = (repo / SEMANTIC).read_text(encoding="utf-8")
    assert "<<<<<<<" in text and ">>>>>>>" in text
    assert all(slug(title) in text for title in titles)
    assert not list((repo / MEMORY / "semantic").glob("*.eco-mem"))  # no leftovers
    # With Python back, resolve rebuilds the catalog row by row.
    assert ok(mem(repo, "resolve")).returncode == 0
    rows_now = (repo / SEMANTIC).read_text(encoding="utf-8")
    assert "<<<<<<<" not in rows_now and all(slug(title) in rows_now for title in titles)


def test_contract_text_merges_keep_unicode_line_separators_inside_a_line(
    repo: Path, tmp_path: Path
) -> None:
    # Both sides edit the text above the table, so merge-catalog runs git merge-file on
    # it; a U+2028 inside a line is text, not a line break, as it is for git.
    base = (repo / SEMANTIC).read_text(encoding="utf-8")
    heading = base.splitlines()[0]
    ours = base.replace(heading, heading + "\u2028(ours)", 1)
    theirs = base.replace("## Catalog", "Rows are placed by key.\n\n## Catalog", 1)
    paths = {}
    for name, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        paths[name] = tmp_path / name
        paths[name].write_text(text, encoding="utf-8")

    done = mem(repo, "merge-catalog", *(str(paths[name]) for name in ("base", "ours", "theirs")))

    assert done.returncode == 0, done.stderr
    merged = paths["ours"].read_text(encoding="utf-8")
    assert merged.split("\n")[0] == heading + "\u2028(ours)"
    assert "Rows are placed by key." in merged
