"""secret_randomness: keys with no label and no known prefix, found by their randomness,
after hex and base64 decoding and after joining a token a sentence split in two.

Every credential here is built at run time from a seeded generator and split prefixes,
so this file holds no key-shaped literal. The write gate is driven through the real
`new semantic` command in a rendered host: refused (exit 1) and nothing written.
"""

from __future__ import annotations

import base64
import random
from functools import partial
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import MEMORY, assert_exit
from tests.memory_helpers import fact, mem, refused_rules, snapshot
from tests.secret_parts import ALNUM, B64, HEX, LOWER_ALNUM, UPPER_ALNUM, URLSAFE, random_text

_rng = random.Random(20261204)
rand = partial(random_text, _rng)


def hex_groups(*sizes: int) -> str:
    return "-".join(rand(HEX, size) for size in sizes)


# (id, the sentence an agent might write, the rule that must refuse it). Prefixes are split.
CREDENTIALS = [
    ("deepseek-sk-hex", f"The eval runner uses {'s' + 'k-'}{rand(HEX, 32)} for DeepSeek.", None),
    ("zhipu-hex-dot", f"GLM access uses {rand(HEX, 32)}.{rand(ALNUM, 16)} in staging.", None),
    ("tavily", f"Search tool uses {'tv' + 'ly-'}{rand(ALNUM, 32)} in CI.", None),
    ("firecrawl", f"Crawler runs with {'f' + 'c-'}{rand(HEX, 32)} on the nightly job.", None),
    ("e2b", f"Sandboxes start with {'e2' + 'b_'}{rand(HEX, 40)} in preview envs.", None),
    (
        "langfuse-uuid",
        f"Tracing posts with {'sk' + '-lf-'}{hex_groups(8, 4, 4, 4, 12)} to the EU host.",
        None,
    ),
    ("jina", f"Reranking uses {'ji' + 'na_'}{rand(URLSAFE, 60)} for search.", None),
    ("neon", f"Branch databases are made with {'na' + 'pi_'}{rand(LOWER_ALNUM, 64)} by CI.", None),
    (
        "voyage",
        f"Embeddings are fetched with {'p' + 'a-'}{rand(URLSAFE, 43)} for embeddings.",
        None,
    ),
    # No prefix at all: the randomness alone.
    ("bare-base62", f"The staging box answers to {rand(ALNUM, 32)} for now.", None),
    ("bare-lower", f"Ops pasted {rand(LOWER_ALNUM, 40)} into the runbook.", None),
    ("bare-upper", f"License is {rand(UPPER_ALNUM, 32)} on the build farm.", None),
    ("in-backticks", f"- staging: `{rand(URLSAFE, 40)}` (rotated monthly)", None),
    # Split in two: the halves joined make the family's token.
    (
        "github-split",
        f"The bot token starts {'gh' + 'p_'}{rand(ALNUM, 18)} and ends {rand(ALNUM, 18)}.",
        "secret.github-token",
    ),
    # Joined, too short for the family: random all the same.
    (
        "random-split",
        f"It starts {'gh' + 'p_'}{rand(ALNUM, 12)} and ends {rand(ALNUM, 12)} (joined).",
        None,
    ),
    # Wrapped: hex or base64 of a key is judged as the key.
    (
        "anthropic-hex",
        "Key, hex-encoded: " + ("s" + "k-ant-api03-" + rand(URLSAFE, 93) + "AA").encode().hex(),
        "secret.anthropic-key",
    ),
    (
        "github-base64",
        "Stored as "
        + base64.b64encode(("gh" + "p_" + rand(ALNUM, 36)).encode()).decode()
        + " in the vault.",
        "secret.github-token",
    ),
    (
        "assignment-base64url",
        "Blob: "
        + base64.urlsafe_b64encode(("DB_PASS" + "WORD=" + rand(ALNUM, 20)).encode()).decode(),
        "secret.generic-assignment",
    ),
]
RANDOM_TOKEN = "secret.random-token"


def _rule(rule: str | None) -> str:
    return rule or RANDOM_TOKEN


def _random_parts(text: str) -> list[str]:
    """The pieces of a sample a message must never show: long runs mixing letters and
    digits, and (for the wrapped ones) the hex or base64 run itself."""
    words = text.replace("`", " ").replace("(", " ").split()
    return [w.strip(".,") for w in words if len(w) >= 12 and any(c.isdigit() for c in w)]


@pytest.fixture(scope="module")
def secret_shapes(ecomem):
    import ecomem.rules.secret_shapes

    return ecomem.rules.secret_shapes


@pytest.mark.parametrize(
    ("body", "rule"), [pytest.param(body, rule, id=name) for name, body, rule in CREDENTIALS]
)
def test_new_semantic_refuses_an_unlabelled_credential_and_writes_nothing(
    host: Path, body: str, rule: str | None
) -> None:
    before = snapshot(host)

    result = assert_exit(fact(host, "Service access", body=body), 1)

    assert refused_rules(result) == [_rule(rule)], result.stderr
    assert snapshot(host) == before
    for part in _random_parts(body):
        assert part[6:] not in result.stderr  # at most a public prefix is shown


