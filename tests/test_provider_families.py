"""providers: every credential family in the table, one real shape and one near miss each.

Samples are assembled at run time from a prefix (split, so no whole token shape sits in this
source), random parts from a seeded generator and fixed separators. The near miss is the same
sample with its last random part one character short of the family's minimum, so each test
pins the family's length as well as its prefix.
"""

from __future__ import annotations

import random
import subprocess
import sys
from functools import partial
from pathlib import Path

import pytest

from tests.helpers import HOST_RUNTIME, MEMORY, PROJECT, SKILL
from tests.secret_parts import (
    ALNUM,
    B64,
    DIGITS,
    HEX,
    LOWER_ALNUM,
    UPPER_ALNUM,
    URLSAFE,
    random_text,
)

BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"  # the age key alphabet

_rng = random.Random(20251130)
rand = partial(random_text, _rng)


def sample(*parts):
    """(token, near miss, random parts) from literal strings and (alphabet, size) pairs."""
    last = max(i for i, part in enumerate(parts) if isinstance(part, tuple))
    token, near, randoms = "", "", []
    for i, part in enumerate(parts):
        if isinstance(part, str):
            token, near = token + part, near + part
            continue
        alphabet, size = part
        value = rand(alphabet, size)
        randoms.append(value)
        token += value
        near += value[:-1] if i == last else value
    return token, near, randoms


def uuid() -> str:
    return "-".join(rand(HEX, n) for n in (8, 4, 4, 4, 12))


