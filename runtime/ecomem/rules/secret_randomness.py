"""Credentials with no label and no known prefix, judged by how random they look.

A key written into a sentence ("search uses tvly-… in CI") has no `KEY=` for the generic
rule to read and, from a provider the table does not list, no prefix for a family. What
it cannot hide is its randomness: a long run that keeps switching between lower case,
upper case and digits and spells no words. This module finds such runs in three forms:

- as written: a token-shaped run of 20 or more random characters, with or without a
  short prefix (`tvly-`, `e2b_`); pure hex and UUIDs count only behind a key prefix
  (`sk-`), since alone they are the hashes and ids facts cite;
- decoded: a run of hex or base64 that decodes to text hands that text back, so that
  every secret rule judges it (an API key written as hex is still an API key);
- joined: a fragment that starts with a provider's prefix but is too short for its
  family, joined to a random run later in the same line ("starts ghp_… and ends …").

`looks_random` is the project's one judge of randomness: secret_shapes.py asks it too,
for the value of a setting whose name holds a credential word (`api_key = …`).

What looks random but is no secret stays allowed: hashes, UUIDs, content digests named
as such (`sha512-…`, `h1:…`, `SHA256:…`), SSH public keys, paths, URLs (the URL rule
reads their passwords), versions, slugs and identifiers. The provider table only names
a finding here; it never decides one.

Work is linear: a run is read a fixed number of times, decoding reads runs of at most
DECODE_LIMIT characters once, and only the text decoded from the line itself is judged
again (never what that decodes to).
"""

from __future__ import annotations

import math
import re
from collections import Counter

from ..lazy_re import lazy

MIN_RANDOM = 20  # characters of random body: shorter runs are ids and abbreviations
NAMED_RANDOM = 16  # the same, for a value whose setting's name says it is a credential
DECODE_LIMIT = 4096  # longer runs are data, not a key someone wrapped
JOIN_LIMIT = 8  # fragments looked at per line when a token is split in two

