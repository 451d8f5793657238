"""`review` finds duplicates and contradictions however they are worded, and keeps
quiet on near misses. The planted store below was written before the pairing code was
tuned, and the tuner never ran it: it is the issue's "store it has never seen"."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import MEMORY, build_files
from tests.test_review import kinds

SEMANTIC = f"{MEMORY}/semantic"


def fact(
    root: Path,
    slug: str,
    title: str,
    body: str = "",
    scope: str = "repo",
    source: str = "user-confirmed",
    as_of: str = "2026-05-01",
) -> str:
    lines = [f"# {title}", "", f"- as_of: {as_of}", f"- source: {source}"]
    lines += [f"- scope: {scope}", "- expires: never", "", body or title + ".", ""]
    relpath = f"{SEMANTIC}/{slug}.md"
    build_files(root, {relpath: "\n".join(lines)})
    index = root / SEMANTIC / "INDEX.md"
    row = f"| {slug} | {title} | {as_of} | {source} | {slug}.md |\n"
    index.write_text(index.read_text(encoding="utf-8") + row, encoding="utf-8")
    return relpath


# (slug, title, body, scope): three reworded duplicate pairs, three contradictions
# (a number, a version, a yes/no rule), and near misses sharing words or shapes.
PLANTED = {
    "terraform-infra": ("Infrastructure is managed with Terraform", "", "repo"),
    "terraform-all": ("Terraform manages all of the infrastructure", "", "repo"),
    "renovate-updates": ("Dependency updates come from Renovate", "", "repo"),
    "renovate-prs": ("Renovate opens the dependency update pull requests", "", "repo"),
    "web-server": ("The web server is gunicorn", "", "repo"),
    "gunicorn-serves": ("gunicorn serves the web app", "", "repo"),
    "search-cache-60": ("Search results are cached for 60 seconds", "", "repo"),
    "search-cache-300": ("The search cache keeps results for 300 seconds", "", "repo"),
    "java-17": ("The service targets Java 17", "", "api"),
    "java-21": ("Java 21 is the target version", "", "api"),
    "rebase-ok": ("Feature branches may be rebased", "", "repo"),
    "rebase-never": ("Never rebase a feature branch", "", "repo"),
    # near misses
    "session-cache": ("The session cache keeps tokens for 3600 seconds", "", "repo"),
    "java-batch": ("The service targets Java 11", "", "batch-jobs"),
    "helm-manifests": ("Kubernetes manifests are managed with Helm", "", "repo"),
    "main-rebase": ("Never rebase the main branch", "", "repo"),
    "staging-port": ("Staging listens on 8443", "", "repo"),
    "prod-port": ("Production listens on 443", "", "repo"),
    "docs-pages": ("Docs are deployed to GitHub Pages", "", "repo"),
    "app-fly": ("The app is deployed to Fly.io", "", "repo"),
}
PAIRS = {
    ("duplicate", "terraform-infra", "terraform-all"),
    ("duplicate", "renovate-updates", "renovate-prs"),
    ("duplicate", "web-server", "gunicorn-serves"),
    ("contradiction", "search-cache-60", "search-cache-300"),
    ("contradiction", "java-17", "java-21"),
    ("contradiction", "rebase-ok", "rebase-never"),
}


def test_reworded_pairs_are_found_and_near_misses_are_not(host: Path) -> None:
    for slug, (title, body, scope) in PLANTED.items():
        fact(host, slug, title, body, scope)
    found = set()
    for kind in ("duplicate", "contradiction"):
        for entries in kinds(host).get(kind, []):
            slugs = sorted(Path(entry).stem for entry in entries)
            found.add((kind, *slugs))
    planted = {(kind, *sorted(pair)) for kind, *pair in PAIRS}
    assert found <= planted, f"flagged near misses: {sorted(found - planted)}"
    assert len(found) >= 5, f"missed: {sorted(planted - found)}"


def test_a_body_sentence_leaning_on_its_title_contradicts_nothing(host: Path) -> None:
    fact(host, "build-time", "The build takes 5 minutes", "Measured in May.")
    fact(host, "slow-tests", "The end-to-end tests are slow", "It takes 10 minutes.")
    fact(host, "old-port", "The API listens on port 8000", "Since January.")
    fact(host, "new-port", "The API moved", "The API listens on port 8080 since May.")
    found = kinds(host)
    assert found.get("contradiction") == [[f"{SEMANTIC}/new-port.md", f"{SEMANTIC}/old-port.md"]]
    assert "duplicate" not in found


# Facts a healthy store holds side by side: two tools for two steps, two languages for
# two parts, two retention periods for two kinds of data. None is a pair.
NEIGHBOURS = [
    "Run ruff before every commit",
    "Run mypy before every commit",
    "Sentry collects frontend errors",
    "Datadog collects backend metrics",
    "Postgres stores orders",
    "Redis stores sessions",
    "The API is written in Python",
    "The dashboard is written in TypeScript",
    "Deploys need approval from the on-call engineer",
    "Deploys are blocked on Fridays",
    "Tests need Docker running",
    "Tests need Postgres 15 running",
    "Feature flags are removed after 30 days",
    "Stale branches are deleted after 90 days",
    "The nightly job runs at 02:00 UTC",
    "The backup job runs at 03:00 UTC",
    "Logs are kept for 14 days",
    "Metrics are kept for 90 days",
    "The worker uses Celery",
    "The scheduler uses Celery beat",
    "Python 3.12 in production",
    "Python 3.11 in the data pipeline",
]


def test_healthy_neighbours_are_no_pair(host: Path) -> None:
    for n, title in enumerate(NEIGHBOURS):
        fact(host, f"neighbour-{n:02}", title)
    assert kinds(host) == {}


def test_a_unit_alone_does_not_make_one_subject(host: Path) -> None:
    fact(host, "retries", "Retry 3 times")
    fact(host, "webhook-retries", "Retry failed webhooks 5 times")
    assert kinds(host) == {}