# (rule, the family's first prefix as the table lists it, sample). Prefixes are split.
SAMPLES = [
    ("aws-access-key", "AKIA", sample("AK" + "IA", (UPPER_ALNUM, 16))),
    ("aws-bedrock-key", "ABSK", sample("AB" + "SK", (B64, 109))),
    ("google-api-key", "AIza", sample("AI" + "za", (URLSAFE, 35))),
    ("google-oauth", "GOCSPX-", sample("GOC" + "SPX-", (URLSAFE, 28))),
    ("google-oauth", "ya29.", sample("ya" + "29.", (URLSAFE, 30))),
    (
        "firebase-server-key",
        ":APA91b",
        sample("AAAA", (URLSAFE, 7), ":APA" + "91b", (URLSAFE, 134)),
    ),
    ("azure-client-secret", "Q~", sample((ALNUM, 3), (DIGITS, 1), "Q" + "~", (ALNUM, 31))),
    ("azure-storage-key", "AccountKey=", sample("AccountKey=", (B64, 86), "==")),
    ("alibaba-access-key", "LTAI", sample("LT" + "AI", (ALNUM, 20))),
    ("tencent-secret-id", "AKID", sample("AK" + "ID", (ALNUM, 32))),
    ("yandex-api-key", "AQVN", sample("AQ" + "VN", (URLSAFE, 35))),
    ("digitalocean-token", "dop_v1_", sample("dop" + "_v1_", (HEX, 64))),
    (
        "cloudflare-origin-ca-key",
        "v1.0-",
        sample("v1" + ".0-", (HEX, 24), "-", (HEX, 146)),
    ),
    ("heroku-key", "HRKU-AA", sample("HRKU" + "-AA", (URLSAFE, 58))),
    ("flyio-token", "fo1_", sample("fo" + "1_", (URLSAFE, 43))),
    ("render-key", "rnd_", sample("rn" + "d_", (ALNUM, 32))),
    ("netlify-token", "nfp_", sample("nf" + "p_", (ALNUM, 36))),
    ("deno-deploy-token", "ddp_", sample("dd" + "p_", (ALNUM, 36))),
    ("supabase-key", "sbp_", sample("sb" + "p_", (HEX, 40))),
    ("supabase-key", "sb_secret_", sample("sb_" + "secret_", (URLSAFE, 20))),
    ("planetscale-token", "pscale_tkn_", sample("pscale" + "_tkn_", (URLSAFE, 32))),
    ("databricks-token", "dapi", sample("da" + "pi", (HEX, 32))),
    ("clickhouse-key", "4b1d", sample("4b" + "1d", (ALNUM, 38))),
    ("vault-token", "hvs.", sample("hv" + "s.", (URLSAFE, 24))),
    ("terraform-token", ".atlasv1.", sample((ALNUM, 14), ".atlas" + "v1.", (URLSAFE, 60))),
    ("pulumi-token", "pul-", sample("pu" + "l-", (HEX, 40))),
    ("doppler-token", "dp.pt.", sample("dp" + ".pt.", (ALNUM, 40))),
    ("openshift-token", "sha256~", sample("sha256" + "~", (URLSAFE, 43))),
    ("tailscale-key", "tskey-", sample("tskey" + "-auth-", (ALNUM, 8), "-", (ALNUM, 10))),
    ("github-token", "ghp_", sample("gh" + "p_", (ALNUM, 36))),
    ("github-token", "github_pat_", sample("github" + "_pat_", (ALNUM, 22), "_", (ALNUM, 59))),
    ("gitlab-token", "glpat-", sample("gl" + "pat-", (URLSAFE, 20))),
    ("bitbucket-token", "ATBB", sample("AT" + "BB", (ALNUM, 28))),
    ("atlassian-token", "ATATT3", sample("ATA" + "TT3", (URLSAFE, 100))),
    ("npm-token", "npm_", sample("np" + "m_", (ALNUM, 36))),
    ("pypi-token", "pypi-AgE", sample("py" + "pi-AgEIcHlwaS5vcmc", (URLSAFE, 50))),
    ("rubygems-token", "rubygems_", sample("rubygems" + "_", (HEX, 48))),
    ("nuget-key", "oy2", sample("oy" + "2", (LOWER_ALNUM, 43))),
    ("clojars-token", "CLOJARS_", sample("CLOJARS" + "_", (ALNUM, 60))),
    ("docker-hub-token", "dckr_pat_", sample("dckr" + "_pat_", (URLSAFE, 27))),
    ("jfrog-token", "AKCp", sample("AK" + "Cp", (ALNUM, 69))),
    ("jfrog-token", "cmVmd", sample("cmV" + "md", (ALNUM, 59))),
    ("buildkite-token", "bkua_", sample("bk" + "ua_", (LOWER_ALNUM, 40))),
    ("circleci-token", "CCIPAT_", sample("CCI" + "PAT_", (ALNUM, 22), "_", (HEX, 40))),
    ("sonar-token", "squ_", sample("sq" + "u_", (HEX, 40))),
    ("octopus-deploy-key", "API-", sample("AP" + "I-", (UPPER_ALNUM, 26))),
    ("prefect-token", "pnu_", sample("pn" + "u_", (ALNUM, 36))),
    ("postman-key", "PMAK-", sample("PM" + "AK-", (HEX, 24), "-", (HEX, 34))),
    ("readme-key", "rdme_", sample("rd" + "me_", (LOWER_ALNUM, 70))),
    ("infracost-key", "ico-", sample("ic" + "o-", (ALNUM, 32))),
    ("scalingo-token", "tk-us-", sample("tk" + "-us-", (URLSAFE, 48))),
    ("settlemint-token", "sm_aat_", sample("sm" + "_pat_", (ALNUM, 16))),
    ("anthropic-key", "sk-ant-", sample("sk" + "-ant-api03-", (URLSAFE, 32))),
    ("openai-key", "sk-", sample("s" + "k-", (ALNUM, 32))),
    ("openrouter-key", "sk-or-v1-", sample("sk" + "-or-v1-", (HEX, 64))),
    ("huggingface-token", "hf_", sample("h" + "f_", (ALNUM, 34))),
    ("replicate-token", "r8_", sample("r" + "8_", (URLSAFE, 37))),
    ("groq-key", "gsk_", sample("gs" + "k_", (ALNUM, 52))),
    ("xai-key", "xai-", sample("xa" + "i-", (ALNUM, 80))),
    ("perplexity-key", "pplx-", sample("pp" + "lx-", (ALNUM, 48))),
    ("langsmith-key", "lsv2_pt_", sample("lsv2" + "_pt_", (HEX, 32), "_", (HEX, 10))),
    ("pinecone-key", "pcsk_", sample("pc" + "sk_", (ALNUM, 5), "_", (ALNUM, 63))),
    ("posthog-key", "phx_", sample("ph" + "x_", (ALNUM, 43))),
    ("dynatrace-token", "dt0c01.", sample("dt0c" + "01.", (ALNUM, 24), ".", (ALNUM, 64))),
    ("new-relic-key", "NRAK-", sample("NR" + "AK-", (UPPER_ALNUM, 27))),
    ("grafana-token", "glc_", sample("gl" + "c_", (B64, 32))),
    ("grafana-token", "glsa_", sample("gl" + "sa_", (ALNUM, 32), "_", (HEX, 8))),
    ("grafana-token", "eyJrIjoi", sample("eyJr" + "Ijoi", (ALNUM, 70))),
    ("sentry-token", "sntryu_", sample("sntr" + "yu_", (HEX, 64))),
    ("sentry-token", "sntrys_eyJ", sample("sntr" + "ys_eyJ", (B64, 60))),
    ("jwt", "eyJ", None),  # built below: three base64url JSON parts
    (
        "slack-token",
        "xoxb-",
        sample("xo" + "xb-", (DIGITS, 12), "-", (DIGITS, 12), "-", (ALNUM, 10)),
    ),
    ("slack-token", "xapp-", sample("xa" + "pp-1-", (ALNUM, 20))),
    (
        "slack-token",
        "hooks.slack.com/",
        sample("https://hooks.slack" + ".com/services/", (ALNUM, 20)),
    ),
    (
        "discord-webhook",
        "discord.com/api/webhooks/",
        sample("https://discord.com/api" + "/webhooks/", (DIGITS, 18), "/", (URLSAFE, 60)),
    ),
    (
        "teams-webhook",
        "webhook.office.com/",
        sample("https://acme.webhook.office" + ".com/webhookb2/", (ALNUM, 40)),
    ),
    ("telegram-bot-token", ":AA", sample((DIGITS, 9), ":A" + "A", (URLSAFE, 33))),
    ("twilio-key", "SK0", sample("S" + "K", (HEX, 32))),
    ("twilio-key", "AC0", sample("A" + "C", (HEX, 32), ":", (HEX, 32))),
    ("sendgrid-key", "SG.", sample("S" + "G.", (URLSAFE, 22), ".", (URLSAFE, 39))),
    ("mailgun-key", "key-", sample("ke" + "y-", (HEX, 32))),
    ("mailchimp-key", "-us", sample((HEX, 32), "-u" + "s12")),
    ("mailersend-token", "mlsn.", sample("ml" + "sn.", (HEX, 64))),
    ("brevo-key", "xkeysib-", sample("xkey" + "sib-", (HEX, 64), "-", (ALNUM, 16))),
    ("stripe-key", "sk_live_", sample("sk" + "_live_", (ALNUM, 16))),
    ("webhook-signing-secret", "whsec_", sample("wh" + "sec_", (B64, 24))),
    ("square-token", "sq0atp-", sample("sq0" + "atp-", (URLSAFE, 22))),
    ("square-token", "EAAA", sample("EA" + "AA", (URLSAFE, 60))),
    (
        "braintree-token",
        "access_token$production$",
        sample("access_token$" + "production$", (LOWER_ALNUM, 16), "$", (HEX, 32)),
    ),
    ("plaid-token", "access-production-", None),  # built below: a UUID
    ("shopify-token", "shpat_", sample("shp" + "at_", (HEX, 32))),
    ("woocommerce-key", "ck_", sample("c" + "k_", (HEX, 40))),
    ("flutterwave-key", "FLWSECK", sample("FLW" + "SECK-", ("abcdefgh0123456789", 32), "-X")),
    ("shippo-token", "shippo_live_", sample("shippo" + "_live_", (HEX, 40))),
    ("easypost-key", "EZAK", sample("EZ" + "AK", (ALNUM, 54))),
    ("duffel-token", "duffel_test_", sample("duffel" + "_live_", (URLSAFE, 43))),
    (
        "onepassword-key",
        "A3-",
        sample(
            "A" + "3-",
            (UPPER_ALNUM, 6),
            "-",
            (UPPER_ALNUM, 11),
            "-",
            (UPPER_ALNUM, 5),
            "-",
            (UPPER_ALNUM, 5),
            "-",
            (UPPER_ALNUM, 5),
        ),
    ),
    ("onepassword-key", "ops_eyJ", sample("op" + "s_eyJ", (B64, 250))),
    ("age-secret-key", "AGE-SECRET-KEY-1", sample("AGE-SECRET" + "-KEY-1", (BECH32, 58))),
    ("adobe-client-secret", "p8e-", sample("p8" + "e-", (ALNUM, 32))),
    ("airtable-token", "pat", sample("pa" + "t", (ALNUM, 14), ".", (HEX, 64))),
    ("hubspot-token", "pat-na1-", None),  # built below: a UUID
    ("notion-token", "ntn_", sample("nt" + "n_", (DIGITS, 11), (ALNUM, 35))),
    ("notion-token", "secret_", sample("sec" + "ret_", (ALNUM, 43))),
    ("linear-key", "lin_api_", sample("lin" + "_api_", (ALNUM, 40))),
    ("figma-token", "figd_", sample("fi" + "gd_", (URLSAFE, 38))),
    ("contentful-token", "CFPAT-", sample("CF" + "PAT-", (URLSAFE, 43))),
    ("typeform-token", "tfp_", sample("tf" + "p_", (URLSAFE, 40))),
    ("frameio-token", "fio-u-", sample("fio" + "-u-", (URLSAFE, 64))),
    (
        "harness-token",
        "pat.",
        sample("pa" + "t.", (URLSAFE, 22), ".", (ALNUM, 24), ".", (ALNUM, 20)),
    ),
    ("intra42-secret", "s-s4t2ud-", sample("s-s4t2" + "ud-", (HEX, 64))),
    ("maxmind-key", "_mmk", sample((ALNUM, 6), "_", (ALNUM, 29), "_m" + "mk")),
    (
        "mapbox-token",
        "sk.eyJ",
        sample("s" + "k.eyJ", (URLSAFE, 50), ".", (URLSAFE, 20)),
    ),
    ("dropbox-token", "sl.", sample("s" + "l.", (URLSAFE, 130))),
    ("facebook-token", "EAA", sample("EA" + "AB", (ALNUM, 100))),
]


