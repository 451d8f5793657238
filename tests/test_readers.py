"""Readers keep the writers' rule: a memory folder, a drawer or an entry that a commit
turned into a link is never read, and `find`'s output stays bounded.

Reproductions F3 and F5 of the second security review, with real git and the rendered
scripts. The attack is in the commits (a link where a drawer or the memory folder was,
thousands of desks); the victim runs the unchanged `context`, `find`, `review` and
`verify`. The private store is a sibling checkout's: desks git ignores, so local to
that checkout, and nothing this repository may show.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import MEMORY, SKILL, assert_no_traceback, commit_all, git
from tests.memory_helpers import fact, mem

pytestmark = pytest.mark.start_early(seconds=80)  # see tests/conftest.py

SECRET = "PRIVATESECRET"  # in every private desk, fact and row
PRIVATE_DESK = "private-release-plan"


@pytest.fixture
def private(pristine: Path, tmp_path: Path) -> Path:
    """A sibling checkout beside `host` (tmp_path/host) with a local desk and a fact."""
    checkout = tmp_path / "private"
    shutil.copytree(pristine, checkout, symlinks=True)
    made = mem(checkout, "new", "working", "--title", "Private release plan", "--goal", SECRET)
    assert made.returncode == 0, made.stderr
    assert fact(checkout, f"Release keys {SECRET} live in the vault").returncode == 0
    return checkout


def link_in(host: Path, relpath: str, target: str, message: str) -> None:
    """Commit a link at `relpath` (a folder of the install until now) to `target`."""
    git(host, "checkout", "-q", "-b", "pr")
    git(host, "rm", "-r", "-q", "-f", "--", relpath)
    shutil.rmtree(host / relpath, ignore_errors=True)  # the ignored desks git left
    (host / relpath).symlink_to(target)
    commit_all(host, message)


def said(result: subprocess.CompletedProcess) -> str:
    assert_no_traceback(result)
    return result.stdout + result.stderr


def assert_nothing_of_it(host: Path, *commands: tuple[str, ...]) -> dict[str, str]:
    """Each command prints nothing the private store holds; {command: what it said}."""
    outputs = {}
    for command in commands:
        text = said(mem(host, *command))
        assert SECRET.lower() not in text.lower(), (command, text)
        assert PRIVATE_DESK not in text and "release-keys" not in text, (command, text)
        outputs[" ".join(command)] = text
    return outputs


def test_a_working_drawer_linked_to_another_checkout_is_never_read(
    host: Path, private: Path
) -> None:
    link_in(host, f"{MEMORY}/working", "../../../private/.agents/memory/working", "tidy")

    outputs = assert_nothing_of_it(host, ("context",), ("find",), ("find", "release"))
    verify = mem(host, "verify")

    assert f"{MEMORY}/working: " in outputs["find"]  # said once, by path
    assert f"{MEMORY}/working: " in outputs["context"]  # a note in the digest
    assert verify.returncode == 1
    assert f"{MEMORY}/working: error [drift.path-escapes]" in verify.stdout
    assert SECRET not in verify.stdout + verify.stderr


def test_a_memory_folder_linked_to_another_checkout_is_never_read(
    host: Path, private: Path
) -> None:
    link_in(host, MEMORY, "../../private/.agents/memory", "tidy")

    outputs = assert_nothing_of_it(
        host, ("context",), ("find",), ("find", "release", "keys"), ("review",)
    )
    verify = mem(host, "verify")

    assert mem(host, "find").returncode == 2  # nothing could be read
    assert len(mem(host, "find").stderr.splitlines()) == 1, outputs["find"]
    assert f"{MEMORY}: " in outputs["review"]
    assert verify.returncode == 1 and f"{MEMORY}: error [drift.path-escapes]" in verify.stdout
    assert SECRET not in verify.stdout + verify.stderr


def test_entry_files_that_are_links_are_never_read(host: Path, private: Path) -> None:
    working = host / MEMORY / "working"
    made = mem(host, "new", "working", "--title", "Own task", "--goal", "ship the fix")
    assert made.returncode == 0, made.stderr
    # A link inside the drawer (a second name for a desk), one to the sibling's desk,
    # and the semantic catalog replaced by the sibling's.
    (working / "alias-of-own-task.md").symlink_to("own-task.md")
    (working / "planted.md").symlink_to(f"../../../../private/{MEMORY}/working/{PRIVATE_DESK}.md")
    index = host / MEMORY / "semantic/INDEX.md"
    index.unlink()
    index.symlink_to(f"../../../../private/{MEMORY}/semantic/INDEX.md")

    outputs = assert_nothing_of_it(host, ("context",), ("find",), ("find", "release"))

    for text in outputs.values():
        assert "ship the fix" in text and "alias-of-own-task" in text  # said, never read
        assert text.count("Own task") + text.count("ship the fix") <= 2, text
    assert f"{MEMORY}/semantic/INDEX.md: " in outputs["find"]


def test_a_package_stores_drawer_linked_out_is_never_read(host: Path, private: Path) -> None:
    (host / "packages/web").mkdir(parents=True)
    assert mem(host, "init", "packages/web").returncode == 0
    commit_all(host, "a package store")
    drawer = f"packages/web/{MEMORY}/working"
    link_in(host, drawer, f"../../../../../private/{MEMORY}/working", "tidy")

    assert_nothing_of_it(host, ("context",), ("find",), ("find", "--all-stores"))
    here = subprocess.run(
        ["python3", str(host / SKILL / "scripts/eco_mem.pyz"), "context"],
        cwd=host / "packages/web",
        capture_output=True,
        text=True,
    )
    assert SECRET not in said(here) and PRIVATE_DESK not in here.stdout
    verify = mem(host, "verify")
    assert verify.returncode == 1 and f"{drawer}: error [drift.path-escapes]" in verify.stdout


# -- F5: find is bounded ---------------------------------------------------------------------


def test_find_lists_at_most_the_desk_cap_however_many_desks_there_are(host: Path) -> None:
    # The facts go in first: each write reads the store, and 5,000 desks triple its cost.
    for number in range(30):
        assert fact(host, f"Service {number} listens on port {8000 + number}").returncode == 0
    working = host / MEMORY / "working"
    for number in range(5000):
        desk = f"# Task {number}\n\n## Goal\nfinish task number {number} of many\n"
        (working / f"task-{number:04d}.md").write_text(desk, encoding="utf-8")
    for number in range(300):  # names that are not slugs: a problem line each, once bounded
        (working / f"Task {number}.md").write_text("# Odd\n", encoding="utf-8")

    found = mem(host, "find")
    matched = mem(host, "find", "task", "port")
    as_json = mem(host, "find", "--json")

    for result in (found, matched):
        assert result.returncode == 0, result.stderr
        assert len((result.stdout + result.stderr).encode("utf-8")) < 4096, result.stdout
        desks = [line for line in result.stdout.splitlines() if "/working/task-" in line]
        assert len(desks) == 3, result.stdout
        assert "4997 more desks" in result.stdout
    assert len(as_json.stdout.encode("utf-8")) < 16384
    everything = mem(host, "find", "--all")
    assert everything.stdout.count("/working/task-") == 5000
