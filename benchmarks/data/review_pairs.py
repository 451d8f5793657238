"""Labelled pairs of semantic facts for `review`'s duplicate and contradiction checks.

Each pair is (label, first, second): label is "duplicate" (both say the same thing),
"contradiction" (same subject, values that cannot both hold) or "none" (a near miss:
shares words, shape or values with the other but is about something else, or about
another scope). A fact is a dict of title, body, scope, source and as_of.

HELDOUT was written and committed before review's pairing code was changed, and is
never tuned against: benchmarks/review_pairs.py reports its precision and recall as
the honest number. TUNE is what the heuristics were tuned on; it holds the issue's
own examples.
"""

from __future__ import annotations


def F(title, body="", scope="repo", source="user-confirmed", as_of="2026-05-01"):
    return {"title": title, "body": body, "scope": scope, "source": source, "as_of": as_of}


DUP, CON, NONE = "duplicate", "contradiction", "none"

HELDOUT = [
    # --- duplicates: one fact, worded twice ---
    (DUP, F("Tests run with pytest"), F("The test suite uses pytest")),
    (DUP, F("Code is formatted with Black"), F("Black is the formatter")),
    (
        DUP,
        F("CI runs on GitHub Actions"),
        F("The pipeline is GitHub Actions", "Every push starts a workflow."),
    ),
    (DUP, F("The API is served at port 8080"), F("The API listens on 8080")),
    (DUP, F("Squash merge pull requests"), F("Pull requests are merged with squash")),
    (DUP, F("Python 3.12 is required"), F("The project requires Python 3.12")),
    (
        DUP,
        F("Use pnpm, not npm"),
        F("Packages are installed with pnpm", "npm is not used here."),
    ),
    (DUP, F("Migrations are managed by Alembic"), F("Database migrations use Alembic")),
    (DUP, F("Docs are built with MkDocs"), F("MkDocs builds the documentation")),
    (
        DUP,
        F("Branch names start with the ticket number"),
        F("Every branch name begins with its ticket number"),
    ),
    (DUP, F("The frontend deploys to Vercel"), F("Vercel hosts the frontend")),
    (DUP, F("Redis runs on port 6379 in dev"), F("In development Redis listens on 6379")),
    (
        DUP,
        F("Type checking uses mypy in strict mode"),
        F("mypy runs in strict mode for type checks"),
    ),
    (DUP, F("Logs are written as JSON"), F("The service writes its logs in JSON")),
    (DUP, F("No force pushes to main"), F("Never force-push the main branch")),
    (DUP, F("Node 20 is the runtime"), F("The app runs on Node 20")),
    (DUP, F("Secrets live in Vault"), F("Vault stores the secrets")),
    (DUP, F("Lint with ruff before committing"), F("Run ruff before every commit")),
    (DUP, F("The staging database is Postgres 15"), F("Staging runs Postgres 15")),
    (
        DUP,
        F("Pull requests need two approvals"),
        F("Two approving reviews are required on every pull request"),
    ),
    # --- contradictions: one subject, two values ---
    (
        CON,
        F("The API listens on port 8000", as_of="2026-01-10"),
        F("The API is served at port 8080", as_of="2026-04-02"),
    ),
    (CON, F("Python 3.11 is the minimum"), F("The minimum Python version is 3.10")),
    (CON, F("Tests run with pytest"), F("Tests run with unittest")),
    (CON, F("Code is formatted with Black"), F("Ruff is the formatter")),
    (
        CON,
        F("Pull requests need two approvals"),
        F("One approval is enough to merge a pull request"),
    ),
    (CON, F("Merge commits are allowed on main"), F("Merge commits are not allowed on main")),
    (CON, F("Staging Redis listens on 6380"), F("Staging Redis port is 6379")),
    (CON, F("Node 18 is the runtime"), F("The app runs on Node 20")),
    (CON, F("Deploys may happen on Fridays"), F("Never deploy on Fridays")),
    (CON, F("The session timeout is 30 minutes"), F("Sessions time out after 15 minutes")),
    (CON, F("CI runs on GitLab CI"), F("The pipeline runs on GitHub Actions")),
    (CON, F("Use npm to install packages"), F("Packages are installed with yarn")),
    (CON, F("The upload size limit is 10 MB"), F("Uploads are limited to 25 MB")),
    (CON, F("Production runs Postgres 14"), F("Postgres 16 in production")),
    (CON, F("The frontend is built with Webpack"), F("The frontend is built with Vite")),
    (CON, F("Commits must be signed"), F("Commit signing is not required")),
    (CON, F("The line length limit is 88"), F("Maximum line length is 120")),
    (CON, F("The worker runs 4 processes"), F("The worker starts 8 processes")),
    (
        CON,
        F("Docker images are based on Alpine"),
        F("Docker images use Debian as their base"),
    ),
    (
        CON,
        F("Feature flags live in LaunchDarkly"),
        F("Feature flags are stored in Unleash"),
    ),
    # --- near misses: close in words or shape, not one fact ---
    (
        NONE,
        F("Staging Postgres listens on 6543"),
        F("Production Postgres listens on 5432"),
    ),
    (NONE, F("The API listens on port 8000"), F("The admin panel listens on port 8001")),
    (
        NONE,
        F("Tests run with pytest", scope="backend"),
        F("Tests run with vitest", scope="frontend"),
    ),
    (NONE, F("CI tests on Python 3.12"), F("Python 3.9 is the oldest supported version")),
    (NONE, F("Pull requests need two approvals"), F("Releases need two sign-offs")),
    (NONE, F("Lint with ruff"), F("Format with black")),
    (NONE, F("Redis runs on port 6379"), F("Memcached runs on port 11211")),
    (NONE, F("Deploy staging on every merge"), F("Deploy production on a tag")),
    (NONE, F("The API timeout is 30 seconds"), F("The database query timeout is 5 seconds")),
    (NONE, F("Never push directly to main"), F("Never commit secrets")),
    (
        NONE,
        F("Install packages with pnpm", scope="web"),
        F("Install packages with npm", scope="docs"),
    ),
    (
        NONE,
        F("Unit tests live in tests/unit"),
        F("Integration tests live in tests/integration"),
    ),
    (NONE, F("The frontend is built with Vite"), F("The docs site is built with MkDocs")),
    (NONE, F("The upload size limit is 10 MB"), F("The request body limit is 1 MB")),
    (NONE, F("CI caches pip downloads"), F("CI does not cache Docker layers")),
    (
        NONE,
        F("Commits follow Conventional Commits"),
        F("The changelog follows Keep a Changelog"),
    ),
    (NONE, F("The worker runs 4 processes"), F("The web server runs 4 threads")),
    (NONE, F("Migrations run before each deploy"), F("Smoke tests run after each deploy")),
    (
        NONE,
        F("Tests run with pytest", scope="billing-service"),
        F("Tests run with unittest", scope="legacy-importer"),
    ),
    (NONE, F("Node 20 runs the web app"), F("The mobile app targets iOS 17")),
]