def _jwt_sample():
    import base64
    import json

    def b64url(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps({"sub": rand(LOWER_ALNUM, 12), "iat": 1700000000}).encode())
    signature = rand(URLSAFE, 43)
    return f"{header}.{payload}.{signature}", f"{header}.{payload}", [signature]


def _uuid_sample(prefix: str):
    value = uuid()
    return prefix + value, prefix + value[:-1], [value]


_BUILT = {
    "eyJ": _jwt_sample(),
    "access-production-": _uuid_sample("access-" + "production-"),
    "pat-na1-": _uuid_sample("pat" + "-na1-"),
}
SAMPLES = [
    (rule, prefix, built if built is not None else _BUILT[prefix])
    for rule, prefix, built in SAMPLES
]

# Where a token shows up in an entry; the near miss always sits in plain prose.
CONTEXTS = [
    "export SERVICE_TOKEN={}",
    "- value: `{}`",
    '{{"credential": "{}"}}',
    "The integration used {} until Friday.",
    "curl https://api.example.org/v1?auth={}",
]


@pytest.fixture(scope="module")
def shapes(ecomem):
    import ecomem.rules.providers
    import ecomem.rules.secret_shapes

    return ecomem.rules.secret_shapes, ecomem.rules.providers


def _ids():
    return [f"{rule}:{prefix}" for rule, prefix, _ in SAMPLES]


