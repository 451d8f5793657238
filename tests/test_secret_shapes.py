"""secret_shapes: credential-shaped values are errors; talk about credentials is not.

No credential-shaped literal sits in this file: every positive sample is built at import
time from a seeded random generator and split prefixes, so push protection and our own
scanners stay quiet on the test source.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.secret_parts import ALNUM, B64, HEX, LOWER_ALNUM, UPPER_ALNUM, URLSAFE, random_text

_rng = random.Random(20250101)
rand = partial(random_text, _rng)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt() -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps({"sub": rand(LOWER_ALNUM, 12), "iat": 1700000000}).encode())
    return f"{header}.{payload}.{b64url(_rng.randbytes(32))}"


def pem_body(lines: int = 3) -> list[str]:
    return [rand(B64, 64) for _ in range(lines)]


# Prefixes are split so that no whole token shape appears in this source.
AWS_ID = "AK" + "IA"
AWS_TEMP_ID = "AS" + "IA"
GOOGLE = "AI" + "za"
GH = "gh"
GL = "gl" + "pat-"
SLACK = "xo" + "x"
STRIPE_LIVE, STRIPE_TEST = "sk" + "_live_", "sk" + "_test_"
NPM = "np" + "m_"
PYPI = "py" + "pi-" + "AgEIcHlwaS5vcmc"
OPENAI = "s" + "k-"
ANTHROPIC = "s" + "k-ant-"
BEGIN, END = "-----BEGIN ", "-----END "

# (id, lines, rule, line of the finding)
POSITIVE = [
    # private keys: a header with a body, in a block, in JSON, or encrypted
    (
        "pem-rsa-block",
        ["# Server access", "", "```", BEGIN + "RSA PRIVATE KEY-----", *pem_body(), "```"],
        "secret.private-key",
        4,
    ),
    (
        "pem-openssh-block",
        ["Deploy key:", BEGIN + "OPENSSH PRIVATE KEY-----", *pem_body(), END + "OPENSSH-----"],
        "secret.private-key",
        2,
    ),
    (
        "pem-in-service-account-json",
        [
            "{",
            '  "type": "service_account",',
            f'  "private_key": "{BEGIN}PRIVATE KEY-----\\n{rand(B64, 64)}\\n{END}PRIVATE KEY-----"',
            "}",
        ],
        "secret.private-key",
        3,
    ),
    (
        "pem-encrypted-preamble",
        [
            BEGIN + "EC PRIVATE KEY-----",
            "Proc-Type: 4,ENCRYPTED",
            "DEK-Info: AES-128-CBC,0A1B2C3D4E5F",
            "",
            *pem_body(),
        ],
        "secret.private-key",
        1,
    ),
    # AWS access key ids
    (
        "aws-id-env",
        ["## CI", "export AWS_ACCESS_KEY_ID=" + AWS_ID + rand(UPPER_ALNUM, 16)],
        "secret.aws-access-key",
        2,
    ),
    (
        "aws-id-prose",
        ["The deploy user is " + AWS_ID + rand(UPPER_ALNUM, 16) + " in the prod account."],
        "secret.aws-access-key",
        1,
    ),
    (
        "aws-temporary-id-ini",
        ["[default]", "", "aws_access_key_id = " + AWS_TEMP_ID + rand(UPPER_ALNUM, 16)],
        "secret.aws-access-key",
        3,
    ),
    # AWS secret access keys need the name: 40 base64 characters alone could be anything
    (
        "aws-secret-ini",
        ["[default]", "aws_secret_access_key = " + rand(B64, 40)],
        "secret.aws-secret-key",
        2,
    ),
    (
        "aws-secret-env",
        ["- export AWS_SECRET_ACCESS_KEY=" + rand(B64, 40)],
        "secret.aws-secret-key",
        1,
    ),
    (
        "aws-secret-yaml",
        ["credentials:", "  AccessKeyId: x", '  SecretAccessKey: "' + rand(B64, 40) + '"'],
        "secret.aws-secret-key",
        3,
    ),
    # Google API keys
    (
        "google-js-config",
        ["const firebase = {", '  apiKey: "' + GOOGLE + rand(URLSAFE, 35) + '",', "};"],
        "secret.google-api-key",
        2,
    ),
    (
        "google-url-param",
        ["Maps call: https://maps.example.com/api?key=" + GOOGLE + rand(URLSAFE, 35)],
        "secret.google-api-key",
        1,
    ),
    (
        "google-prose",
        ["", "Use " + GOOGLE + rand(URLSAFE, 35) + " for the geocoder."],
        "secret.google-api-key",
        2,
    ),
    # GitHub tokens
    (
        "github-classic-pat",
        ["GITHUB_TOKEN=" + GH + "p_" + rand(ALNUM, 36)],
        "secret.github-token",
        1,
    ),
    (
        "github-oauth-in-remote",
        ["# Remote", "git remote set-url origin https://" + GH + "o_" + rand(ALNUM, 36) + "@h/r"],
        "secret.github-token",
        2,
    ),
    (
        "github-app-token",
        ["Token for the bot: `" + GH + "s_" + rand(ALNUM, 36) + "`"],
        "secret.github-token",
        1,
    ),
    (
        "github-fine-grained",
        ["", "", "pat: github" + "_pat_" + rand(ALNUM, 22) + "_" + rand(ALNUM, 59)],
        "secret.github-token",
        3,
    ),
    # GitLab tokens
    (
        "gitlab-env",
        ["CI_JOB_TOKEN_OVERRIDE=" + GL + rand(URLSAFE, 20)],
        "secret.gitlab-token",
        1,
    ),
    (
        "gitlab-header",
        ["curl --header 'PRIVATE-TOKEN: " + GL + rand(ALNUM, 20) + "' https://gitlab/api"],
        "secret.gitlab-token",
        1,
    ),
    (
        "gitlab-prose",
        ["## Access", "", "Mirror uses " + GL + rand(ALNUM, 26) + "."],
        "secret.gitlab-token",
        3,
    ),
    # Slack tokens and webhooks
    (
        "slack-bot-token",
        ["SLACK_BOT=" + SLACK + "b-" + rand(string.digits, 12) + "-" + rand(ALNUM, 24)],
        "secret.slack-token",
        1,
    ),
    (
        "slack-user-token",
        [
            "notes",
            SLACK
            + "p-"
            + "-".join(rand(string.digits, 11) for _ in range(3))
            + "-"
            + rand(HEX, 32),
        ],
        "secret.slack-token",
        2,
    ),
    (
        "slack-webhook",
        [
            "Alerts post to https://hooks.slack.com/services/T"
            + rand(UPPER_ALNUM, 8)
            + "/B"
            + rand(UPPER_ALNUM, 8)
            + "/"
            + rand(ALNUM, 24)
        ],
        "secret.slack-token",
        1,
    ),
    # Stripe secret and restricted keys
    (
        "stripe-live",
        ["STRIPE_SECRET=" + STRIPE_LIVE + rand(ALNUM, 24)],
        "secret.stripe-key",
        1,
    ),
    (
        "stripe-restricted",
        ["", "rk" + "_live_" + rand(ALNUM, 32) + " is the read-only key"],
        "secret.stripe-key",
        2,
    ),
    (
        "stripe-test",
        ["```python", "stripe.api_key = '" + STRIPE_TEST + rand(ALNUM, 24) + "'", "```"],
        "secret.stripe-key",
        2,
    ),
    # npm tokens
    (
        "npm-npmrc",
        ["//registry.npmjs.org/:_authToken=" + NPM + rand(ALNUM, 36)],
        "secret.npm-token",
        1,
    ),
    (
        "npm-env",
        ["# Publish", "NPM_TOKEN=" + NPM + rand(ALNUM, 36)],
        "secret.npm-token",
        2,
    ),
    (
        "npm-prose",
        ["The publish token is " + NPM + rand(ALNUM, 36) + " (expires in May)."],
        "secret.npm-token",
        1,
    ),
    # PyPI tokens
    (
        "pypi-pypirc",
        ["[pypi]", "username = __token__", "password = " + PYPI + rand(URLSAFE, 60)],
        "secret.pypi-token",
        3,
    ),
    (
        "pypi-env",
        ["TWINE_PASSWORD=" + PYPI + rand(URLSAFE, 120)],
        "secret.pypi-token",
        1,
    ),
    (
        "pypi-prose",
        ["", "Upload token: " + PYPI + rand(URLSAFE, 80)],
        "secret.pypi-token",
        2,
    ),
    # OpenAI keys
    (
        "openai-legacy",
        ["OPENAI_API_KEY=" + OPENAI + rand(ALNUM, 48)],
        "secret.openai-key",
        1,
    ),
    (
        "openai-project",
        [
            "# Models",
            "",
            "client = OpenAI(api_key='" + OPENAI + "proj-" + rand(URLSAFE, 120) + "')",
        ],
        "secret.openai-key",
        3,
    ),
    (
        "openai-service-account",
        ["key: " + OPENAI + "svcacct-" + rand(URLSAFE, 64)],
        "secret.openai-key",
        1,
    ),
    # Anthropic keys
    (
        "anthropic-api03",
        ["ANTHROPIC_API_KEY=" + ANTHROPIC + "api03-" + rand(URLSAFE, 93) + "AA"],
        "secret.anthropic-key",
        1,
    ),
    (
        "anthropic-admin",
        ["- admin: " + ANTHROPIC + "admin01-" + rand(URLSAFE, 93) + "AA"],
        "secret.anthropic-key",
        1,
    ),
    (
        "anthropic-short-form",
        ["", "Use " + ANTHROPIC + rand(ALNUM, 40) + " for evals."],
        "secret.anthropic-key",
        2,
    ),
    # JSON Web Tokens
    ("jwt-prose", ["Session cookie was " + jwt()], "secret.jwt", 1),
    ("jwt-json", ["{", '  "id_token": "' + jwt() + '"', "}"], "secret.jwt", 2),
    ("jwt-query", ["", "", "https://app/callback#access=" + jwt()], "secret.jwt", 3),
    # passwords inside URLs
    (
        "url-postgres",
        ["DATABASE_URL=postgres://app:" + rand(ALNUM, 14) + "@db.internal:5432/app"],
        "secret.url-credentials",
        1,
    ),
    (
        "url-git-https",
        ["## Mirror", "git clone https://deploy:" + rand(ALNUM, 18) + "@git.example.com/r.git"],
        "secret.url-credentials",
        2,
    ),
    (
        "url-redis-no-user",
        ["", "cache: redis://:" + rand(ALNUM, 20) + "@cache:6379/0"],
        "secret.url-credentials",
        2,
    ),
    # Authorization headers with real-looking values
    (
        "auth-bearer-curl",
        ["curl -H 'Authorization: Bearer " + rand(URLSAFE, 40) + "' https://api/v1/me"],
        "secret.auth-header",
        1,
    ),
    (
        "auth-token-http",
        ["GET /user HTTP/1.1", "Authorization: token " + rand(HEX, 40)],
        "secret.auth-header",
        2,
    ),
    (
        "auth-basic",
        [
            "",
            "headers = {'Authorization': 'Basic "
            + base64.b64encode(("deploy:" + rand(ALNUM, 16)).encode()).decode()
            + "'}",
        ],
        "secret.auth-header",
        2,
    ),
    # high-entropy values assigned to credential names
    ("generic-env-password", ["DB_PASSWORD=" + rand(ALNUM, 20)], "secret.generic-assignment", 1),
    (
        "generic-json-client-secret",
        ["{", '  "client_id": "web",', '  "client_secret": "' + rand(URLSAFE, 32) + '"', "}"],
        "secret.generic-assignment",
        3,
    ),
    (
        "generic-yaml-api-key",
        ["service:", "  api_key: " + rand(HEX, 32)],
        "secret.generic-assignment",
        2,
    ),
    (
        "generic-django-secret",
        ["", "SECRET_KEY = '" + rand(ALNUM + "!@#%^*-_=+", 50) + "'"],
        "secret.generic-assignment",
        2,
    ),
    (
        "generic-markdown-bold-label",
        ["- **Token:** " + rand(ALNUM, 24)],
        "secret.generic-assignment",
        1,
    ),
]

NEGATIVE = [
    ("rotate-password-prose", "Rotate the database password monthly."),
    ("api-key-in-env-prose", "Set the API key in the environment, never in code."),
    ("token-expiry-prose", "The token expires after an hour; refresh it on 401."),
    ("env-lookup", 'password = os.environ["DB_PASSWORD"]'),
    ("getenv-lookup", 'api_key = os.getenv("OPENAI_API_KEY")'),
    ("placeholder-angle", "api_key: <your-key-here>"),
    ("placeholder-shell-var", "export GITHUB_TOKEN=${GITHUB_TOKEN}"),
    ("placeholder-actions", "token: ${{ secrets.NPM_TOKEN }}"),
    ("placeholder-changeme", "password: changeme"),
    ("placeholder-stars", "password: ****************"),
    ("placeholder-xs", "SECRET_KEY=xxxxxxxxxxxxxxxxxxxxxxxx"),
    ("placeholder-your", "OPENAI_API_KEY=your-openai-api-key"),
    ("function-call", "token = fetch_token(client_id, scope)"),
    ("settings-reference", "secret_key = settings.SECRET_KEY"),
    ("key-path", "ssl_key_path: /etc/ssl/private/server-2024.key"),
    ("key-id-arn", "kms_key_id: arn:aws:kms:us-east-1:123456789012:alias/app"),
    ("public-key", "public_key: AAAAC3NzaC1lZDI1NTE5AAAAIGx9f3kq7Zb2Qw8rT5vY1pL0mN4"),
    ("author-email", "author: jane.doe42@example.com"),
    ("slug-value", "cache_key: release-2024-q1-linux-x86"),
    ("version-value", "auth_plugin: v1.2.3-rc4-build20240115"),
    ("url-placeholder-words", "postgres://user:password@localhost:5432/app"),
    ("url-placeholder-angles", "mysql://<user>:<pass>@db/app"),
    ("url-placeholder-env", "https://${GIT_USER}:${GIT_TOKEN}@github.com/org/repo.git"),
    ("url-guest-default", "amqp://guest:guest@localhost:5672/"),
    ("url-template-braces", 'csvsql --db "{{mysql://pengguna:kata_sandi@host/basis_data}}"'),
    ("url-optional-password", 'tmutil setdestination "protocolo://usuario[:clave]@host/share"'),
    ("auth-header-angle", "Authorization: Bearer <token>"),
    ("auth-header-variable", 'curl -H "Authorization: Bearer $TOKEN" https://api/v1'),
    ("auth-header-ellipsis", "Authorization: Bearer ..."),
    ("auth-header-fstring", 'headers = {"Authorization": f"Bearer {token}"}'),
    ("pem-header-mention", "Key files start with `-----BEGIN OPENSSH PRIVATE KEY-----`."),
    ("aws-docs-example-id", "AWS docs use " + AWS_ID + "IOSFODNN7EXAMPLE as the sample id."),
    ("github-masked-token", "GITHUB_TOKEN=" + GH + "p_" + "x" * 36),
    ("sk-prefix-word", "The task-runner and risk-model use sk-learn style APIs."),
    ("idempotency-key", 'idempotency_key="KG5LxwFBepaKHyUD",'),
    ("password-hash", "password_hash: 5f4dcc3b5aa765d61d8327deb882cf99"),
    ("git-sha", "Fixed auth in commit 9f86d081884c7d659a2feaa0c55ad015b3bf4f1b."),
    ("token-count", "max_tokens: 4096"),
    ("keyboard-shortcut", "keybinding: ctrl+shift+p opens the palette"),
    (
        "procedure",
        "## Rotating secrets\n\n1. Generate a new key in the console.\n"
        "2. Store it in the vault under `prod/api`.\n3. Revoke the old token.",
    ),
    ("table-of-names", "| name | where |\n|---|---|\n| STRIPE_KEY | 1Password |"),
    ("bold-label-prose", "- **API key:** stored in 1Password under 'ci-bot'"),
]


@pytest.fixture(scope="module")
def secret_shapes(ecomem):
    import ecomem.rules.secret_shapes

    return ecomem.rules.secret_shapes


@pytest.mark.parametrize(
    ("lines", "rule", "line"),
    [pytest.param(lines, rule, line, id=name) for name, lines, rule, line in POSITIVE],
)
def test_flags_credential_shape(secret_shapes, lines, rule, line):
    findings = secret_shapes.scan("mem/entry.md", lines)
    assert [(f.rule, f.line) for f in findings] == [(rule, line)]
    for finding in findings:
        assert finding.severity == "error"
        assert finding.path == "mem/entry.md"


@pytest.mark.parametrize("lines", [pytest.param(lines, id=name) for name, lines, _, _ in POSITIVE])
def test_messages_never_echo_the_secret(secret_shapes, lines):
    # Random material is every long piece that mixes letters and digits; names do not.
    pieces = re.split(r"[\s=:'\"`,;(){}]+", "\n".join(lines))
    secrets = [
        p for p in pieces if len(p) >= 12 and re.search(r"\d", p) and re.search(r"[a-z]", p, re.I)
    ]
    findings = secret_shapes.scan("m.md", lines)
    assert findings
    for finding in findings:
        assert not [s for s in secrets if s in finding.message or s[4:] in finding.message]


def test_every_family_has_three_samples():
    families = {}
    for _, _, rule, _ in POSITIVE:
        families[rule] = families.get(rule, 0) + 1
    assert len(families) == 16
    assert min(families.values()) >= 3


@pytest.mark.parametrize("text", [pytest.param(text, id=name) for name, text in NEGATIVE])
def test_mentions_are_not_findings(secret_shapes, text):
    assert secret_shapes.scan("m.md", text.split("\n")) == []


def test_one_finding_per_line_and_family(secret_shapes):
    line = f"{GH}p_{rand(ALNUM, 36)} and {GH}p_{rand(ALNUM, 36)}"
    findings = secret_shapes.scan("m.md", [line])
    assert [(f.rule, f.line) for f in findings] == [("secret.github-token", 1)]


def test_generic_rule_stays_quiet_on_a_line_already_reported(secret_shapes):
    findings = secret_shapes.scan("m.md", ["api_key = " + STRIPE_LIVE + rand(ALNUM, 24)])
    assert [f.rule for f in findings] == ["secret.stripe-key"]


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("key=" * 5000, id="repeated-assignments"),
        pytest.param("a" * 50000, id="one-long-word"),
        pytest.param("https://" + "u:" * 10000, id="colon-runs"),
        pytest.param("Authorization: Bearer " + "A" * 50000, id="long-header"),
        pytest.param(BEGIN + "PRIVATE KEY-----" * 2000, id="repeated-headers"),
        pytest.param("eyJ" * 20000, id="repeated-jwt-prefix"),
        pytest.param("api key for the " * 4000 + "is x", id="label-gap-runs"),
        pytest.param("the password is " * 4000, id="repeated-labels"),
        pytest.param("://" + ("a" * 99 + ":" + "b" * 150) * 200, id="url-like-runs"),
    ],
)
def test_pathological_lines_are_scanned_to_the_end(secret_shapes, line):
    # Lines built to provoke regex backtracking. Speed itself is measured in
    # benchmarks/verify.py, not asserted here; a backtracking rule would hang.
    for finding in secret_shapes.scan("m.md", [line]):
        assert finding.line == 1


# Lines assembled from fragments that sit near the rules' edges, plus arbitrary text
# (including `İ`, whose lowercase is two characters long).
FRAGMENTS = [AWS_ID, GOOGLE, GH + "p_", GL, SLACK + "b-", STRIPE_LIVE, NPM, OPENAI, "eyJ", "://"]
FRAGMENTS += ["token=", "password: ", "Authorization: Bearer ", "'", '"', "@", ":", "İ", "\t"]
FRAGMENTS += [BEGIN + "PRIVATE KEY-----", "Ab3", "xx", "9f"]
# Prefixes of families whose pattern starts before or around the literal.
FRAGMENTS += ["Account" + "Key=", ":A" + "A", "-u" + "s1", "Q" + "~", "s" + "l.", "E" + "AA"]
FRAGMENTS += ["_m" + "mk", ".atlas" + "v1.", "p" + "at", "0123456789abcdef", "x" * 16]
LINES = st.lists(
    st.lists(
        st.sampled_from(FRAGMENTS)
        | st.text(st.characters(blacklist_characters="\n\r"), max_size=8),
        max_size=12,
    ).map("".join),
    max_size=8,
)


# Cheap, so not bound to the copier profile; but a loaded machine (the suite's other
# workers) can make generating 100 texts look slow, which says nothing of scan.
@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
@given(lines=LINES)
def test_any_text_gives_well_formed_findings(secret_shapes, lines):
    for finding in secret_shapes.scan("m.md", lines):
        assert 1 <= finding.line <= len(lines)
        assert finding.rule.startswith("secret.")
        assert "\n" not in finding.message


# A label that names a credential makes its value one, whatever the value's shape: the
# shape rules above miss a UUID, a passphrase of words and dashed groups, which are
# neither random runs nor long enough for the generic rule. Values are built at import.
def _uuid() -> str:
    hexes = rand("0123456789abcdef", 32)
    return "-".join((hexes[:8], hexes[8:12], hexes[12:16], hexes[16:20], hexes[20:]))


def _groups(count: int) -> str:
    return "-".join(rand(string.ascii_uppercase + string.digits, 5) for _ in range(count))


LABELLED_VALUES = [
    ("uuid-after-words", f"The billing API key for the nightly export is {_uuid()}."),
    (
        "passphrase-of-words",
        "The staging root password is " + "-".join(["tide", "lamp"] * 2) + "-7.",
    ),
    ("four-plain-words", "passphrase: " + "-".join(["ochre", "violin", "harbour", "mint"])),
    ("grouped-licence", f"The licence key is {_groups(5)}."),
    ("grouped-license", f"Our product key reads {_groups(4)}"),
    ("word-and-digit", "The password was " + "lantern" + "42"),
    ("digits-only", "The admin passcode is " + str(_rng.randint(10**7, 10**8))),
    ("access-token", f"The access token for CI is {_uuid()}"),
]
NOT_LABELLED_VALUES = [
    ("label-no-value", "Set the password:"),
    ("required", "The password is required."),
    ("stored-in-vault", "The API key is stored in Vault."),
    ("angle-placeholder", "api_key: <your-key>"),
    ("stars", "password: ***"),
    ("variable", "API_KEY=${API_KEY}"),
    ("changeme", "password: changeme"),
    ("adjective", "The API key is auto-generated and per-user."),
    ("encoded", "The signing key is base64-encoded."),
    ("env-name", "The API key is OPENAI_API_KEY in CI."),
    ("attribute", "api_key = settings.API_KEY"),
    ("call", "password = get_password()"),
    ("yaml-tag", "password: !vault |"),
    ("path", "The private key is ~/.ssh/id_ed25519."),
    ("key-id", f"The API key id is {_uuid()}"),
    ("length", "The password is 16 characters long."),
    ("ssh-public-key", "Deploy key: ssh-ed25519 AAAAC3 laptop"),
]


@pytest.mark.parametrize("text", [pytest.param(text, id=name) for name, text in LABELLED_VALUES])
def test_a_value_a_credential_label_names_is_a_secret_whatever_its_shape(secret_shapes, text):
    findings = secret_shapes.scan("m.md", [text])
    assert [f.line for f in findings] == [1]
    assert findings[0].rule.startswith("secret.")
    assert text.rsplit(" ", 1)[-1].rstrip(".") not in findings[0].message  # never the value


@pytest.mark.parametrize(
    "text", [pytest.param(text, id=name) for name, text in NOT_LABELLED_VALUES]
)
def test_a_label_followed_by_words_or_a_stand_in_is_no_secret(secret_shapes, text):
    assert secret_shapes.scan("m.md", [text]) == []


# The credential labels people write in notes besides "password" and "API key": a deploy
# key, a signing, shared or webhook secret (after an aside in brackets too), a short
# "pass"/"pw" after an account's name, a quoted passphrase of words, and a login pair.
def _chosen() -> str:
    return rand(string.ascii_letters, 6) + str(_rng.randint(10, 99)) + "&" + rand("abc", 3)


CREDENTIAL_LABELS = [
    ("deploy-key", f"The deploy key for staging is {_uuid()}."),
    ("signing-secret-after-aside", f"The signing secret (HMAC) we use: {rand(HEX, 32)}"),
    ("db-pass", "The staging db pass: " + "-".join(["tide", "lamp", "oak", "fern"]) + "-42"),
    ("root-pw", f"staging root pw = {_chosen()}"),
    ("root-pwd", f"root pwd: {_chosen()}"),
    ("credentials-pair", f"admin credentials are bob / {_chosen()}"),
    ("creds-colon-pair", f"creds: alice:{_chosen()}"),
    ("webhook-shared-secret-quoted", 'The webhook shared secret is "' + "ochre violin mint" + '".'),
]
NOT_CREDENTIAL_LABELS = [
    ("password-in-vault", "db password is stored in Vault"),
    ("second-pass", "The second pass: faster"),
    ("pwd-path", "pwd: /srv/app"),
    ("credentials-where", "credentials are in 1Password"),
    ("placeholder-pair", "The login is admin/admin"),
    ("deploy-key-words", "The deploy key is read-only."),
    ("quoted-where", "webhook secret is 'see 1Password'"),
    ("pass-timing", "The first pass = 3 ms"),
    ("pw-required", "root pw is required"),
]


@pytest.mark.parametrize("text", [pytest.param(text, id=name) for name, text in CREDENTIAL_LABELS])
def test_every_credential_label_names_a_secret(secret_shapes, text):
    findings = secret_shapes.scan("m.md", [text])
    assert [(f.rule, f.line) for f in findings] == [("secret.labelled-value", 1)]


@pytest.mark.parametrize(
    "text", [pytest.param(text, id=name) for name, text in NOT_CREDENTIAL_LABELS]
)
def test_credential_words_without_a_value_are_no_secret(secret_shapes, text):
    assert secret_shapes.scan("m.md", [text]) == []