TUNE = [
    # the issue's own examples
    (
        DUP,
        F("Commits follow Conventional Commits"),
        F("Commit messages use the Conventional Commits format"),
    ),
    (CON, F("Staging Postgres listens on 6544"), F("Staging Postgres port is 6543")),
    (
        CON,
        F("Staging Postgres listens on 6543", source="verified", as_of="2025-11-02"),
        F("Staging Postgres is on 5432 again", as_of="2026-05-20"),
    ),
    # duplicates
    (DUP, F("Ruff is the only linter"), F("Linting is done with ruff alone")),
    (DUP, F("The app is served at port 3000"), F("The app runs on port 3000")),
    (DUP, F("CI is GitHub Actions"), F("The pipeline runs on GitHub Actions")),
    (DUP, F("Prettier formats the frontend"), F("The frontend formatter is Prettier")),
    (DUP, F("Go 1.22 is required"), F("The module needs Go 1.22")),
    (DUP, F("Rebase before merging"), F("Always rebase a branch before it is merged")),
    (DUP, F("Deploys go through Argo CD"), F("Argo CD deploys every release")),
    (DUP, F("The cache TTL is 300 seconds"), F("Cache entries expire after 300 seconds")),
    (DUP, F("Nginx listens on 443"), F("Nginx is served on port 443")),
    (DUP, F("Tests use Jest"), F("The tests run with Jest")),
    (DUP, F("Commits are signed with GPG"), F("Every commit is GPG-signed")),
    (DUP, F("Issues are tracked in Linear"), F("Linear tracks the issues")),
    (DUP, F("Do not commit .env files"), F("Never commit a .env file")),
    (DUP, F("Use uv to install dependencies"), F("Dependencies are installed with uv")),
    (DUP, F("The database is MySQL 8"), F("MySQL 8 is the database")),
    # contradictions
    (CON, F("The app is served at port 3000"), F("The app listens on 3001")),
    (CON, F("Go 1.21 is required"), F("The module needs Go 1.22")),
    (CON, F("Tests use Jest"), F("Tests use Vitest")),
    (CON, F("CI runs on CircleCI"), F("The pipeline is GitHub Actions")),
    (
        CON,
        F("Force pushes are allowed on feature branches"),
        F("Never force-push feature branches"),
    ),
    (CON, F("The cache TTL is 300 seconds"), F("Cache entries expire after 60 seconds")),
    (CON, F("Releases happen every two weeks"), F("Releases happen every week")),
    (CON, F("Prettier formats the frontend"), F("Biome formats the frontend")),
    (
        CON,
        F("The API rate limit is 100 requests per minute"),
        F("The API allows 500 requests per minute"),
    ),
    (CON, F("Squash merges are required"), F("Squash merges are not required")),
    (CON, F("The database is MySQL 8"), F("The database is MySQL 5.7")),
    (CON, F("Nginx listens on 443"), F("Nginx listens on 8443")),
    # near misses
    (NONE, F("Staging Postgres listens on 6543"), F("Staging Redis listens on 6379")),
    (NONE, F("The app is served at port 3000"), F("Storybook is served at port 6006")),
    (NONE, F("Ruff is the only linter"), F("Black is the only formatter")),
    (NONE, F("Tests use Jest", scope="web"), F("Tests use pytest", scope="api")),
    (NONE, F("Go 1.22 is required"), F("Node 20 is required")),
    (NONE, F("The cache TTL is 300 seconds"), F("The lock timeout is 300 seconds")),
    (NONE, F("Never force-push main"), F("Never merge without review")),
    (NONE, F("Commits follow Conventional Commits"), F("Branch names follow the ticket id")),
    (NONE, F("Deploys go through Argo CD"), F("Builds go through Bazel")),
    (NONE, F("The database is MySQL 8"), F("The queue is RabbitMQ 3")),
    (NONE, F("Releases happen every two weeks"), F("Retros happen every two weeks")),
    (NONE, F("Nginx listens on 443"), F("Nginx logs to stdout")),
    (
        NONE,
        F("The API rate limit is 100 requests per minute"),
        F("The webhook retry limit is 5 attempts"),
    ),
    (NONE, F("Use uv to install dependencies"), F("Use pip-audit to scan dependencies")),
    (NONE, F("Issues are tracked in Linear"), F("Incidents are tracked in PagerDuty")),
    (
        NONE,
        F("Staging Postgres listens on 6543", scope="payments"),
        F("Staging Postgres listens on 5432", scope="search"),
    ),
    (NONE, F("The frontend formatter is Prettier"), F("The frontend bundler is Vite")),
    (NONE, F("Python 3.12 is used in CI"), F("CI runs 4 jobs in parallel")),
]