def test_the_table_covers_at_least_sixty_credential_families(shapes):
    _, providers = shapes
    rules = {family.rule for family in providers.FAMILIES}
    assert len(rules) >= 60
    assert all(rule.startswith("secret.") for rule in rules)


def test_every_row_of_the_table_has_a_sample_here(shapes):
    _, providers = shapes
    rows = [(family.rule, family.prefixes[0]) for family in providers.FAMILIES]
    assert len(rows) == len(set(rows))
    assert sorted(rows) == sorted((f"secret.{rule}", prefix) for rule, prefix, _ in SAMPLES)


def test_every_row_has_literal_prefixes_and_a_shape_to_document(shapes):
    _, providers = shapes
    for family in providers.FAMILIES:
        assert family.prefixes
        assert all(isinstance(prefix, str) and len(prefix) >= 2 for prefix in family.prefixes)
        assert family.shape and family.what
        assert "body" in family.pattern.source


def test_the_documented_coverage_table_lists_every_rule_id(shapes):
    _, providers = shapes
    page = (PROJECT / "docs" / "verify.md").read_text(encoding="utf-8")
    table = page.split("## Credentials verify recognises", 1)[1].split("</details>", 1)[0]
    listed = {
        line.split("`")[1] for line in table.splitlines() if line.startswith("| ") and "`" in line
    }
    listed.discard("rule id")
    assert {family.rule for family in providers.FAMILIES} <= listed