def test_verify_reports_an_unlabelled_key_an_entry_already_holds(host: Path) -> None:
    # The gate and verify share the rule list: a key written by hand is found as well.
    entry = host / MEMORY / "semantic" / "search-tool.md"
    key = "tv" + "ly-" + rand(ALNUM, 32)
    entry.write_text(f"# Search tool\n\nThe search tool uses {key} in CI.\n", encoding="utf-8")

    result = assert_exit(mem(host, "verify", "--json"), 1)

    assert '"rule": "secret.random-token"' in result.stdout
    assert key[5:] not in result.stdout


@pytest.mark.parametrize(
    ("body", "rule"), [pytest.param(body, rule, id=name) for name, body, rule in CREDENTIALS]
)
def test_the_scan_names_the_rule_on_the_line(secret_shapes, body: str, rule: str | None) -> None:
    findings = secret_shapes.scan("m.md", ["# Notes", "", body])

    assert [(f.rule, f.line) for f in findings] == [(_rule(rule), 3)]


# -- harmless shapes stay allowed ----------------------------------------------------------

_h = random.Random(7)


def _bytes64(size: int) -> str:
    return base64.b64encode(_h.randbytes(size)).decode()


HARMLESS = [
    ("git-shas", f"Fixed in commit {rand(HEX, 40)}, first seen in {rand(HEX, 7)}."),
    ("sha256-digest", f"The release tarball's sha256 is {rand(HEX, 64)}."),
    ("sha512-digest", f"Its sha512: {rand(HEX, 128)}"),
    ("image-digest", f"Prod runs ghcr.io/acme/app@sha256:{rand(HEX, 64)} since Monday."),
    ("npm-integrity", f"The lock file pins sha512-{_bytes64(64)} for left-pad."),
    ("go-sum", f"go.sum: golang.org/x/text v0.14.0 h1:{_bytes64(32)}"),
    ("ssh-fingerprint", f"The host key is SHA256:{_bytes64(32).rstrip('=')} (ed25519)."),
    ("ssh-public-key", f"Deploy key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rand(B64, 43)} ci"),
    ("uuids", f"Request {hex_groups(8, 4, 4, 4, 12)} failed; tenant {hex_groups(8, 4, 4, 4, 12)}."),
    ("versions", "Shipped v0.4.1-3-g38b0443, 1.2.3-rc.1+build.5114f85 and v2.14.0-rc1."),
    ("temp-path", f"The cache sits in /var/folders/xy/{rand(LOWER_ALNUM, 26)}/T/ on macs."),
    ("nix-path", f"Nix built /nix/store/{rand(LOWER_ALNUM, 32)}-firefox-33.1/bin/firefox."),
    ("repo-paths", "Edit src/ecomem/rules/secret_shapes.py and tests/test_secret_randomness.py."),
    (
        "url-with-id",
        f"The sheet: https://docs.google.com/spreadsheets/d/{rand(URLSAFE, 44)}/edit#gid=0",
    ),
    ("slugs", "See test-a-prefix-inside-a-longer-word-is-not-a-token and release-2024-q1-x86."),
    ("identifiers", "Call getUser2FactorAuthToken with TLS_AES_128_GCM_SHA256 on x86_64."),
    ("wheel", "Built numpy-1.26.4-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"),
    ("torch-wheel", "Use torch-2.4.0-cp312-cp312-manylinux2014_aarch64.whl on arm hosts."),
    ("arm-tags", "Tags py3-none-linux_armv7l.manylinux_2_17_armv7l.manylinux2014_armv7l"),
    ("gpg-key-id", f"Signed with rsa4096/0x{rand(HEX, 16).upper()} since 2024."),
    ("ssh-kex", "KexAlgorithms sntrup761x25519-sha512,mlkem768x25519-sha256 first."),
    ("font-file", f"Self-hosted fonts: assets/fonts/{rand(ALNUM, 14)}-{rand(ALNUM, 8)}.woff2"),
    ("cdn-host", f"Assets come from {rand(LOWER_ALNUM, 22)}.cloudfront.net since May."),
    ("ulid-tag", "Deployed registry.fly.io/app:deployment-01HGEDDH0R7T762T90B45GZRWP today."),
    ("slack-file-path", "Uploaded to /T03E94MJU-F02P5J88137-e3fda671e9 in the channel."),
    ("data-uri", "Logo: <data:image/png;base64," + _bytes64(300) + ">"),
    ("timestamp", "Deployed at 2025-01-15T10:30:00.123456Z by the release job."),
    ("address", f"The contract lives at 0x{rand(HEX, 40)} on mainnet."),
    ("base64-of-prose", "Payload " + base64.b64encode(b"hello world, this is a test").decode()),
    ("hex-of-prose", "Hex " + b"hello world, this is a test".hex() + " is only text."),
    ("pod-name", "Pod web-7d4b9c8f5d-x2x9k restarted twice."),
    (
        "password-hash",
        "Stored as $argon2id$v=19$m=65536,t=3,p=4$" + rand(B64, 22) + "$" + rand(B64, 43),
    ),
    ("cache-key", "The pip cache key is Linux-pip-" + rand(HEX, 64)),
    ("public-name", f"public_key: {rand(B64, 44)}"),
    ("masked", f"The key looks like {'tv' + 'ly-'}{rand(ALNUM, 8)}xxxxxxxxxxxxxxxxxxxx"),
]


