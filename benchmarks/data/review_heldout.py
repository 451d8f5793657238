"""Held-out planted store for `review`: written and committed before review's code,
and never tuned against. benchmarks/review.py scores review on it as the honest number.

A fictional Python service, "ledgerly", with memory that rotted in ordinary ways.
Every defect is listed in DEFECTS with its kind and the entries it concerns; every
entry in HEALTHY must not be named by any finding other than `near-cap` or `load`
(those two name whole catalogs).
"""

from __future__ import annotations

from datetime import date, timedelta

MEMORY = ".agents/memory"
TODAY = "2026-06-01"


def _fact(slug, title, as_of, source, scope, expires, body, cites=(), one_liner=None):
    lines = [f"# {title}", "", f"- as_of: {as_of}", f"- source: {source}"]
    lines += [f"- scope: {scope}", f"- expires: {expires}"]
    lines += [f"- cites: {cite}" for cite in cites]
    text = "\n".join([*lines, "", body.strip(), ""])
    row = f"| {slug} | {one_liner or title} | {as_of} | {source} | {slug}.md |"
    return f"{MEMORY}/semantic/{slug}.md", text, row


CODE = {
    "pyproject.toml": (
        '[project]\nname = "ledgerly"\nrequires-python = ">=3.10"\n'
        'dependencies = ["flask>=3", "psycopg>=3"]\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "Makefile": "test:\n\tpytest -q\n\nlint:\n\truff check .\n\nserve:\n\tflask run --port 8000\n",
    "src/ledgerly/__init__.py": "",
    "src/ledgerly/api.py": (
        "from flask import Flask\n\napp = Flask(__name__)\n\n\n"
        "@app.get('/health')\ndef health():\n    return {'ok': True}\n"
    ),
    "src/ledgerly/money.py": (
        'DEFAULT_CURRENCY = "USD"\n\n\n'
        "def split(cents, parts):\n"
        "    base, rest = divmod(cents, parts)\n"
        "    return [base + (1 if i < rest else 0) for i in range(parts)]\n"
    ),
    "docs/deploy.md": "# Deploy\n\n1. Tag the release.\n2. The pipeline ships the tag.\n",
    "tests/test_money.py": (
        "from ledgerly.money import split\n\n\ndef test_split():\n"
        "    assert split(10, 3) == [4, 3, 3]\n"
    ),
    ".github/workflows/test.yml": "name: test\non: [push]\n",
}

FACTS = [
    # healthy
    _fact(
        "test-command",
        "Tests run with make test",
        "2026-04-02",
        "verified",
        "repo",
        "never",
        "The whole suite runs with `make test`, which calls pytest quietly.",
        cites=['Makefile "test:"'],
    ),
    _fact(
        "python-version",
        "Needs Python 3.10 or newer",
        "2026-04-02",
        "verified",
        "repo",
        "never",
        "The package declares Python 3.10 as its minimum.",
        cites=['pyproject.toml "requires-python = \\">=3.10\\""'],
    ),
    _fact(
        "money-split",
        "split gives leftover cents to the first parts",
        "2026-04-10",
        "verified",
        "src/ledgerly",
        "never",
        "`split(cents, parts)` hands the remainder out one cent at a time, first parts"
        " first; nothing is rounded.",
        cites=['src/ledgerly/money.py "def split(cents, parts):"'],
    ),
    _fact(
        "commit-style",
        "Commit messages use the imperative mood",
        "2026-01-12",
        "user-confirmed",
        "writing",
        "never",
        "The maintainer asked for subjects such as 'Add refund endpoint'.",
    ),
    _fact(
        "deploy-steps",
        "Deploy steps live in docs/deploy.md",
        "2026-03-03",
        "verified",
        "release",
        "never",
        "How a release reaches production is written in docs/deploy.md.",
        cites=["docs/deploy.md"],
    ),
    _fact(
        "staging-db-port",
        "Staging Postgres listens on port 6543",
        "2026-02-20",
        "user-confirmed",
        "staging",
        "never",
        "The staging Postgres instance is reached through a pooler on port 6543.",
    ),
    _fact(
        "redis-port",
        "The Redis cache listens on port 6380",
        "2026-02-20",
        "user-confirmed",
        "staging",
        "never",
        "Redis runs on a non-default port, 6380, beside the app.",
    ),
    _fact(
        "api-framework",
        "The HTTP API is built on Flask",
        "2026-04-02",
        "verified",
        "src/ledgerly",
        "never",
        "The API application object is a Flask app.",
        cites=['src/ledgerly/api.py "from flask import Flask"'],
    ),
    _fact(
        "nightly-flakes",
        "Nightly builds seem to flake on Mondays",
        "2026-05-20",
        "derived",
        "ci",
        "2026-08-31",
        "Three of the last four Monday nightlies failed; a guess, not checked.",
    ),
    _fact(
        "two-approvals",
        "Two approvals before merging to main",
        "2026-01-30",
        "user-confirmed",
        "review",
        "never",
        "Branch protection needs two approving reviews; the lead set this in January.",
    ),
    _fact(
        "client-example",
        "API clients send an Idempotency-Key header",
        "2026-03-15",
        "user-confirmed",
        "api",
        "never",
        "Every POST from a client carries the header, for example:\n\n```python\n"
        "# examples/client/post_refund.py\nrequests.post(url, headers={'Idempotency-Key': key})\n"
        "```",
    ),
    _fact(
        "release-notes",
        "Release notes go in docs/releases/<version>.md",
        "2026-03-15",
        "user-confirmed",
        "release",
        "never",
        "Each release gets a notes page named `docs/releases/<version>.md`, written by hand.",
    ),
    # defects
    _fact(
        "default-currency",
        "Amounts default to euros",
        "2025-12-01",
        "verified",
        "src/ledgerly",
        "never",
        "Money without a currency is treated as EUR.",
        cites=['src/ledgerly/money.py "DEFAULT_CURRENCY = \\"EUR\\""'],
    ),
    _fact(
        "json-logging",
        "Logs go to stderr as JSON",
        "2026-02-02",
        "verified",
        "runtime",
        "never",
        "The service writes one JSON object per line to stderr.",
    ),
    _fact(
        "feature-freeze",
        "Feature freeze for the Q1 audit",
        "2026-01-05",
        "user-confirmed",
        "release",
        "2026-03-31",
        "No new features merge until the audit closes.",
    ),
    _fact(
        "squash-merges",
        "The team prefers squash merges",
        "2025-11-02",
        "derived",
        "review",
        "never",
        "Most merged pull requests I saw were squashed.",
    ),
    _fact(
        "lint-before-push",
        "Run the linter with make lint before pushing",
        "2026-02-11",
        "user-confirmed",
        "workflow",
        "never",
        "`make lint` must pass before a push.",
    ),
    _fact(
        "lint-every-push",
        "Lint with make lint before every push",
        "2026-04-20",
        "user-confirmed",
        "workflow",
        "never",
        "Run `make lint` before each push to the remote.",
    ),
    _fact(
        "pytest-paths",
        "Tests are collected from the tests folder",
        "2026-03-01",
        "verified",
        "repo",
        "never",
        "pytest only looks under tests/.",
        cites=['pyproject.toml "testpaths = [\\"tests\\"]"'],
    ),
    _fact(
        "test-location",
        "Test files live under tests",
        "2026-04-22",
        "verified",
        "repo",
        "never",
        "New tests belong in the tests folder.",
        cites=['pyproject.toml "testpaths = [\\"tests\\"]"'],
    ),
    _fact(
        "api-port",
        "The API listens on port 8000 in development",
        "2026-02-01",
        "verified",
        "dev",
        "never",
        "`make serve` starts the API on port 8000.",
        cites=['Makefile "flask run --port 8000"'],
    ),
    _fact(
        "dev-api-port",
        "In development the API listens on port 8080",
        "2026-05-02",
        "user-confirmed",
        "dev",
        "never",
        "Developers reach the local API on port 8080.",
    ),
    _fact(
        "hotfix-push",
        "Hotfixes may be pushed directly to main",
        "2026-01-20",
        "user-confirmed",
        "git",
        "never",
        "For a production hotfix, pushing straight to main is allowed.",
    ),
    _fact(
        "no-direct-push",
        "Never push directly to main",
        "2026-04-01",
        "user-confirmed",
        "git",
        "never",
        "Every change to main goes through a pull request.",
    ),
    _fact(
        "ledger-fixtures",
        "Ledger fixtures live in tests/fixtures/ledger.json",
        "2026-02-14",
        "user-confirmed",
        "tests",
        "never",
        "Shared ledger rows for tests are loaded from `tests/fixtures/ledger.json`.",
    ),
]

CHECKLISTS = {
    f"{MEMORY}/procedural/refund-check.md": (
        '# Refund check\n\n- cites: src/ledgerly/refunds.py "def refund("\n\n'
        "Proven on: 2026-02-01, 2026-03-01\n\n1. open a refund in staging\n2. check the ledger row\n"
    ),
}
PROCEDURES = [
    "| run-tests | before a push | Makefile | - |",
    "| deploy | shipping a release | docs/deploy.md | - |",
    "| ci-tests | a CI run failed | .github/workflows/test.yml | - |",
    "| release | cutting a release | scripts/release.sh | - |",
    "| refund-check | changing refunds | - | refund-check.md |",
]

TOPICS = [
    ("flaky money test", "a test compared floats", "compare cents as integers"),
    ("slow CI", "the cache key missed the lock file", "key caches on the lock file"),
    ("bad deploy", "a migration ran twice", "make migrations idempotent"),
    ("lost refund", "a retry sent two refunds", "send an idempotency key"),
    ("broken lint", "ruff was upgraded in CI only", "pin the linter version"),
    ("timeout in staging", "the pool had two connections", "size the pool to the workers"),
    ("removed legacy module", "src/ledgerly/legacy.py was deleted", "grep callers before deleting"),
]
EPISODES = {}
EPISODE_ROWS = []
for n in range(37):
    topic, context, lesson = TOPICS[n % len(TOPICS)]
    day = (date(2025, 6, 2) + timedelta(days=7 * n)).isoformat()
    name = f"{day}-{topic.replace(' ', '-')}-{n}.md"
    EPISODES[f"{MEMORY}/episodic/{name}"] = (
        f"# {topic.capitalize()} ({n})\n\n## Context\n{context.capitalize()}.\n\n"
        f"## Action\nFound the cause and fixed it.\n\n## Result\nGreen again.\n\n"
        f"## Lesson\n{lesson.capitalize()}.\n"
    )
    EPISODE_ROWS.append(f"| {day} | {topic} | {lesson} | {name} |")

DESKS = {
    f"{MEMORY}/working/refund-api.md": "# Refund API\n\n## Goal\nAdd a refund endpoint.\n\n## Next\n- tests\n",
    f"{MEMORY}/working/old-migration.md": "# Old migration\n\n## Goal\nSquash migrations.\n\n## Next\n- review\n",
}
DESK_AGE_DAYS = {
    f"{MEMORY}/working/refund-api.md": 2,
    f"{MEMORY}/working/old-migration.md": 45,
}

FILES = {**CODE, **{path: text for path, text, _ in FACTS}, **CHECKLISTS, **EPISODES, **DESKS}
ROWS = {
    "semantic": [row for _, _, row in FACTS],
    "episodic": EPISODE_ROWS,
    "procedural": PROCEDURES,
}


def _s(slug):
    return f"{MEMORY}/semantic/{slug}.md"


DEFECTS = [
    {"kind": "evidence-gone", "entries": [_s("default-currency")]},
    {"kind": "evidence-gone", "entries": [f"{MEMORY}/procedural/refund-check.md"]},
    {"kind": "uncited", "entries": [_s("json-logging")]},
    {"kind": "expired", "entries": [_s("feature-freeze")]},
    {"kind": "unconfirmed", "entries": [_s("squash-merges")]},
    {"kind": "duplicate", "entries": [_s("lint-before-push"), _s("lint-every-push")]},
    {"kind": "duplicate", "entries": [_s("pytest-paths"), _s("test-location")]},
    {"kind": "contradiction", "entries": [_s("api-port"), _s("dev-api-port")]},
    {"kind": "contradiction", "entries": [_s("hotfix-push"), _s("no-direct-push")]},
    {"kind": "path-gone", "entries": [_s("ledger-fixtures")]},
    {"kind": "pointer-gone", "entries": [f"{MEMORY}/procedural/INDEX.md#release"]},
    {"kind": "stale-desk", "entries": [f"{MEMORY}/working/old-migration.md"]},
    {"kind": "near-cap", "entries": [f"{MEMORY}/episodic/INDEX.md"]},
]

HEALTHY = (
    [
        _s(slug)
        for slug in [
            "test-command",
            "python-version",
            "money-split",
            "commit-style",
            "deploy-steps",
            "staging-db-port",
            "redis-port",
            "api-framework",
            "nightly-flakes",
            "two-approvals",
            "client-example",
            "release-notes",
        ]
    ]
    + [f"{MEMORY}/working/refund-api.md"]
    + list(EPISODES)
)