@pytest.mark.parametrize(("rule", "prefix", "built"), SAMPLES, ids=_ids())
def test_a_token_of_the_family_shape_is_reported(shapes, rule, prefix, built):
    secret_shapes, _ = shapes
    token, _, randoms = built
    context = CONTEXTS[sum(map(ord, rule + prefix)) % len(CONTEXTS)]
    lines = ["# Notes", "", context.format(token), ""]

    findings = secret_shapes.scan("m.md", lines)

    assert [(f.rule, f.line) for f in findings] == [(f"secret.{rule}", 3)]
    # Messages show at most the public prefix, never the random part.
    assert not [part for part in randoms if len(part) >= 8 and part[2:] in findings[0].message]


# The rules that judge a value without a family's shape.
NOT_A_FAMILY = {"secret.generic-assignment", "secret.random-token"}


@pytest.mark.parametrize(("rule", "prefix", "built"), SAMPLES, ids=_ids())
def test_one_character_short_of_the_shape_is_not(shapes, rule, prefix, built):
    secret_shapes, _ = shapes
    _, near_miss, _ = built

    findings = secret_shapes.scan("m.md", [f"The integration used {near_miss} until Friday."])

    # Not the family's token. Its random part may still be refused as one
    # (secret.random-token), and a name such as `AccountKey=` may carry the value into
    # the generic rule.
    assert {f.rule for f in findings} <= NOT_A_FAMILY


# A URL family matches inside the URL, whatever precedes it, so it has no word boundary.
WORD_SAMPLES = [row for row in SAMPLES if not row[2][0].startswith("https://")]


@pytest.mark.parametrize(
    ("rule", "prefix", "built"), WORD_SAMPLES, ids=[f"{r}:{p}" for r, p, _ in WORD_SAMPLES]
)
def test_a_prefix_inside_a_longer_word_is_not_a_token(shapes, rule, prefix, built):
    secret_shapes, _ = shapes
    token, _, _ = built

    findings = secret_shapes.scan("m.md", [f"see x{token}"])

    assert {f.rule for f in findings} <= NOT_A_FAMILY


@pytest.mark.parametrize(("rule", "prefix", "built"), SAMPLES, ids=_ids())
def test_a_masked_body_is_a_placeholder(shapes, rule, prefix, built):
    secret_shapes, _ = shapes
    token, _, randoms = built
    masked = token.replace(randoms[-1], "X" * len(randoms[-1]))

    assert secret_shapes.scan("m.md", [f"The integration used {masked} until Friday."]) == []


# -- rules compile only when their prefilter hits ------------------------------------

COMPILE_PROBE = """
import json, sys
from datetime import date
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from ecomem import lazy_re
from ecomem.commands import verify
from ecomem.rules import personal_data, providers, secret_shapes
verify.collect(Path(sys.argv[2]), date(2025, 1, 15))
store_only = list(lazy_re.COMPILED)
secret_shapes.scan("m.md", [sys.argv[3]])
print(json.dumps({
    "store": store_only,
    "after": lazy_re.COMPILED[len(store_only):],
    "families": {f.pattern.source: f.rule for f in providers.FAMILIES},
    "personal": [v.source for v in vars(personal_data).values() if isinstance(v, lazy_re.LazyPattern)],
}))
"""