@pytest.mark.parametrize("text", [pytest.param(text, id=name) for name, text in HARMLESS])
def test_harmless_shapes_are_not_findings(secret_shapes, text: str) -> None:
    assert secret_shapes.scan("m.md", [text]) == []


def test_a_harmless_fact_is_stored(host: Path) -> None:
    body = "\n".join(text for _, text in HARMLESS[:8])

    assert_exit(fact(host, "Pinned artifacts", body=body), 0)


WORDS = st.sampled_from(
    [
        "the",
        "deploy",
        "job",
        "cache",
        "runs",
        "after",
        "merge",
        "and",
        "tags",
        "a",
        "release",
        "for",
        "each",
        "service",
        "repo",
    ]
)
PROSE = st.lists(WORDS, min_size=1, max_size=8).map(" ".join)
SHA = st.sampled_from([7, 8, 12, 40, 64]).flatmap(
    lambda size: st.text("0123456789abcdef", min_size=size, max_size=size)
)
SEMVER = st.tuples(*[st.integers(0, 999)] * 3, st.sampled_from(["", "-rc.1", "-beta2", "+b7"])).map(
    lambda v: f"v{v[0]}.{v[1]}.{v[2]}{v[3]}"
)
PATH = st.lists(
    st.from_regex(r"[a-z][a-z0-9_-]{0,14}", fullmatch=True), min_size=2, max_size=6
).map(lambda parts: "/".join(parts) + ".py")
HARMLESS_TOKEN = st.one_of(SHA, st.uuids().map(str), SEMVER, PATH, PROSE)


@settings(max_examples=300)  # cheap: no render per example
@given(parts=st.lists(HARMLESS_TOKEN, min_size=1, max_size=6))
def test_hashes_uuids_versions_paths_and_prose_pass(secret_shapes, parts: list[str]) -> None:
    assert secret_shapes.scan("m.md", [" ".join(parts) + "."]) == []


# -- cost: counted in steps, never timed ----------------------------------------------------


def _counting(monkeypatch, module, name: str) -> list[int]:
    calls = [0]
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_runs_are_judged_once_each_so_the_work_grows_linearly(secret_shapes, monkeypatch):
    from ecomem.rules import secret_randomness

    judged = _counting(monkeypatch, secret_randomness, "judge")
    line = " ".join(f"{'tv' + 'ly-'}{rand(ALNUM, 24)}" for _ in range(4))

    counts = []
    for copies in (50, 100, 200):
        judged[0] = 0
        secret_shapes.scan("m.md", [line] * copies)
        counts.append(judged[0])

    assert counts == [200, 400, 800]


def test_one_long_word_of_runs_is_read_once(secret_shapes, monkeypatch):
    # Runs glued by colons into one word: each run is judged once, and the word is
    # asked whether it is a placeholder once, not once per run.
    from ecomem.rules import secret_randomness

    judged = _counting(monkeypatch, secret_randomness, "judge")
    asked = _counting(monkeypatch, secret_shapes, "_is_placeholder")
    token = "tv" + "ly-" + rand(ALNUM, 24)

    counts = []
    for copies in (100, 200, 400):
        judged[0] = asked[0] = 0
        secret_shapes.scan("m.md", [":".join([token] * copies)])
        counts.append((judged[0], asked[0]))

    assert counts == [(100, 1), (200, 1), (400, 1)]


def test_a_line_of_halves_joins_at_most_a_fixed_number_of_pairs(secret_shapes, monkeypatch):
    from ecomem.rules import secret_randomness

    joined = _counting(monkeypatch, secret_shapes, "judge")
    halves = " ".join(f"{'gh' + 'p_'}{rand(ALNUM, 6)} {rand(ALNUM, 6)}" for _ in range(500))

    secret_shapes.scan("m.md", [halves + " " + "a" * 20])

    assert joined[0] <= secret_randomness.JOIN_LIMIT**2


def test_decoding_stops_at_its_limit(secret_shapes, monkeypatch):
    from ecomem.rules import secret_randomness

    wrapped = ("gh" + "p_" + rand(ALNUM, 36)).encode().hex()
    long_run = wrapped * (secret_randomness.DECODE_LIMIT // len(wrapped) + 1)

    assert [f.rule for f in secret_shapes.scan("m.md", [wrapped])] == ["secret.github-token"]
    # Past the limit a run is data, not read as text (and pure hex is no key).
    assert secret_randomness.decoded_text(long_run) is None
