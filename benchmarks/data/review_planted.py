"""Planted store for `review`, written with its code: one or more defects of every kind
and healthy entries built to trip each heuristic's false-positive guards (a fact that
only mentions a number, two services sharing words, a path in a code sample, a
placeholder path). tests/test_review.py and benchmarks/review.py both use it; the
held-out store (review_heldout.py) is the one not tuned against.
"""

from __future__ import annotations

from datetime import date, timedelta

MEMORY = ".agents/memory"
TODAY = "2026-06-01"
# The surface of a fresh install is about 8.5 KB; 36 episode rows take it past this.
ARGS = ["--load-budget", "11000"]


def _fact(slug, title, as_of, source, expires, body, cites=(), scope="repo"):
    lines = [f"# {title}", "", f"- as_of: {as_of}", f"- source: {source}"]
    lines += [f"- scope: {scope}", f"- expires: {expires}"]
    lines += [f"- cites: {cite}" for cite in cites]
    text = "\n".join([*lines, "", body.strip(), ""])
    row = f"| {slug} | {title} | {as_of} | {source} | {slug}.md |"
    return f"{MEMORY}/semantic/{slug}.md", text, row


CODE = {
    "package.json": '{\n  "name": "shop",\n  "scripts": {"test": "vitest run", "build": "vite build"}\n}\n',
    "src/cart/total.ts": "export function total(items) {\n  return items.reduce((a, i) => a + i.price, 0);\n}\n",
    "src/cart/tax.ts": "export const VAT = 0.2;\n",
    "docs/setup.md": "# Setup\n\nRun npm install.\n",
    "ci/e2e.sh": "#!/bin/sh\nnpx playwright test\n",
}

FACTS = [
    # healthy, ten of them
    _fact(
        "test-runner",
        "Unit tests run with vitest",
        "2026-05-01",
        "verified",
        "never",
        "`npm test` runs vitest once.",
        cites=['package.json "\\"test\\": \\"vitest run\\""'],
    ),
    _fact(
        "vat-rate",
        "VAT is 20 percent in the cart",
        "2026-05-01",
        "verified",
        "never",
        "The cart applies a VAT rate of 0.2.",
        cites=['src/cart/tax.ts "export const VAT = 0.2;"'],
    ),
    _fact(
        "node-version",
        "CI uses Node 20",
        "2026-04-01",
        "user-confirmed",
        "never",
        "The maintainer pinned Node 20 for CI in March.",
    ),
    _fact(
        "search-port",
        "The search service listens on port 9200",
        "2026-04-01",
        "user-confirmed",
        "never",
        "Elasticsearch for search answers on 9200.",
    ),
    _fact(
        "metrics-port",
        "The metrics exporter listens on port 9100",
        "2026-04-01",
        "user-confirmed",
        "never",
        "Prometheus scrapes the node exporter on 9100.",
    ),
    _fact(
        "setup-doc",
        "Setup steps are in docs/setup.md",
        "2026-04-01",
        "verified",
        "never",
        "New contributors follow docs/setup.md.",
        cites=["docs/setup.md"],
    ),
    _fact(
        "fetch-wrapper",
        "HTTP calls go through one fetch wrapper",
        "2026-04-15",
        "user-confirmed",
        "never",
        "Use the shared wrapper, for instance:\n\n```ts\n// src/http/example_client.ts\n"
        "import { get } from './http/get';\n```",
    ),
    _fact(
        "adr-folder",
        "Decisions are written as ADRs",
        "2026-04-15",
        "user-confirmed",
        "never",
        "Each decision gets a page `docs/adr/<number>-<title>.md` once accepted.",
    ),
    _fact(
        "retries",
        "Checkout retries a failed payment 3 times",
        "2026-05-10",
        "user-confirmed",
        "never",
        "After the third failure the order is cancelled.",
    ),
    _fact(
        "guess-recent",
        "Builds seem slower on Fridays",
        "2026-05-25",
        "derived",
        "2026-09-01",
        "A guess from two slow runs; not measured.",
    ),
    # defects
    _fact(
        "cart-rounding",
        "Cart totals round half to even",
        "2026-01-10",
        "verified",
        "never",
        "total() rounds half to even.",
        cites=['src/cart/total.ts "Math.round"'],
    ),
    _fact(
        "lint-tool",
        "The linter is ESLint",
        "2026-02-01",
        "verified",
        "never",
        "Lint errors fail CI.",
    ),
    _fact(
        "summer-sale",
        "Prices are frozen for the summer sale",
        "2026-03-01",
        "user-confirmed",
        "2026-05-15",
        "No price change merges during the sale.",
    ),
    _fact(
        "prefers-small-prs",
        "The team prefers small pull requests",
        "2025-12-01",
        "derived",
        "never",
        "Most merged pull requests were under 200 lines.",
    ),
    _fact(
        "build-command",
        "Build with npm run build",
        "2026-03-01",
        "user-confirmed",
        "never",
        "`npm run build` produces the production bundle.",
    ),
    _fact(
        "build-bundle",
        "Build the bundle with npm run build",
        "2026-04-01",
        "user-confirmed",
        "never",
        "Run `npm run build` to produce the production bundle.",
    ),
    _fact(
        "staging-port",
        "The staging API listens on port 8443",
        "2026-02-01",
        "user-confirmed",
        "never",
        "Clients reach staging over TLS.",
    ),
    _fact(
        "staging-port-new",
        "The staging API listens on port 9443",
        "2026-05-01",
        "user-confirmed",
        "never",
        "Changed with the new load balancer.",
    ),
    _fact(
        "coupon-module",
        "Coupons are computed in src/cart/coupons.ts",
        "2026-03-01",
        "user-confirmed",
        "never",
        "Every discount rule lives in `src/cart/coupons.ts`.",
    ),
]