def test_a_clean_store_compiles_no_provider_or_personal_data_pattern(rendered: Path):
    # A fresh interpreter on the rendered script: nothing compiled before the store is read.
    token = "gh" + "p_" + rand(ALNUM, 36)
    runtime = rendered / SKILL / "scripts" / HOST_RUNTIME  # zipimport reads the package
    result = subprocess.run(
        [sys.executable, "-B", "-c", COMPILE_PROBE, str(runtime), str(rendered), f"tok {token}"],
        capture_output=True,
        text=True,
        check=True,
    )
    report = __import__("json").loads(result.stdout)
    families = report["families"]

    assert (rendered / MEMORY / "semantic/INDEX.md").is_file()
    assert [source for source in report["store"] if source in families] == []
    assert len(report["personal"]) == 5  # the SSN ticket lead is the fifth
    assert [source for source in report["store"] if source in report["personal"]] == []
    # What does compile is the handful of keyword-gated rules (the rendered catalogs say
    # "secret" and "key"), a fixed number that does not grow with the table.
    assert len(report["store"]) <= 10 < len(families)
    # The token compiles its own family's pattern and no other family's.
    assert [families[source] for source in report["after"] if source in families] == [
        "secret.github-token"
    ]


@pytest.mark.parametrize(("rule", "prefix", "built"), SAMPLES, ids=_ids())
def test_pathological_lines_are_scanned_to_the_end(shapes, rule, prefix, built):
    # Prefixes repeated, and a prefix before a long run of body characters: a pattern
    # that backtracks would hang here. Speed itself is measured in benchmarks/verify.py.
    secret_shapes, _ = shapes
    token, _, _ = built
    for line in (prefix * 5000, prefix + "a1" * 25000, (token + " ") * 500, "0" * 20000 + prefix):
        for finding in secret_shapes.scan("m.md", [line]):
            assert finding.line == 1


# What verify imports runs on every commit, so costly modules stay out.
HEAVY_MODULES = {"shutil", "subprocess", "json", "typing", "dataclasses", "base64", "tempfile"}


@pytest.mark.parametrize("json_output", [False, True], ids=["text", "json"])
def test_verify_imports_no_heavy_module(rendered: Path, json_output: bool):
    # -S: without site, every module listed is one verify itself pulled in.
    script = rendered / SKILL / "scripts/eco_mem.pyz"
    command = [sys.executable, "-S", "-X", "importtime", str(script), "verify", "--root", "."]
    # The runtime file's first run unpacks it (shutil, tempfile); every commit after that
    # runs what this probes. Run it once first, whichever test reached the render first.
    subprocess.run([sys.executable, *command[4:]], cwd=rendered, capture_output=True, check=True)
    result = subprocess.run(
        command + ["--json"] * json_output, cwd=rendered, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    imported = {line.split("|")[-1].strip() for line in result.stderr.splitlines() if "|" in line}
    assert "ecomem.commands.verify" in imported  # the probe sees verify's own imports
    # The report is written by ecomem/json_out.py; argparse is left to --help and errors.
    assert imported & HEAVY_MODULES == set()
    assert not imported & {"argparse", "gettext", "locale", "datetime"}


# -- tokens inside API URLs, and ids that are public on their own --------------------


def test_a_telegram_token_inside_a_bot_api_url_is_reported(shapes):
    secret_shapes, _ = shapes
    token = rand(DIGITS, 9) + ":A" + "A" + rand(URLSAFE, 33)
    url = "https://api.telegram" + ".org/bot" + token + "/sendMessage"
    lines = ["# Notes", "", f"curl -s {url}?chat_id=42", f"see robot{token}"]

    findings = secret_shapes.scan("m.md", lines)

    # Glued to `robot`, the token is no family's; its random part is refused as one.
    assert [(f.rule, f.line) for f in findings] == [
        ("secret.telegram-bot-token", 3),
        ("secret.random-token", 4),
    ]
    assert token[12:] not in findings[0].message


def test_a_twilio_account_sid_alone_is_public_and_not_reported(shapes):
    secret_shapes, _ = shapes
    sid = "A" + "C" + rand(HEX, 32)
    lines = [
        f"The account is {sid}.",
        f"POST https://api.twilio.com/2010-04-01/Accounts/{sid}/Messages.json",
        f"curl -u {sid}:$TWILIO_AUTH_TOKEN",
    ]

    assert secret_shapes.scan("m.md", lines) == []
    joined = secret_shapes.scan("m.md", [f"curl -u {sid}:{rand(HEX, 32)} https://api.twilio.com"])
    assert [f.rule for f in joined] == ["secret.twilio-key"]