# A token-shaped run: URL-safe and base64 characters, with dots that join parts
# (`<hex>.<alnum>`); base64 padding only at its end. One character class and a fixed
# tail, so the engine never backtracks further than the run.
_RUN = lazy(r"[A-Za-z0-9_+/.~-]{20,}={0,2}")
# Parts of a piece, split where a prefix ends (`sk-`, `sk-lf-`, `e2b_`, `napi_`).
_PARTS = lazy(r"[-_+~]")
_PREFIX_PART = lazy(r"[a-z][a-z0-9]{0,9}")
# Hex, and `g` + hex as `git describe` writes a commit.
_HEX_PART = lazy(r"(?:0x)?(?:[0-9a-f]*|[0-9A-F]+)|g[0-9a-f]{7,40}")
# A path's part that is an id or a word, where base64 has mixed runs: `0xEDB2C634…`,
# `rsa4096`, `bin`.
_PATH_PART = lazy(r"(?:0x)?[0-9a-fA-F]{8,}|[a-z]{3,}[0-9]*")
# What ends a file name or a host name: an extension or a top-level domain.
_EXTENSION = lazy(r"[a-z][a-z0-9]{0,5}")
# A ULID: 26 upper-case Crockford base32 characters, the first 10 a timestamp.
_ULID = lazy(r"[0-7][0-9A-Z]{25}")
_UUID = lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = lazy(r"[0-9a-f]+|[0-9A-F]+")
_BASE64 = lazy(r"[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+={0,2}")
# Chunks as a reader splits an identifier: a capitalised or lower-case word, an
# upper-case run, a number.
_CHUNK = lazy(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
# A digest that says what it is: Subresource Integrity and Nix (`sha512-`), Go's
# `h1:`, OpenSSH's `SHA256:` fingerprints, `md5-`, `blake3:`.
_DIGEST_LABEL = lazy(r"(?i:sha[0-9]{0,3}|md5|blake[0-9a-z]{0,4}|h1|xxh[0-9]{0,3}|crc32)[-:]$")
# The same name at the start of a run (`sha512-…` is one run).
_DIGEST_START = lazy(r"(?i:sha[0-9]{0,3}|md5|blake[0-9a-z]{0,4}|xxh[0-9]{0,3}|crc32)-")
_SEPARATORS = "-_+/.~="

# Words before a hex or UUID body that say it is a hash or an id, not a key, and words
# that make it a key's. Kept compact, so the formatter stays out of the lists.
# fmt: off
_HASH_WORDS = frozenset((
    "sha", "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "git", "g", "rev", "ref",
    "commit", "hash", "digest", "checksum", "id", "ids", "uid", "gid", "uuid", "pr", "mr",
    "run", "job", "build", "cache", "pip", "npm", "obj", "blob", "tree", "tag", "v", "img",
    "image", "app", "node", "ci", "pkg", "file", "doc", "page", "item", "user", "org", "team",
    "tx", "txn", "req", "request", "trace", "span", "event", "order", "msg", "message",
    "session", "release", "snapshot",
))
_KEY_WORDS = frozenset((
    "sk", "rk", "ak", "key", "keys", "api", "apikey", "token", "tok", "secret", "sec", "pat",
    "auth", "access", "bearer", "priv", "private", "pass", "pwd",
))
# fmt: on
# Names whose value looks random and is public: `public_key: AAAA…`, `commit_sha = …`,
# `request_id: …`. A name that ends in `id` counts, one that only starts with it
# (`identity_token`) does not.
_PUBLIC_NAME = lazy(
    r"(?<![A-Za-z])(?:(?:public|pubkey|fingerprint|checksum|digest|integrity|commit)[\w.-]{0,20}"
    r"|(?:[\w.-]{0,20}(?<![A-Za-z0-9]))?(?:hash|sha[0-9]*|md5|etag|nonce|salt|iv|cid|id|ids|uuid"
    r"|guid))[\"'`]?[ \t]*[:=][ \t]*[\"'`]?$",
    re.IGNORECASE,
)


def judged_runs(text: str, start: int, end: int):
    """(offset, run, verdict) for each token-shaped run of the word text[start:end] (no
    whitespace in it) that is not harmless. verdict is ("decoded", text) for hex or
    base64 that decodes to text, or ("random", shown) for a random run, `shown` being
    the public prefix it starts with (`tvly-`) or ""."""
    if text.find("://", start, end) != -1:
        return  # a URL: its password is the URL rule's, its path and query are ids
    for match in _RUN.finditer(text, start, end):
        run = match.group().rstrip(".")
        offset = match.start()
        leading = len(run) - len(run.lstrip("."))
        run, offset = run[leading:], offset + leading
        if len(run) < MIN_RANDOM:
            continue
        verdict = judge(run)
        if verdict is None:
            continue
        # What stands before the run may say it is public: rarely asked, so asked last.
        if offset and text[offset - 1] in "@$":
            continue  # `user@host`, `name@version`, a password hash's `$argon2id$…$`
        if text.endswith(";base64,", max(0, offset - 30), offset):
            continue  # a data URI: an image's bytes
        if _DIGEST_START.match(run) or _DIGEST_LABEL.search(text, max(0, offset - 10), offset):
            continue
        if _PUBLIC_NAME.search(text, max(0, offset - 40), offset) is None:
            yield offset, run, verdict


def judge(run: str):
    """A verdict for one run (see judged_runs), or None when it is harmless."""
    if "/" in run and _path_like(run):
        return None
    decoded = decoded_text(run)
    if decoded is not None:
        return ("decoded", decoded)
    if _is_public_key(run):
        return None
    if run[:4].lower() == "xn--":
        return None  # an internationalised domain name, spelled in ASCII
    pieces = run.split(".")
    if len(pieces) > 1 and _EXTENSION.fullmatch(pieces[-1]):
        return None  # a file or a host name: `<content hash>.woff2`, `<id>.cloudfront.net`
    if len(pieces) > 1 and not all(len(piece) >= 8 and piece.isalnum() for piece in pieces):
        # A file name, a domain, a version or a wheel's tags: its random parts are judged
        # alone. Only plain runs joined by dots (`<hex>.<key>`) are one token.
        for piece in pieces:
            verdict = _judge_piece(piece)
            if verdict is not None:
                return verdict
        return None
    return _judge_piece(run)


def _judge_piece(piece: str):
    if len(piece) < MIN_RANDOM:
        return None
    parts = _PARTS.split(piece)
    # The prefix: up to three short lower-case words (`sk-lf-`, `e2b_`), never a group of
    # four or more hex digits (a UUID's or hash's first group).
    kept = 0
    for part in parts[:3]:
        if not _PREFIX_PART.fullmatch(part) or (len(part) >= 4 and _HEX.fullmatch(part)):
            break
        kept += 1
    if kept == len(parts):
        return None  # words and separators: a slug
    prefix = piece[: sum(len(part) + 1 for part in parts[:kept])]
    body = piece[len(prefix) :]
    first = parts[0].lower() if kept else ""
    if _ULID.fullmatch(body):
        return None  # an id sorted by time, as UUIDs are ids
    if all(_HEX_PART.fullmatch(part) for part in parts[kept:]):
        # Hashes, UUIDs, `git describe` names and ids are hex; `sk-` + hex is a key, and
        # so is hex behind a short prefix that names no hash (`fc-`, `e2b_`).
        if len(body) < MIN_RANDOM or not prefix:
            return None
        if first in _KEY_WORDS or (
            len(first) <= 4 and first not in _HASH_WORDS and not _UUID.fullmatch(body)
        ):
            return ("random", prefix)
        return None
    rest = parts[kept:]
    words = sum(len(part) for part in rest if is_wordy(part))
    if len(rest) > 1 and (
        3 * words >= len(body)
        or 6 * (len(rest) - 1) >= len(body)
        or all(class_switches(part) <= 3 for part in rest)
    ):
        # An identifier or a slug (`MCC_SetSlowComp`, `TLS_AES_128_CCM_8_SHA256`,
        # `manylinux2014_armv7l`): a third of it words, a sixth separators, or every
        # part a word and a number. Only a part random on its own counts.
        return ("random", prefix) if any(looks_random(part) for part in rest) else None
    if looks_random(body):
        return ("random", prefix)
    return None


def looks_random(body: str, named: bool = False) -> bool:
    """Whether a run reads as a key's random characters rather than words and numbers:
    the one judge of randomness, for a run with no label and, `named`, for the value of a
    setting whose name holds a credential word (secret_shapes.py). The name says what the
    value is, so less is asked of it: NAMED_RANDOM characters, and chance words in it.

    Random base62 changes chunk (a word, a capital run, a number) at about every other
    character and spells few words; identifiers, slugs and versions are long chunks and
    mostly words. Entropy rules out repeats and counting sequences."""
    core = "".join(c for c in body if c not in _SEPARATORS)
    size = len(core)
    least = NAMED_RANDOM if named else MIN_RANDOM
    if len(body) < least or size < least - 4:
        return False
    lower = sum(c.islower() for c in core)
    upper = sum(c.isupper() for c in core)
    if not any(c.isdigit() for c in core) or not (lower or upper):
        return False
    if lower and upper and upper < 0.2 * (lower + upper):
        return False  # CamelCase: a capital starts each word, random text is half capitals
    chunks = _CHUNK.findall(core)
    # Characters spent in pronounceable words of three letters or more.
    wordy = sum(len(chunk) for chunk in chunks if len(chunk) >= 3 and _pronounceable(chunk))
    if lower and upper:
        min_chunks, max_wordy, min_entropy = 0.3, 0.6, 3.5
    else:
        # One letter case: letter runs are longer by chance, so less is asked of them.
        # Numbers in names are whole (`x25519`, `sha512`, `2014`); random digits come
        # one or two at a time.
        numbers = [chunk for chunk in chunks if chunk.isdigit()]
        if sum(map(len, numbers)) >= 3 * len(numbers):
            return False
        min_chunks, max_wordy, min_entropy = 0.24, 0.8, 3.3
    if len(chunks) < min_chunks * size or (wordy > max_wordy * size and not named):
        return False
    return entropy(core) >= min(min_entropy, math.log2(size) - 0.8)


def class_switches(value: str) -> int:
    """How often neighbouring characters change class (lower, upper, digit, other): a word
    with a version (`aarch64`, `armv7l`) a few times, random text every other one."""
    kinds = [
        "l" if c.islower() else "u" if c.isupper() else "d" if c.isdigit() else "o" for c in value
    ]
    return sum(a != b for a, b in zip(kinds, kinds[1:]))


def classes(value: str) -> int:
    """How many of lower case, upper case and digits `value` uses."""
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
    )


