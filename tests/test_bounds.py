"""Bounds in every reader (issue 37, item 4): a memory file over the file cap or holding
a line over the line cap is not parsed by verify, review, find, the session digest or the
merge driver. Each names it by path and reads on; none prints its text. And the patterns
those readers run are linear in a line's length.

Real git and the rendered scripts. Linearity is shown by counting the characters a
scanner examines; where only a regular expression does the work, a large adversarial
line runs in a subprocess whose timeout is a hang guard (the old patterns take hours on
it, the new ones well under a second), never a speed assertion.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import HOST_RUNTIME, MEMORY, SKILL, assert_no_traceback, commit_all, git
from tests.memory_helpers import fact, mem

LINE_CAP = 16384
WORD = "zebrafinch"  # only in the long line: a reader that prints it read the file
FACT = f"{MEMORY}/semantic/release-trains-leave-weekly.md"
DESK = f"{MEMORY}/working/long-desk.md"
HANG_GUARD = 120  # seconds: catches a hang, says nothing about speed


@pytest.fixture(scope="module")
def capped(pristine: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A host with one committed fact and one desk, each holding a line past the cap;
    the fact's line starts with WORD, the desk's is `](` repeated (the review finding)."""
    import shutil

    host = tmp_path_factory.mktemp("capped") / "host"
    shutil.copytree(pristine, host, symlinks=True)
    assert fact(host, "Release trains leave weekly").returncode == 0
    with (host / FACT).open("a", encoding="utf-8") as handle:
        handle.write(f"{WORD} " + "x" * LINE_CAP + "\n")
    made = mem(host, "new", "working", "--title", "Long desk", "--goal", "Ship it")
    assert made.returncode == 0, made.stderr
    with (host / DESK).open("a", encoding="utf-8") as handle:
        handle.write("](" * 100_000 + "\n")  # 200 KB on one line
    commit_all(host, "a fact and a desk past the line cap")
    return host


def test_verify_reports_a_line_over_the_cap_and_reads_no_further(capped: Path) -> None:
    result = mem(capped, "verify", "--json", timeout=HANG_GUARD)
    found = {
        (item["rule"], item["path"], item["line"]) for item in json.loads(result.stdout)["findings"]
    }
    assert result.returncode == 1
    lines = {
        path: len((capped / path).read_text(encoding="utf-8").splitlines()) for path in (FACT, DESK)
    }
    assert ("file.line-too-long", FACT, lines[FACT]) in found, found
    assert ("file.line-too-long", DESK, lines[DESK]) in found, found
    # Not judged line by line: the old warning on the judged part is gone with the read.
    assert not any(rule.startswith("injection") and path == FACT for rule, path, _ in found)


def test_review_names_the_files_past_the_caps_and_prints_none_of_them(capped: Path) -> None:
    result = mem(capped, "review", "--json", timeout=HANG_GUARD)
    assert_no_traceback(result)
    assert result.returncode in (0, 1), result.stderr
    said = result.stdout + result.stderr
    assert f"eco_mem.pyz review: {FACT}: not read, line of " in result.stderr
    assert f"eco_mem.pyz review: {DESK}: not read, line of " in result.stderr
    assert WORD not in said and "](](" not in said


def test_find_and_the_session_digest_do_not_read_past_the_caps(capped: Path) -> None:
    found = mem(capped, "find", WORD, timeout=HANG_GUARD)
    assert_no_traceback(found)
    assert "release-trains-leave-weekly" not in found.stdout  # matched only through the line
    line = len((capped / FACT).read_text(encoding="utf-8").splitlines())
    length = len(WORD) + 1 + LINE_CAP
    assert f"{FACT}: not read, line {line} of {length} characters, over the cap" in found.stderr
    assert WORD not in found.stdout + found.stderr
    context = mem(capped, "context", timeout=HANG_GUARD)
    assert_no_traceback(context)
    assert "`long-desk`: not readable (line of 200000 characters, over the cap" in context.stdout
    assert "](](" not in context.stdout + context.stderr


def catalog(rows: list[str]) -> bytes:
    head = "# Semantic\n\n## Catalog\n\n| file | one-liner | as_of | source | scope | expires |\n"
    rule = "|---|---|---|---|---|---|\n"
    return (head + rule + "".join(row + "\n" for row in rows)).encode()


def test_the_merge_driver_leaves_a_catalog_past_the_caps_to_git(host: Path, tmp_path: Path) -> None:
    row = "| a.md | A | 2026-01-01 | verified | repo | never |"
    long_row = f"| b.md | {WORD} {'y' * LINE_CAP} | 2026-01-01 | verified | repo | never |"
    files = {"base": catalog([row]), "ours": catalog([row, long_row]), "theirs": catalog([])}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)

    driver = mem(host, "merge-catalog", *(str(tmp_path / name) for name in files))

    assert_no_traceback(driver)
    assert driver.returncode == 2 and driver.stderr.count("\n") == 1, driver.stderr
    assert "ours is past the caps" in driver.stderr and WORD not in driver.stderr
    assert (tmp_path / "ours").read_bytes() == files["ours"]  # untouched: git keeps its merge


