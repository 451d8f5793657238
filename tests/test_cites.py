"""Citations (issue 18): a fact or a staged checklist names the file, and optionally the
exact text, it rests on. The gate refuses a citation that does not hold now; verify and
find flag one whose evidence went away. Real render, real git, the rendered script.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from tests.helpers import MEMORY, commit_all, copy_of
from tests.memory_helpers import fact, mem, refused_rules, snapshot, today, verify_findings

SEMANTIC = f"{MEMORY}/semantic"
PROCEDURAL = f"{MEMORY}/procedural"
SETTINGS = "src/settings.py"


@pytest.fixture(scope="module")
def pristine(default_render: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    host = copy_of(default_render, tmp_path_factory.mktemp("pristine"))
    (host / "src").mkdir()
    # CRLF line ends, a quoted string and non-ASCII text, as real source files have.
    (host / SETTINGS).write_bytes(
        'PORT = 6543\r\nGREETING = "grüß dich"\r\nPATTERN = r"\\d+\\\\"\r\n'.encode()
    )
    (host / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    commit_all(host, "install eco-mem")
    return host


def cited_fact(host: Path, *cites: str, title: str = "Staging Postgres is on port 6543"):
    extra = [item for cite in cites for item in ("--cite", cite)]
    return fact(host, title, *extra)


def fact_file(host: Path, slug: str = "staging-postgres-is-on-port-6543") -> Path:
    return host / SEMANTIC / f"{slug}.md"


def assert_clean_exit(result: subprocess.CompletedProcess, code: int) -> None:
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr


def cite_findings(host: Path, *extra: str) -> list[dict]:
    result = mem(host, "verify", "--json", *extra)
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    return [item for item in report["findings"] if item["rule"].startswith("cite.")]


# -- live citations ------------------------------------------------------------------


def test_a_fact_with_live_citations_verifies_clean(host: Path) -> None:
    result = cited_fact(
        host,
        f'{SETTINGS} "PORT = 6543"',
        f'{SETTINGS} "GREETING = \\"grüß dich\\""',
        f'{SETTINGS} "PATTERN = r\\"\\d+\\\\\\\\\\""',
        "logo.png",  # a bare path: the file itself is the evidence, never read
    )
    assert_clean_exit(result, 0)

    lines = fact_file(host).read_text(encoding="utf-8").splitlines()
    assert lines[6:10] == [
        f'- cites: {SETTINGS} "PORT = 6543"',
        f'- cites: {SETTINGS} "GREETING = \\"grüß dich\\""',
        f'- cites: {SETTINGS} "PATTERN = r\\"\\d+\\\\\\\\\\""',
        "- cites: logo.png",
    ]
    checked = mem(host, "verify", "--strict")
    assert_clean_exit(checked, 0)


def test_a_hand_written_citation_is_checked_like_a_written_one(host: Path) -> None:
    assert_clean_exit(cited_fact(host), 0)
    path = fact_file(host)
    text = path.read_text(encoding="utf-8").replace(
        "- expires: never\n", '- expires: never\n* `cites`: src/settings.py "PORT = 9999"\n'
    )
    path.write_text(text, encoding="utf-8")

    found = cite_findings(host)
    assert [(item["rule"], item["line"], item["severity"]) for item in found] == [
        ("cite.gone", 7, "warning")
    ]


def test_cited_text_about_yesterday_is_not_a_relative_date(host: Path) -> None:
    (host / "NOTES.md").write_text("We deployed yesterday.\n", encoding="utf-8")
    assert_clean_exit(cited_fact(host, 'NOTES.md "deployed yesterday"'), 0)
    assert verify_findings(host) == []


# -- the gate ------------------------------------------------------------------------


def outside_link(host: Path, tmp_path: Path) -> str:
    outside = tmp_path / "outside.txt"
    outside.write_text("PORT = 6543\n", encoding="utf-8")
    (host / "src/outside.txt").symlink_to(outside)
    return "src/outside.txt"


REFUSALS = [
    ("/etc/hostname", "cite.path"),
    ("../outside.txt", "cite.path"),
    ("src/../../outside.txt", "cite.path"),
    ("src\\settings.py", "cite.path"),
    (".git/config", "cite.path"),
    (f"{SEMANTIC}/INDEX.md", "cite.path"),
    ("src/missing.py", "cite.gone"),
    ("src", "cite.gone"),  # a folder is not a file
    (f'{SETTINGS} "PORT = 1234"', "cite.gone"),
    (f'{SETTINGS} "port = 6543"', "cite.gone"),  # exact text: case counts
    ('logo.png "PNG"', "cite.unreadable"),  # binary: text cannot be looked for
    (f'{SETTINGS} "PORT', "cite.malformed"),
    (f'{SETTINGS} ""', "cite.malformed"),
    (f'{SETTINGS} "a "quoted" word"', "cite.malformed"),
    (f'{SETTINGS} "ends in \\"', "cite.malformed"),
    ('"PORT = 6543"', "cite.malformed"),
]


@pytest.mark.parametrize(("cite", "rule"), REFUSALS)
def test_the_gate_refuses_a_citation_that_does_not_hold(host: Path, cite: str, rule: str) -> None:
    before = snapshot(host)
    result = cited_fact(host, f'{SETTINGS} "PORT = 6543"', cite)

    assert_clean_exit(result, 1)
    assert refused_rules(result) == [rule], result.stderr
    assert snapshot(host) == before


def test_the_gate_refuses_a_symlink_out_without_following_it(host: Path, tmp_path: Path) -> None:
    link = outside_link(host, tmp_path)
    before = snapshot(host)
    result = cited_fact(host, f'{link} "PORT = 6543"')

    assert_clean_exit(result, 1)
    assert refused_rules(result) == ["cite.gone"]
    assert "symlink" in result.stderr
    assert snapshot(host) == before


def test_large_files_are_read_only_up_to_one_mib(host: Path) -> None:
    big = host / "big.txt"
    big.write_bytes(b"HEAD MARKER\n" + b"x" * (1024 * 1024) + b"\nTAIL MARKER\n")
    assert_clean_exit(cited_fact(host, 'big.txt "HEAD MARKER"'), 0)
    before = snapshot(host)

    result = cited_fact(host, 'big.txt "TAIL MARKER"', title="Tail marker is there")

    assert_clean_exit(result, 1)
    assert refused_rules(result) == ["cite.unreadable"]
    assert "1024 KiB" in result.stderr
    assert snapshot(host) == before


# -- verify and find when the evidence moves or goes -------------------------------------


def test_evidence_moved_within_the_file_still_holds(host: Path) -> None:
    assert_clean_exit(cited_fact(host, f'{SETTINGS} "PORT = 6543"'), 0)
    (host / SETTINGS).write_text('"""Settings."""\n\nDEBUG = False\nPORT = 6543\n', "utf-8")
    assert cite_findings(host) == []


def test_evidence_edited_away_is_flagged_then_revise_clears_it(host: Path) -> None:
    assert_clean_exit(cited_fact(host, f'{SETTINGS} "PORT = 6543"'), 0)
    (host / SETTINGS).write_text("PORT = 6544\n", encoding="utf-8")

    found = cite_findings(host)
    assert [(item["rule"], item["severity"], item["line"]) for item in found] == [
        ("cite.gone", "warning", 7)
    ]
    message = found[0]["message"]
    assert f'{SETTINGS} "PORT = 6543"' in message
    assert "revise staging-postgres-is-on-port-6543 --cite" in message
    assert "forget staging-postgres-is-on-port-6543" in message
    assert_clean_exit(mem(host, "verify"), 0)  # a warning by default
    assert_clean_exit(mem(host, "verify", "--strict"), 1)  # the CI setting

    plain = mem(host, "find", "postgres")
    assert_clean_exit(plain, 0)
    # The path and the verdict; the quoted text is whatever the entry's author wrote.
    assert "EVIDENCE GONE" in plain.stdout and f"{SETTINGS}: the file does not" in plain.stdout
    assert "PORT = 6543" not in plain.stdout
    listed = json.loads(mem(host, "find", "postgres", "--json").stdout)["rows"]
    assert len(listed[0]["evidence_gone"]) == 1

    # The old fact's as_of moves to today with the new evidence.
    index = host / SEMANTIC / "INDEX.md"
    index.write_text(index.read_text("utf-8").replace(today(), "2026-01-01"), "utf-8")
    revised = mem(
        host, "revise", "staging-postgres-is-on-port-6543", "--cite", f'{SETTINGS} "PORT = 6544"'
    )
    assert_clean_exit(revised, 0)
    text = fact_file(host).read_text(encoding="utf-8")
    assert f'- cites: {SETTINGS} "PORT = 6544"' in text and '6543"' not in text
    assert f"- as_of: {today()}" in text
    assert cite_findings(host) == []
    again = json.loads(mem(host, "find", "postgres", "--json").stdout)["rows"]
    assert again[0]["evidence_gone"] == []


def test_a_deleted_file_is_flagged_and_no_cite_drops_the_citation(host: Path) -> None:
    assert_clean_exit(cited_fact(host, SETTINGS), 0)
    (host / SETTINGS).unlink()

    found = cite_findings(host)
    assert [item["rule"] for item in found] == ["cite.gone"]
    assert "does not exist" in found[0]["message"]
    result = mem(host, "revise", "staging-postgres-is-on-port-6543", "--no-cite")
    assert_clean_exit(result, 0)
    assert "cites" not in fact_file(host).read_text(encoding="utf-8")
    assert cite_findings(host) == []


def test_a_symlink_out_is_reported_never_followed(host: Path, tmp_path: Path) -> None:
    assert_clean_exit(cited_fact(host, f'{SETTINGS} "PORT = 6543"'), 0)
    # Point the cited path out of the repository, at a FIFO: following it would block.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (host / SETTINGS).unlink()
    (host / SETTINGS).symlink_to(fifo)

    found = cite_findings(host)
    assert [item["rule"] for item in found] == ["cite.gone"]
    assert "leads out of the repository through a symlink" in found[0]["message"]
    listed = json.loads(mem(host, "find", "postgres", "--json", timeout=20).stdout)["rows"]
    assert "symlink" in listed[0]["evidence_gone"][0]


def test_find_leaves_no_access_time_on_the_entries_it_checks(host: Path) -> None:
    assert_clean_exit(cited_fact(host, f'{SETTINGS} "PORT = 6543"'), 0)
    path = fact_file(host)
    stamp = path.stat()
    old = stamp.st_mtime_ns - 2 * 86_400 * 10**9  # what the experiment kit's plant sets
    os.utime(path, ns=(old, stamp.st_mtime_ns))
    probe = host / "probe.txt"
    probe.write_text("x", encoding="utf-8")
    os.utime(probe, ns=(old, probe.stat().st_mtime_ns))
    probe.read_bytes()
    if probe.stat().st_atime_ns == old:
        pytest.skip("this file system does not record reads (noatime)")

    time.sleep(0.01)
    result = mem(host, "find", "postgres")

    assert_clean_exit(result, 0)
    assert path.stat().st_atime_ns == old


# -- procedural --------------------------------------------------------------------------


def test_a_checklist_cites_its_evidence_a_pointer_is_its_own(host: Path, tmp_path: Path) -> None:
    steps = host / "steps.md"  # --checklist-file reads only inside the repository (issue 16)
    steps.write_text("1. run make release\n2. push the tag\n", encoding="utf-8")
    (host / "Makefile").write_text("release:\n\t./release.sh\n", encoding="utf-8")
    made = mem(
        host,
        *("new", "procedural", "--name", "release", "--use-when", "tagging a release"),
        *("--checklist-file", "steps.md", "--cite", 'Makefile "release:"'),
    )
    assert_clean_exit(made, 0)
    lines = (host / PROCEDURAL / "release.md").read_text(encoding="utf-8").splitlines()
    assert lines == [
        "# release",
        "",
        '- cites: Makefile "release:"',
        "",
        *steps.read_text().split("\n")[:2],
    ]
    assert cite_findings(host) == []

    (host / "Makefile").write_text("ship:\n\t./release.sh\n", encoding="utf-8")
    assert [item["rule"] for item in cite_findings(host)] == ["cite.gone"]
    revised = mem(host, "revise", "release", "--cite", 'Makefile "ship:"')
    assert_clean_exit(revised, 0)
    assert cite_findings(host) == []

    before = snapshot(host)
    pointer = mem(
        host,
        *("new", "procedural", "--name", "build", "--use-when", "building"),
        *("--points-to", "Makefile", "--cite", "Makefile"),
    )
    assert_clean_exit(pointer, 2)
    assert "pointer row needs no --cite" in pointer.stderr
    assert snapshot(host) == before


# -- the syntax, as a unit -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ['say "hi"', "back\\slash", "ends in \\", '\\"', "\\\\d+", "grüß", "  spaced  ", 'a"b\\"c'],
)
def test_format_and_parse_round_trip(ecomem, text: str) -> None:
    from ecomem.text import cites

    value = cites.format_value("a/b.py", text)
    parsed = cites.parse_value(value)
    assert (parsed.path, parsed.text) == ("a/b.py", text)
    found, problems = cites.read_cites(["# t", f"- cites: {parsed.value()}"])
    assert problems == []
    assert [(cite.line, cite.text) for cite in found] == [(2, text)]


def test_a_lone_backslash_stands_for_itself(ecomem) -> None:
    from ecomem.text import cites

    assert cites.parse_value('x.py "\\d+ and \\w"').text == "\\d+ and \\w"
    assert cites.parse_value("`x y.py`").path == "x y.py"