def _pronounceable(chunk: str) -> bool:
    """Spelled like a word: a vowel in every six letters or more and no more than three
    consonants in a row, where random letters run to long consonant clusters."""
    vowels, run, longest = 0, 0, 0
    for c in chunk.lower():
        if c in "aeiouy":
            vowels, run = vowels + 1, 0
        else:
            run += 1
            longest = max(longest, run)
    return vowels * 6 >= len(chunk) and longest <= 3


def decoded_text(run: str) -> str | None:
    """The text a hex or base64 run decodes to, or None when it is not such a run or
    decodes to bytes that are no printable text (a hash, a key's raw bytes)."""
    if len(run) > DECODE_LIMIT or len(run) < MIN_RANDOM:
        return None
    raw = None
    if _HEX.fullmatch(run):
        if len(run) % 2 == 0 and len(run) >= 32:
            raw = bytes.fromhex(run)
    elif _BASE64.fullmatch(run):
        import binascii  # here: few entries hold a base64 run

        padded = run.rstrip("=")
        padded = padded.replace("-", "+").replace("_", "/")
        padded += "=" * (-len(padded) % 4)
        try:
            raw = binascii.a2b_base64(padded)
        except (binascii.Error, ValueError):
            return None
    if raw is None or len(raw) < 12:
        return None
    try:
        text = raw.decode("ascii")
    except UnicodeDecodeError:
        return None
    if not "".join(text.split()).isprintable():
        return None  # control characters: bytes, not text
    return text


