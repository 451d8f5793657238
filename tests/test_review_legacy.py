"""`review` on legacy and hostile stores: grouped legacy findings, cite suggestions,
placeholders that are not paths, which side of a contradiction is newer and stronger,
and pairing work that stays bounded however many facts share words."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import HOST_RUNTIME, SKILL, assert_exit, build_files, commit_all, git
from tests.test_review import fact, kinds, report, review

PARTS = "billing search auth cart audit mailer export import ledger queue cache admin api cli docs"


def legacy(root: Path, count: int) -> None:
    """`count` verified facts from before citations, each about its own module."""
    for n, part in enumerate(PARTS.split()[:count]):
        fact(root, f"legacy-{n:02}", f"The {part} module has an owner", "Old.", "verified")


def test_fifteen_uncited_legacy_facts_take_one_line(host: Path) -> None:
    legacy(host, 15)
    lines = assert_exit(review(host), 1).stdout.splitlines()
    assert len(lines) <= 3
    assert lines[0].startswith("uncited: 15 verified facts that cite nothing: legacy-00,")
    assert "and 12 more" in lines[0]
    markdown = review(host, "--markdown").stdout
    assert markdown.count("legacy-") == 4  # the first three slugs, and the command
    assert "### uncited" in markdown and "legacy-03" not in markdown
    # --json still lists each.
    assert len(kinds(host)["uncited"]) == 15


def test_three_of_a_kind_are_still_listed_one_by_one(host: Path) -> None:
    legacy(host, 3)
    lines = review(host).stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:-1]] == ["uncited"] * 3


def test_suggest_cites_names_the_one_file_and_writes_nothing(host: Path) -> None:
    build_files(
        host,
        {
            "pyproject.toml": '[project]\nname = "x"\n\n[tool.ruff]\nline-length = 100\n',
            "src/app.py": "print('hello')\n",
        },
    )
    ruff = fact(host, "ruff-only", "Ruff is the only linter", "Nothing else runs.", "verified")
    nothing = fact(host, "quiet", "Logs go to stderr", "Checked by hand.", "verified")
    # A tracked link to a file outside the repository that names the tool: never read.
    outside = host.parent / "outside.toml"
    outside.write_text("[tool.mypy]\nstrict = true\n", encoding="utf-8")
    os.symlink(outside, host / "linked.toml")
    mypy = fact(host, "mypy-strict", "Mypy checks types strictly", "In CI.", "verified")
    commit_all(host, "facts and code")
    status = git(host, "status", "--porcelain")
    found = {f["entries"][0]: f for f in report(host, "--suggest-cites")["findings"]}
    assert found[ruff]["command"] == "revise ruff-only --cite 'pyproject.toml \"[tool.ruff]\"'"
    assert found[nothing]["command"] == "revise quiet --cite 'PATH \"TEXT\"'"
    assert found[mypy]["command"] == "revise mypy-strict --cite 'PATH \"TEXT\"'"
    assert git(host, "status", "--porcelain") == status
    # The suggested command is one verify accepts.
    script = str(host / SKILL / "scripts/eco_mem.pyz")
    cite = 'pyproject.toml "[tool.ruff]"'
    done = subprocess.run(
        [sys.executable, script, "revise", "ruff-only", "--cite", cite],
        cwd=host,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert ruff not in {f["entries"][0] for f in report(host)["findings"]}


def test_placeholders_and_example_blocks_are_not_paths(host: Path) -> None:
    fact(host, "slots", "Modules have one layout", "Each is `x/y` or `<name>/main.py`.")
    fact(host, "foo", "Imports are absolute", "Write `from foo/bar.py` style paths as `foo.py`.")
    fact(host, "refs", "Branches start from main", "Rebase on `origin/main`, name `feature/x`.")
    fact(host, "caps", "Services keep config", "Each has `SERVICE/config.yml`.")
    fact(
        host,
        "block",
        "Clients post JSON",
        "For example:\n\n~~~\nsee src/clients/post_client.py\n~~~",
    )
    gone = fact(host, "gone", "Settings live in one file", "Read from `src/app/settings.toml`.")
    assert kinds(host) == {"path-gone": [[gone]]}


def test_a_contradiction_names_the_newer_older_and_stronger_source(host: Path) -> None:
    build_files(host, {"ops/pg.conf": "port = 6543\n"})
    older = fact(
        host,
        "pg-port",
        "Staging Postgres listens on 6543",
        "Through the pooler.",
        "verified",
        "2025-11-02",
        cites=('ops/pg.conf "port = 6543"',),
    )
    newer = fact(host, "pg-again", "Staging Postgres is on 5432 again", "Said in standup.")
    (finding,) = report(host)["findings"]
    assert finding["kind"] == "contradiction"
    assert finding["entries"] == sorted([older, newer])
    message = finding["message"]
    assert "newer pg-again (2026-05-01, user-confirmed)" in message
    assert "older pg-port (2025-11-02, verified)" in message
    assert "the stronger source is pg-port" in message
    assert finding["command"] == "revise pg-again --body TEXT"


PAIRING = """
import json, sys
sys.path.insert(0, sys.argv[1])
from ecomem.review import checks, pairs

def facts(n):
    out = []
    for i in range(n):
        lines = [f"# Service {i} listens on port {8000 + i}", "", "- as_of: 2026-01-01",
                 "- source: user-confirmed", "- scope: repo", "- expires: never", "",
                 "The service runs in the cluster and the team owns it.",
                 f"It is deployed with Helm and tests run with pytest in job {i}."]
        out.append(checks.Fact(f"m/semantic/f{i}.md", f"f{i}", lines, lines[0][2:]))
    return out

counts = {}
for n in (500, 2000):
    work = pairs.Work()
    found = facts(n)
    clashes, repeats = pairs.statement_pairs(found, work)
    pairs.near_identical(found, clashes, work)
    counts[n] = [work.statements, work.facts, len(clashes), len(repeats)]
print(json.dumps(counts))
"""


def test_pairing_work_grows_with_facts_not_with_their_pairs(host: Path) -> None:
    """Every fact shares most words with every other (a hostile store): the statements and
    facts compared stay within BLOCK_CAP per fact, where all pairs would be millions."""
    done = subprocess.run(
        [sys.executable, "-B", "-c", PAIRING, str(host / SKILL / "scripts" / HOST_RUNTIME)],
        capture_output=True,
        text=True,
        check=True,
    )
    counts = {int(n): value for n, value in json.loads(done.stdout).items()}
    for n, (statements, facts, clashes, repeats) in counts.items():
        assert statements + facts <= 3 * 48 * n  # BLOCK_CAP compared per statement or fact
        assert clashes == repeats == 0  # one subject in every fact: too common to pair on
    assert counts[2000][0] <= 5 * counts[500][0] and counts[2000][1] <= 5 * counts[500][1]
