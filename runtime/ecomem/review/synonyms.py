"""The small vocabulary review compares facts in: phrases and words software facts use
for one idea, folded to one concept, and tool names that are values, not subjects.

Two facts that say "listens on 6543" and "port is 6544" are about one port; two that
say "formats with Black" and "the formatter is Ruff" name two tools for one job. The
tables are short on purpose (docs/review.md lists them): a synonym that is not one in
every repository makes two subjects one, and a near miss flagged costs more than a
pair missed.
"""

from __future__ import annotations

# Phrases first, longest first: each becomes one concept word before words are split.
PHRASES = (
    ("runs on port", "port"),
    ("is served at port", "port"),
    ("is served on port", "port"),
    ("served at port", "port"),
    ("is served at", "port"),
    ("is served on", "port"),
    ("served at", "port"),
    ("served on", "port"),
    ("listening on port", "port"),
    ("listens on port", "port"),
    ("listen on port", "port"),
    ("listening on", "port"),
    ("listens on", "port"),
    ("listen on", "port"),
    ("binds to port", "port"),
    ("bound to port", "port"),
    ("commit messages", "commit"),
    ("commit message", "commit"),
    ("test suites", "test"),
    ("test suite", "test"),
    ("pull requests", "pr"),
    ("pull request", "pr"),
    ("merge requests", "pr"),
    ("merge request", "pr"),
    ("continuous integration", "ci"),
    ("times out after", "timeout"),
    ("time out after", "timeout"),
    ("timed out after", "timeout"),
    ("expire after", "timeout"),
    ("expires after", "timeout"),
    ("times out", "timeout"),
    ("time out", "timeout"),
    ("at most", "limit"),
    ("at least", "minimum"),
    ("is done with", "with"),
    ("is done by", "with"),
    ("lives in", "store"),
    ("live in", "store"),
    ("kept in", "store"),
    ("stored in", "store"),
)
# Words (lower case, before stemming) that name one concept.
WORDS = {
    word: concept
    for concept, words in (
        ("ci", "pipeline pipelines ci"),
        ("format", "formatter formatters formats formatted formatting"),
        ("lint", "linter linters linting lints linted"),
        ("test", "tests testing tested"),
        ("commit", "commits committed committing"),
        ("doc", "docs documentation"),
        ("dev", "dev development"),
        ("prod", "prod production"),
        ("database", "db databases"),
        ("postgres", "postgresql pg"),
        ("pr", "prs mr mrs"),
        ("approval", "approvals approve approves"),
        ("dependency", "deps dependencies"),
        ("config", "configuration"),
        ("timeout", "ttl timeouts"),
        ("store", "stores stored"),
        ("limit", "maximum max limited limits"),
        ("minimum", "minimal min"),
        ("run", "runtime runs running ran"),
        ("deploy", "deploys deployed deploying deployment deployments"),
        ("build", "builds built building"),
        ("port", "ports"),
    )
    for word in words.split()
}
# Words that carry neither subject nor value in a fact: verbs of use and need, and
# words of time that say when, not what ("again", "now"), and "version", which names the
# kind of value a fact states, not what it is about.
GENERIC = frozenset(
    """
    use uses used using via through need needs needed require requires required enough
    allow allows permit permits follow follows followed done alone sole solely again
    since until per currently still code version versions get gets
    """.split()  # noqa: SIM905 - a word list reads best as words
)
# Tools whose names are not English words: a value wherever they appear, in any case.
TOOLS = frozenset(
    """
    pytest unittest tox nox ruff flake8 pylint isort mypy pyright pyre pip pipenv poetry
    uv conda hatch pdm setuptools jest vitest mocha jasmine cypress playwright eslint
    tslint prettier biome npm pnpm yarn bun deno webpack vite rollup esbuild parcel
    turbopack bazel cmake gradle maven sbt cargo rustfmt clippy gofmt golangci alembic
    flyway liquibase django flask fastapi rails nextjs nuxt mkdocs sphinx docusaurus
    gunicorn uvicorn celery sidekiq nginx caddy redis memcached rabbitmq kafka postgres
    mysql mariadb sqlite mongodb elasticsearch opensearch terraform ansible pulumi helm
    kubectl kubernetes docker podman vercel netlify heroku circleci jenkins buildkite
    dependabot renovate sentry datadog grafana prometheus launchdarkly unleash typer
    argparse numpy pandas pydantic sqlalchemy prisma graphql grpc protobuf typescript
    javascript python nodejs golang java kotlin scala ruby rust php swift alpine debian
    ubuntu centos gitlab github bitbucket jira argocd
    """.split()  # noqa: SIM905 - a word list reads best as words
)
# Tools named with an English word (Black, Click, Go, Make, Vault): a value only when
# written with a capital or in backticks; the sentence's first word counts too.
CAPITALISED_TOOLS = frozenset(
    """
    black click go make node vault linear express react vue svelte angular actions
    """.split()  # noqa: SIM905 - a word list reads best as words
)