def _is_public_key(run: str) -> bool:
    """A public key: an OpenSSH key body (base64 of a length-prefixed algorithm name,
    `AAAA` and the encoded `ssh-` or `ecdsa-` name) or an age recipient (`age1…`)."""
    if run.startswith("age1") and len(run) == 62:
        return True  # an age recipient: bech32 of a public key
    return run.startswith(("AAAAB3NzaC1", "AAAAC3NzaC1", "AAAAE2VjZHNh", "AAAAG3NrLXNzaC1"))


def _path_like(run: str) -> bool:
    """A path (`/var/lib/app`, `src/ecomem/rules`, `rsa4096/0xEDB2…`), not base64 with
    slashes in it: it names a file, or has no long part mixing all three classes and
    starts at a root or home, holds a lower-case word or a hex id as one of its parts,
    or is half words or more."""
    if "." in run or "-" in run or "_" in run:
        return True  # base64 with slashes has none of these: a file's dot, a name's dash
    parts = [part for part in run.split("/") if part]
    ids = [_PATH_PART.fullmatch(part) is not None for part in parts]
    if any(len(part) >= 16 and classes(part) == 3 and not id_ for part, id_ in zip(parts, ids)):
        return False  # a long part mixing all three classes is base64, not a folder
    if run.startswith(("/", "~")):
        return True
    if any(ids):
        return True
    return 2 * sum(is_wordy(part) for part in parts) >= len(parts)


def is_wordy(part: str) -> bool:
    """A part spelled in words, as names and folders are (`rules`, `RegEnumValue`,
    `OVERRIDES`), not a random run's slice: three letters or more with at most two
    digits, every letter chunk of three or more pronounceable."""
    letters = sum(c.isalpha() for c in part)
    if letters < 3 or len(part) - letters > 2:
        return False
    chunks = [chunk for chunk in _CHUNK.findall(part) if not chunk.isdigit()]
    return all(len(chunk) < 3 or _pronounceable(chunk) for chunk in chunks) and (
        letters >= 3 * len(chunks) or len(chunks) == 1
    )


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in Counter(value).values())