def test_a_catalog_merge_past_the_caps_is_left_to_git_and_to_a_human(host: Path) -> None:
    """A real merge through the installed driver: one side's catalog holds a row over the
    line cap, so the driver does not read it and git keeps its text merge, both sides'
    rows between markers; resolve then says a human decides. Neither prints the row."""
    index = host / MEMORY / "semantic/INDEX.md"
    text = index.read_text(encoding="utf-8")
    git(host, "checkout", "-q", "-b", "theirs")
    row = "| builds-use-make | Builds use make | 2026-01-01 | verified | builds-use-make.md |\n"
    index.write_text(text + row, encoding="utf-8")
    commit_all(host, "theirs")
    git(host, "checkout", "-q", "main")
    long_row = f"| long | {WORD} {'y' * LINE_CAP} | 2026-01-01 | verified | long.md |\n"
    index.write_text(text + long_row, encoding="utf-8")
    commit_all(host, "ours")

    merged = subprocess.run(
        ["git", "merge", "--no-edit", "theirs"], cwd=host, capture_output=True, text=True
    )

    assert merged.returncode != 0
    assert "INDEX.md: ours is past the caps" in merged.stderr, merged.stderr
    assert WORD not in merged.stdout + merged.stderr
    kept = index.read_text(encoding="utf-8")
    assert "<<<<<<<" in kept and "builds-use-make" in kept and WORD in kept  # nothing lost
    resolved = mem(host, "resolve", timeout=HANG_GUARD)
    assert_no_traceback(resolved)
    assert resolved.returncode == 1 and "ours is past the caps" in resolved.stdout
    assert "decide by hand" in resolved.stdout and WORD not in resolved.stdout + resolved.stderr


# -- linear patterns -------------------------------------------------------------


def test_review_reads_a_link_target_as_a_renderer_does(ecomem) -> None:
    """Review's path check and the injection rule read links with one scanner
    (text/markup.py). Review's own scan took `](` up to the first space or `)`, so it
    missed a target with a title, in `<...>` or holding parentheses, which a reader
    sees as a link; the path in it was then never checked."""
    from ecomem.review.text import named_paths
    from ecomem.text.markup import links

    assert named_paths(['See [the guide](docs/guide "The guide").']) == ["docs/guide"]
    assert named_paths(["See [the spec](<docs/spec.md>)."]) == ["docs/spec.md"]
    line = "[w](https://x.invalid/A_(b)) [t](a.md 'T') [n](a b)"
    assert [target for _, _, target in links(line)] == ["https://x.invalid/A_(b)", "a.md"]


# (what is imported, the call on a mebibyte-long adversarial input)
ADVERSARIAL = {
    "links": ("from ecomem.review.text import named_paths", 'named_paths(["](" * N])'),
    # Each `](` once read the target to the line's end: a line of links cost its square.
    "links-closed": (
        "from ecomem.review.text import named_paths",
        'named_paths(["[x](a)" * (N // 6)])',
    ),
    "links-nested": (
        "from ecomem.review.text import named_paths",
        'named_paths(["[x](a(b)c)" * (N // 10)])',
    ),
    "field-indent": (
        "from ecomem.store.fields import read_fields",
        'read_fields([" " * N + ":"])',  # no name: every split of the run is tried
    ),
    "field-value": (
        "from ecomem.store.fields import read_fields",
        'read_fields(["- as_of: x" + " " * N + "y"])',
    ),
    "field-marker": (
        "from ecomem.store.fields import FIELD",
        'FIELD.match(" " * N + "-" + " " * N)',
    ),
    "section-heading": (
        "from ecomem.rules.episodic import SECTION",
        'SECTION.match("## Lesson" + " " * N + "x")',
    ),
    "section-marker": (
        "from ecomem.rules.episodic import SECTION",
        'SECTION.match(" " * N + "-" + " " * N)',
    ),
}


@pytest.mark.parametrize("case", sorted(ADVERSARIAL))
def test_the_patterns_readers_run_are_linear_on_a_mebibyte_line(rendered: Path, case: str) -> None:
    """Runs of spaces around an optional marker, a lazy value before trailing spaces, a
    line of `](`: each made the old patterns backtrack over every split of the run
    (hours on a mebibyte); the timeout only guards against such a hang."""
    imports, call = ADVERSARIAL[case]
    runtime = rendered / SKILL / "scripts" / HOST_RUNTIME  # zipimport reads the package from it
    code = f"import sys\nsys.path.insert(0, sys.argv[1])\n{imports}\nN = 1 << 20\n{call}\n"
    done = subprocess.run(
        [sys.executable, "-I", "-B", "-c", code + "print('done')", str(runtime)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    assert done.returncode == 0 and done.stdout == "done\n", done.stderr