PROCEDURES = [
    "| e2e | before a release | ci/e2e.sh | - |",
    "| deploy | shipping to production | scripts/deploy.sh | - |",
]

EPISODES, EPISODE_ROWS = {}, []
for n in range(36):
    day = (date(2025, 5, 5) + timedelta(days=7 * n)).isoformat()
    name = f"{day}-incident-{n}.md"
    EPISODES[f"{MEMORY}/episodic/{name}"] = (
        f"# Incident {n}\n\n## Context\nA release broke checkout.\n\n## Action\nRolled back."
        f"\n\n## Result\nCheckout recovered.\n\n## Lesson\nRun the e2e suite before release {n}.\n"
    )
    EPISODE_ROWS.append(f"| {day} | incident {n} | run e2e before release | {name} |")

DESKS = {
    f"{MEMORY}/working/coupon-fix.md": "# Coupon fix\n\n## Goal\nFix stacking coupons.\n",
    f"{MEMORY}/working/old-search.md": "# Old search\n\n## Goal\nMove search to v8.\n",
}
DESK_AGE_DAYS = {f"{MEMORY}/working/coupon-fix.md": 1, f"{MEMORY}/working/old-search.md": 60}

FILES = {**CODE, **{path: text for path, text, _ in FACTS}, **EPISODES, **DESKS}
ROWS = {
    "semantic": [row for _, _, row in FACTS],
    "episodic": EPISODE_ROWS,
    "procedural": PROCEDURES,
}


def _s(slug):
    return f"{MEMORY}/semantic/{slug}.md"


DEFECTS = [
    {"kind": "evidence-gone", "entries": [_s("cart-rounding")]},
    {"kind": "uncited", "entries": [_s("lint-tool")]},
    {"kind": "expired", "entries": [_s("summer-sale")]},
    {"kind": "unconfirmed", "entries": [_s("prefers-small-prs")]},
    {"kind": "duplicate", "entries": [_s("build-bundle"), _s("build-command")]},
    {"kind": "contradiction", "entries": [_s("staging-port"), _s("staging-port-new")]},
    {"kind": "path-gone", "entries": [_s("coupon-module")]},
    {"kind": "pointer-gone", "entries": [f"{MEMORY}/procedural/INDEX.md#deploy"]},
    {"kind": "stale-desk", "entries": [f"{MEMORY}/working/old-search.md"]},
    {"kind": "near-cap", "entries": [f"{MEMORY}/episodic/INDEX.md"]},
    {"kind": "load", "entries": [".agents/skills/eco-mem/SKILL.md"]},
]

HEALTHY = [_s(path.rsplit("/", 1)[-1][:-3]) for path, _, _ in FACTS[:10]] + [
    f"{MEMORY}/working/coupon-fix.md"
]
