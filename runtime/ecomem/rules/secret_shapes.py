"""Credentials pasted into memory: match the shape of a value, never the mention of one.

"Rotate the database password monthly" names a secret; `ghp_` plus 36 characters is one.
Provider families (providers.py) are prefixes and structures that real credentials carry;
the rules here add those without a prefix: private keys, AWS secret keys by name, passwords
in URLs and credential headers. Every value is checked against placeholders
(`<your-key>`, `${TOKEN}`, `xxxx`, `EXAMPLE`) so that documentation stays quiet.
The catch-all `secret.generic-assignment` asks the randomness judge
(secret_randomness.looks_random) on top, because a name like `key =` says nothing about
whether the value after it is real. A label that does name a credential ("the API key
is", `password:`) makes its value one whatever its shape (`secret.labelled-value`).

Messages show at most a public prefix (`ghp_…`) and never a password or key body.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate

from ..findings import ERROR, Finding
from ..lazy_re import lazy
from ..text.normalise import judged_lines, judged_lowered
from .providers import BY_PREFIX, FAMILIES, MIN_TOKEN_LENGTH, Family
from .secret_randomness import (
    JOIN_LIMIT,
    class_switches,
    classes,
    entropy,
    is_wordy,
    judge,
    judged_runs,
    looks_random,
)

FIX = "delete it from memory and rotate it; record where the secret is kept, never its value"

# Values that are obviously stand-ins: template syntax (`${TOKEN}`, `$(cmd)`, a value that
# is a `$VARIABLE`; a `$` inside a value is just a character), elisions, masks, repeated
# characters, counting sequences and the words documentation uses for fake values.
_PLACEHOLDER = lazy(
    r"[<>{}]|\$[{(]|^\$|\.\.\.|…|\*\*\*|(.)\1{5,}|x{4,}|0123456|123456789|abcdefg"
    r"|example|changeme|change[-_]me|placeholder|redacted|dummy|sample|your[-_]?"
    r"|insert[-_]|replace[-_]|fake|here$",
    re.IGNORECASE,
)
# A prefix inside a longer word (`task-`, `xAKIA`) is not the start of a token.
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")

# AWS secrets have no prefix, so the name they are assigned to must say what they are.
# In a setting (`aws_secret_access_key = …`) or in prose ("the AWS secret key is …").
_AWS_SECRET = lazy(
    r"(?P<name>(?i:aws[\w. -]{0,20}?secret[\w.-]{0,20}(?:[ \t]+(?:access[ \t]+)?key)?"
    r"|secret[_. -]?access[_. -]?key[\w.-]{0,10}))"
    r"[\"'`]?[ \t]*(?:[:=]|=>|:=|[ \t](?i:is|was|reads|of)[ \t])[ \t]*[\"'`]?"
    r"(?P<body>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
)

# A PEM header alone is a mention ("the file starts with -----BEGIN ... PRIVATE KEY-----");
# a header followed by base64 body, on the same line (JSON `\n`) or the next ones, is a key.
_PEM_HEADER = lazy(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_BODY = lazy(r"^(?:\\r)?(?:\\n)?[A-Za-z0-9+/=]{20,}")
_PEM_PREAMBLE = lazy(r"^[A-Za-z-]+: ")  # Proc-Type:, DEK-Info: in encrypted PEM
_QUOTE_PREFIX = " \t>#/;*"
_KEY_LINES = 300  # a 16384-bit RSA key in PEM is about 200 lines

# Starts at the literal `://`, which the regex engine finds fast; the scheme is read
# backwards afterwards. Commas and colons end a password: `host:1,other:2@` lists hosts.
_URL_CREDENTIALS = lazy(
    r"://(?P<user>[^\s:/@\"'`]{0,100}):(?P<password>[^\s/@\"'`:,]{1,200})@(?=[A-Za-z0-9\[])"
)
_SCHEME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+.-")
# A password that is only a word documentation writes there (`user:password@`,
# `admin:your_pass123@`): the whole password, so `Spass4Word!x` is judged as a password.
_PLACEHOLDER_PASSWORD = lazy(
    r"(?:my|your|the|some|db|app)?[-_]?"
    r"(?:pass(?:word|wd|phrase)?|pwd|pw|secret|token|user(?:name)?|login|changeme|example"
    r"|hidden|none|null|test|admin|root|foo|bar|x+|\*+)[-_]?[0-9]{0,3}",
    re.IGNORECASE,
)

_AUTH_HEADER = lazy(
    r"(?i:authorization)[\"']?[ \t]*[:=][ \t]*[fF]?[\"'`]?"
    r"(?P<scheme>(?i:bearer|basic|token))[ \t]+(?P<value>[^\s\"'`,;]+)"
)

# The generic rule anchors on a credential word inside a name, then reads the value
# after `=`, `:`, `:=` or `=>` (or `is`, `was`, `reads` in prose). `auth(?!or)` keeps
# `author:` out. It runs on lowercased
# text (much faster than IGNORECASE) and reads the value back from the original.
_ASSIGNMENT = lazy(
    r"(?:key|token|secret|passw(?:or)?d|passphrase|pwd|credentials?|auth(?!or))"
    r"(?P<rest>[\w.-]{0,40})[\"']?[ \t]*(?:[:?]?=|=>|:|(?<=[ \t])(?P<prose>is|was|reads)[ \t])(?![=:/])"
    r"[ \t]*(?:\*\*|__)?[ \t]*(?P<quote>[\"'`]?)(?P<value>[^\s\"'`<>(){}\[\],;|\\&%]{1,300})"
)
# In prose ("the API key is 3f2a…") a credential word alone says too little: "the cache
# key is …" names a hash. There a qualifier must stand before it, or the word is a password.
_PROSE_QUALIFIER = lazy(
    r"(?:api|access|secret|auth|bearer|client|signing|deploy|service|personal|admin)[ _-]?$"
)
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
# Names holding things that look random but are not secret: public keys, cache keys, ids.
_NOT_SECRET_NAME = lazy(
    r"public|pubkey|cache|sort|partition|primary|foreign|fingerprint|checksum|digest|commit|idempotency"
    r"|(?:id|ids|name|path|file|dir|url|uri|type|len|length|size|env|var|field|header|prefix"
    r"|format|hash|sha|count|version|expiry|expires|ttl|timeout|domain|host|endpoint|region"
    r"|issuer|audience|scope|method|mode|provider|user|username|email|tenant|realm|label)$",
    re.IGNORECASE,
)
# A quote ends a value too: in `curl -H 'X-Api-Key: VALUE'` the quote closes the header.
# Credentials given as command-line flags: `docker login -u ci -p VALUE`, `mysql -pVALUE`,
# `sshpass -p VALUE`, `curl -u user:pass`, `--password VALUE`. `-p` alone is a port or a
# parents flag elsewhere, so it counts only after the commands that take a password.
_CLI_SECRET = lazy(
    r"\b(?:docker|podman|buildah|skopeo|helm|oras|nerdctl)[ \t]+(?:registry[ \t]+)?login\b"
    r"[^\n]{0,200}?[ \t](?P<flag>-p|--password)(?:[ \t]+|=)(?P<value>[^\s]+)"
    r"|\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n]{0,200}?[ \t]-p(?P<attached>[^\s]+)"
    r"|\bsshpass[ \t]+-p[ \t]*(?P<sshpass>[^\s]+)"
    r"|\b(?:curl|wget|http|https)\b[^\n]{0,300}?[ \t](?:-u|--user)[ \t]+[\"']?"
    r"(?P<user>[^\s:\"']+):(?P<userpass>[^\s\"']+)"
)
_CLI_COMMANDS = ("docker", "podman", "buildah", "skopeo", "helm", "oras", "nerdctl", "mysql")
_CLI_COMMANDS += ("mariadb", "sshpass", "curl", "wget", "http")
# A line's last run of these characters, read from its end (in the reversed text, after
# the newline that ends it): letters, then a digit, `_`, `~`, `:` or `-`.
_LINE_END_DIGIT = lazy(r"\n[A-Za-z]*[0-9_~:-]")
_SAS_SIGNATURE = lazy(r"[?&]sig=(?P<value>[A-Za-z0-9%+/=]{30,200})")
_VALUE_ENDS = frozenset(" \t\n\"'`<>(){}[],;|\\")  # where a password-named value ends
_END_OF_VALUE = frozenset(" \t\n,;)]}|&'\"`")
_EMAIL = lazy(r"^[^@]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+$")
_WORD_JOINS = lazy(r"[-_.]")  # what joins the words of a name or a passphrase
_GENERIC_MIN_LENGTH = 16  # a word this long may hold a token
_WORD_SHAPE = bytes(ord(" ") if chr(i) in " \t\n\r\x0b\x0c" else ord("a") for i in range(256))
_HEX = lazy(r"[0-9a-fA-F-]+")
_ASCII_LOWER = {ord(c): ord(c.lower()) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}
# Words that may hold a random run, and the halves of a split token (URL-safe runs of
# four or more, after a word boundary; never a part of a URL, a path or base64).
_LONG_WORD = b"a" * _GENERIC_MIN_LENGTH
_WORD = lazy(r"[^ \t\n\r\x0b\x0c]{16,}")
_SPLIT_PART = lazy(r"(?<![A-Za-z0-9_./:@+=-])[A-Za-z0-9][A-Za-z0-9_.-]{3,199}")
_GENERIC_HINTS = ("key", "token", "secret", "passw", "passphrase", "pwd", "credential", "auth")

# A label that names a credential: a password or passphrase, or a key, token or secret of
# a kind that is always secret (API, access, licence, private, client...). The label
# decides, not the value's shape: a UUID, a passphrase of words or a licence key in dashed
# groups is as secret as random text once the label says so. The nouns are found first
# (a scan the engine runs fast on their first letters), then a qualifier before the noun
# and the value after it. "The Heroku API key for the pipeline is ..." puts words between
# the label and its value: up to four, after a preposition ("key id is", "key rotation
# is" name something else).
_LABEL_NOUN = lazy(r"passw(?:or)?d|passphrase|pass[ _-]?code|key|token|secret|pass|pwd|pw")
_LABEL_QUALIFIER = lazy(
    r"(?<![a-z0-9])(?:api|access|secret|licen[cs]e|product|serial|activation|registration"
    r"|private|signing|encryption|master|client|admin|service|auth|bearer|bot|refresh"
    r"|session|shared|deploy|webhook|hmac)[ _-]?$"
)
# "pass", "pw" and "pwd" are everyday words and a shell command ("the second pass",
# "pwd: /srv"): they label a password only after the name of an account or a system.
_SHORT_NOUNS = ("pass", "pwd", "pw")
_ACCOUNT_QUALIFIER = lazy(
    r"(?<![a-z0-9])(?:db|database|root|admin|user|login|account|sudo|wifi|wi-fi|ssh|ftp|smtp"
    r"|mysql|postgres|redis|staging|prod|production|dev|server|vpn|email|mail)[ _-]?$"
)
_LABEL_VALUE = lazy(
    # a short aside after the label: "the signing secret (HMAC) we use"
    r"(?:[ \t]*\([^()\n]{1,30}\))?"
    r"(?:[ \t]+(?:for|of|on|in|at|from|used|that|we|our)(?:[ \t]+[\w.'-]{1,30}){0,4}?)?"
    r"[\"'`*]*(?:[ \t]+(?:is|was|reads)(?:[ \t]*:)?|[ \t]*(?::=|=>|[:=]))[ \t]*"
    # a quoted phrase whole: "mellon friend gate" is a passphrase of three words
    r"(?:(?P<quote>[\"'])(?P<phrase>[a-z0-9][a-z0-9 !&.,-]{7,80}?)(?P=quote)|[\"'`*]*[ \t]*"
    r"(?P<value>[^\s\"'`(){}\[\],;|\\]{1,300}))"
)
# "admin credentials are bob / Hunter2-Summer!": a login and its password, split by a slash
# or a colon; the password is judged as any labelled value is.
_CREDENTIAL_PAIR = lazy(
    r"(?<![a-z0-9])(?:credentials?|creds|login)(?:[ \t]+(?:for|of|on|to)(?:[ \t]+[\w.'-]{1,30}){1,3}?)?"
    r"(?:[ \t]+(?:are|is|were|was)(?:[ \t]*:)?|[ \t]*[:=])[ \t]*[\"'`]?"
    r"[\w.@+-]{1,64}[ \t]*[/:][ \t]*(?P<value>[^\s\"'`(){}\[\],;|\\]{1,300})"
)
_LABEL_HINTS = ("passw", "passphrase", "passcode", "pass", "key", "token", "secret", "pw", "cred")
_LABEL_HINTS += ("login",)


def scan(path: str, lines: list[str], decode: bool = True) -> list[Finding]:
    """Findings for a document's lines. `decode` False judges text that was itself
    decoded from a hex or base64 run: what that text decodes to is not decoded again."""
    text, lines = judged_lines(lines)  # text/normalise.py
    lowered = _lower_same_length(text, judged_lowered(lines))
    line_of = _LineIndex(text)
    hits: dict = {}  # (line, rule) -> message; one finding per family per line

    def report(offset: int, rule: str, message: str) -> None:
        hits.setdefault((line_of(offset), rule), message)

    # Every token, AWS secret and generic value is a word of 16 characters or more, and
    # prose has few: an entry without one skips those rules.
    spans = list(_word_spans(text))
    long_words = [text[start:end] for start, end in spans]
    for family, start, match in _family_matches(text, long_words):
        body = match.group("body")
        if _is_placeholder(body) or classes(body) < family.min_classes:
            continue
        if family.rule == "secret.jwt" and _is_sample_jwt(match.group()):
            continue
        # Show only the public prefix the token starts with (`ghp_`), if it starts with one.
        shown = next((p for p in family.prefixes if text.startswith(p, start)), "")
        what = f"{family.what} ({shown}…)" if shown else family.what
        report(start, family.rule, f"{what}: {FIX}")
    # A token wrapped across lines (a terminal or an editor broke it) is read glued back.
    if "\n" in text:
        glued, line_at = _glued(lines)
        if glued is not None:
            for family, start, match in _family_matches(glued, _long_words(glued)):
                body = match.group("body")
                line = line_at(start)
                if line == line_at(match.end() - 1):
                    continue  # on one line: the pass above judged it
                if _is_placeholder(body) or classes(body) < family.min_classes:
                    continue
                message = f"{family.what}, wrapped across lines: {FIX}"
                hits.setdefault((line, family.rule), message)

    # The name holds "aws ... secret" or "secret access key"; the 40-character value sits in
    # a word at least that long.
    if (
        "secret" in lowered
        and ("aws" in lowered or "access" in lowered)
        and any(len(word) >= 40 for word in long_words)
    ):
        for match in _AWS_SECRET.finditer(text):
            body = match.group("body")
            if not _is_placeholder(body) and classes(body) == 3:
                message = f"AWS secret access key in {match['name']!r}: {FIX}"
                report(match.start(), "secret.aws-secret-key", message)

    key_body_lines = set()  # a reported key's base64 lines: random, and reported already
    if "PRIVATE KEY" in text:
        for line in _private_key_lines(lines):
            hits.setdefault((line, "secret.private-key"), f"private key block: {FIX}")
            key_body_lines.update(_key_body(lines, line))
    if "://" in text:
        for match in _URL_CREDENTIALS.finditer(text):
            start = match.start()
            while start and text[start - 1] in _SCHEME_CHARS:
                start -= 1
            scheme = text[start : match.start()]
            if text[max(0, start - 2) : start] == "{{":  # `{{mysql://user:pass@host}}` template
                continue
            if scheme[:1].isalpha() and _real_password(match["user"], match["password"]):
                message = f"URL with a password ({scheme}://{match['user']}:…@): {FIX}"
                report(start, "secret.url-credentials", message)
    if "authorization" in lowered:
        for match in _AUTH_HEADER.finditer(text):
            if _real_header_value(match.group("scheme"), match.group("value")):
                shown = f"Authorization: {match.group('scheme')} …"
                report(match.start(), "secret.auth-header", f"credential header ({shown}): {FIX}")
    if "passw" in lowered or "pwd" in lowered or "passphrase" in lowered:
        for offset, name in _short_passwords(text, lowered):
            hits.setdefault(
                (line_of(offset), "secret.generic-assignment"),
                (f"password assigned to {name!r}: {FIX}"),
            )
    # Every command-line form passes `-p`, `--password`, `-u` or `--user`: two substring
    # tests spare the fourteen command names on text without such a flag.
    if ("-p" in lowered or "-u" in lowered) and any(
        command in lowered for command in _CLI_COMMANDS
    ):
        flagged_lines = {line for line, _ in hits}  # a token there is already reported
        for match in _CLI_SECRET.finditer(text):
            groups = ("value", "attached", "sshpass", "userpass")
            value = next((match.group(group) for group in groups if match.group(group)), "")
            if line_of(match.start()) in flagged_lines:
                continue
            if _real_flag_value(match.group("user") or "", value):
                message = f"credential on a command line ({match.group().split()[0]} …): {FIX}"
                report(match.start(), "secret.command-line", message)
    if "sig=" in lowered:
        for match in _SAS_SIGNATURE.finditer(text):
            value = match.group("value")
            if not _is_placeholder(value) and classes(value) >= 2:
                report(
                    match.start(), "secret.sas-signature", f"shared access signature (sig=…): {FIX}"
                )
    if long_words and any(hint in lowered for hint in _GENERIC_HINTS):
        flagged_lines = {line for line, _ in hits}  # a line already reported needs no catch-all
        for offset, name in _generic_assignments(text, lowered):
            line = line_of(offset)
            if line not in flagged_lines:
                message = f"high-entropy value assigned to {name!r}: {FIX}"
                hits.setdefault((line, "secret.generic-assignment"), message)

    # Last: keys with no label a rule above reads, by their randomness, decoded and joined
    # (rules/secret_randomness.py). A line already reported needs no second finding.
    if long_words:
        flagged_lines = {line for line, _ in hits} | key_body_lines
        for offset, rule, message in _unlabelled(path, text, spans, decode):
            line = line_of(offset)
            if line not in flagged_lines:
                flagged_lines.add(line)
                hits.setdefault((line, rule), message)

    # A value a credential label names, whatever its shape, on a line no rule above reported.
    if any(hint in lowered for hint in _LABEL_HINTS):
        flagged_lines = {line for line, _ in hits}
        for offset, label in _labelled_values(text, lowered):
            line = line_of(offset)
            if line not in flagged_lines:
                message = f"a value the label {label!r} names as a credential: {FIX}"
                hits.setdefault((line, "secret.labelled-value"), message)

    return sorted(
        Finding(path, line, rule, ERROR, message) for (line, rule), message in hits.items()
    )


def _unlabelled(
    path: str, text: str, spans: list[tuple[int, int]], decode: bool
) -> Iterator[tuple[int, str, str]]:
    """(offset, rule, message) for random runs, hex or base64 wrapping a credential and
    tokens split in two in a line. Only long words hold a run, and only lines with one
    are searched for the halves of a split token."""
    line_end = -1  # where the line last searched for a split token ends
    for start, end in spans:
        placeholder = None  # whether the word is a stand-in, asked once it matters
        for offset, run, (kind, detail) in judged_runs(text, start, end):
            if placeholder is None:
                placeholder = _is_placeholder(text[start:end])
            if placeholder:
                break
            if kind == "random":
                shown = f" ({detail}…)" if detail else ""
                yield offset, "secret.random-token", f"random-looking token{shown}: {FIX}"
            elif decode:
                inner = scan(path, detail.split("\n"), decode=False)
                if inner:
                    wrapping = "hex" if _HEX.fullmatch(run) else "base64"
                    what = inner[0].message.rsplit(": ", 1)[0]
                    yield offset, inner[0].rule, f"{what}, {wrapping}-encoded: {FIX}"
        if start > line_end:  # a new line: the search back stops at its start
            line_start = text.rfind("\n", 0, start) + 1
            line_end = text.find("\n", start)
            line_end = len(text) if line_end == -1 else line_end
            found = _split_token(text, line_start, line_end)
            if found is not None:
                yield found


def _random_half(part: str) -> bool:
    """Whether a part could be half a token: four characters or more mixing classes as
    random text does (a digit, or capitals past the first), and no word (`Friday`)."""
    if len(part) < 4 or "." in part or is_wordy(part):
        return False  # a word, or a file name or version (`import-2.1.0-py3`)
    upper = sum(c.isupper() for c in part)
    return classes(part) >= 2 and (any(c.isdigit() for c in part) or upper >= 2)


def _word_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every word of 16 characters or more between ASCII whitespace (a
    token, an AWS secret and a generic value are such words, a random run needs 20).

    Found in the text's shape (ASCII whitespace ` `, anything else `a`) with bytes.find:
    a Python loop over every word of an entry costs more than all the secret rules. Text
    that is not ASCII (rare in a long word's entry) is searched with a pattern instead,
    since its byte offsets are not its character offsets."""
    raw = text.encode("utf-8", "surrogatepass")
    if len(raw) != len(text):  # not ASCII: offsets in bytes are not offsets in text
        for match in _WORD.finditer(text):
            yield match.span()
        return
    shape = raw.translate(_WORD_SHAPE)
    start = shape.find(_LONG_WORD)  # the leftmost hit is where a run of them begins
    while start != -1:
        end = shape.find(b" ", start)
        end = len(shape) if end == -1 else end
        yield start, end
        start = shape.find(_LONG_WORD, end)


def _split_token(text: str, start: int, end: int) -> tuple[int, str, str] | None:
    """A token whose two halves the line holds apart ("starts ghp_… and ends …"): a
    fragment that opens with a family's prefix but is too short for it, joined to a
    random-looking run later in the line, makes the family's token or a random one."""
    fragments, runs = [], []
    for match in _SPLIT_PART.finditer(text, start, end):
        part = match.group().rstrip(".")
        # The cheap test first: most parts open with no prefix's first two characters.
        # The part after the prefix must look random too: `pattern` opens with `pat`.
        headed = part[:3] in _PREFIX_HEADS or part[:2] in _PREFIX_HEADS
        if (
            headed
            and len(fragments) < JOIN_LIMIT
            and any(
                part.startswith(prefix) and _random_half(part[len(prefix) :])
                for prefix in _PREFIXES_BY_FIRST[part[0]]
            )
        ):
            fragments.append((match.start(), part))
        elif fragments and len(runs) < JOIN_LIMIT and _random_half(part):
            runs.append(part)
    for offset, fragment in fragments:
        for run in runs:
            joined = fragment + run
            if _is_placeholder(joined):
                continue
            for family, at, match in _family_matches(joined, [joined]):
                if at == 0 and match.end() > len(fragment):
                    shown = next((p for p in family.prefixes if joined.startswith(p)), "")
                    message = f"{family.what} ({shown}…), split in two: {FIX}"
                    return offset, family.rule, message
            verdict = judge(joined)
            if verdict is not None and verdict[0] == "random":
                message = f"random-looking token, split in two: {FIX}"
                return offset, "secret.random-token", message
    return None


def _long_words(text: str) -> list[str]:
    """Every word of 16 or more characters (see _word_spans)."""
    return [text[start:end] for start, end in _word_spans(text)]


# Prefixes by their first character: a word is searched only for the prefixes that open
# with one of its characters, a handful where all 226 cost a substring test each
# (that loop was a tenth of a full-caps verify).
def _by_first_character(prefixes) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for prefix in prefixes:
        grouped.setdefault(prefix[0], []).append(prefix)
    return grouped


_PREFIXES_BY_FIRST = _by_first_character(BY_PREFIX)
# The first three characters of every prefix (two for the two-character ones), the
# cheap test a part passes before its prefixes are tried one by one.
_PREFIX_HEADS = frozenset(prefix[:3] for prefix in BY_PREFIX)


def _prefixes_in(words: str) -> list[str]:
    """Every key of BY_PREFIX that occurs in `words`."""
    firsts = _PREFIXES_BY_FIRST.keys() & set(words)
    return [prefix for first in firsts for prefix in _PREFIXES_BY_FIRST[first] if prefix in words]


def _family_matches(
    text: str, long_words: list[str]
) -> Iterator[tuple[Family, int, re.Match[str]]]:
    """(family, offset where the token starts, match) for each token at a word boundary.

    Tokens are long words, so only words of MIN_TOKEN_LENGTH or more are searched for
    prefixes: prose has few, and a family whose prefix is absent never compiles its
    pattern. The pattern then runs on the whole text, for offsets.
    """
    words = [word for word in long_words if len(word) >= MIN_TOKEN_LENGTH]
    if not words:
        return
    # Only families whose prefix is there run.
    hits = set()
    for prefix in _prefixes_in("\n".join(words)):
        hits.update(BY_PREFIX[prefix])
    for index in sorted(hits):
        family = FAMILIES[index]
        for match in family.pattern.finditer(text):
            start = match.start()
            if start and text[start - 1] in _TOKEN_CHARS:
                continue
            yield family, start, match


def _private_key_lines(lines: list[str]) -> list[int]:
    found = []
    for index, line in enumerate(lines):
        header = _PEM_HEADER.search(line)
        if not header:
            continue
        # The body follows on the same line (JSON `\n`) or after a few header lines and a blank.
        following = [line[header.end() :].lstrip()]
        # A quoted (`> `) or commented (`# `, `// `) key is still a key.
        following += [later.lstrip(_QUOTE_PREFIX).strip() for later in lines[index + 1 : index + 6]]
        for candidate in following:
            if _PEM_BODY.match(candidate):
                found.append(index + 1)
                break
            if candidate and not _PEM_PREAMBLE.match(candidate):
                break
    return found


def _key_body(lines: list[str], header: int) -> Iterator[int]:
    """The 1-based lines after a private key's header line up to its END line or the
    blank line after its body (at most _KEY_LINES): slices of the key's base64."""
    body = False
    for number in range(header + 1, min(len(lines), header + _KEY_LINES) + 1):
        line = lines[number - 1]
        stripped = line.lstrip(_QUOTE_PREFIX).strip()
        if not stripped:
            if body:
                return
            continue
        yield number
        if "-----END" in line:
            return
        body = body or _PEM_BODY.match(stripped) is not None


def _is_sample_jwt(token: str) -> bool:
    """Whether a JWT is jwt.io's sample, which tutorials paste: its payload names
    subject 1234567890, "John Doe". Its signature key is printed beside it, so it
    opens nothing; docs/verify.md lists it with the other known test values."""
    import base64  # here: few entries hold a JWT
    import binascii

    payload = token.split(".")[1].rstrip(".,;")
    try:
        decoded = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    except (binascii.Error, ValueError):
        return False
    compact = decoded.replace(b" ", b"")
    return b'"sub":"1234567890"' in compact and b'"name":"JohnDoe"' in compact


def _real_password(user: str, password: str) -> bool:
    # Brackets must be percent-encoded in a URL's user part: `[:password]` is syntax help.
    if (
        "[" in password
        or "]" in password
        or password == user
        or _is_placeholder(password)
        or _PLACEHOLDER_PASSWORD.fullmatch(password)
    ):
        return False
    if password.isdigit() and len(password) <= 5:  # host:port@ in a malformed URL, not a secret
        return False
    return len(password) >= 3


def _real_header_value(scheme: str, value: str) -> bool:
    if _is_placeholder(value):
        return False
    if scheme.lower() == "basic":
        # Basic is base64 of `user:password`, so decode it and judge the password.
        import base64  # here, not at start-up: few entries hold an Authorization header
        import binascii

        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return False
        user, colon, password = decoded.partition(":")
        return bool(colon) and _real_password(user, password)
    return len(value) >= 16 and classes(value) >= 2 and entropy(value) >= 3.0


def _lower_same_length(text: str, lowered: str | None = None) -> str:
    """Lowercase text whose offsets still match `text` (str.lower turns `İ` into two);
    `lowered` is text.lower() if it was made already."""
    lowered = text.lower() if lowered is None else lowered
    return lowered if len(lowered) == len(text) else text.translate(_ASCII_LOWER)


def _generic_assignments(text: str, lowered: str) -> list[tuple[int, str]]:
    """(offset, name) for each credential-named assignment whose value looks random."""
    found = []
    for match in _ASSIGNMENT.finditer(lowered):
        start = match.start()
        while start and text[start - 1] in _NAME_CHARS:
            start -= 1
        name = text[start : match.end("rest")]
        value = text[match.start("value") : match.end("value")]
        if match.group("prose"):
            word = match.start()
            if not lowered.startswith(("passw", "passphrase"), word) and not (
                _PROSE_QUALIFIER.search(lowered, max(0, word - 12), word)
            ):
                continue
            value = value.rstrip(".")  # the sentence ends, the value does not go on
        quote = match.group("quote")
        after = text[match.end() : match.end() + 1]
        if quote:
            if after != quote:  # a quoted value with spaces or template syntax inside
                continue
        elif after and after not in _END_OF_VALUE:  # `get_token()`, `os.environ[...]`
            continue
        if _NOT_SECRET_NAME.search(name) or not _looks_random(value):
            continue
        found.append((start, name))
    return found


def _labelled_values(text: str, lowered: str) -> list[tuple[int, str]]:
    """(offset, label) for each value a credential label names that is a value rather than
    words about one (_names_no_value)."""
    found = []
    for noun in _LABEL_NOUN.finditer(lowered):
        start = noun.start()
        if noun.group() in _SHORT_NOUNS:
            if lowered[noun.end() : noun.end() + 1].isalnum():
                continue  # "passes", "pwned"
            qualifier = _ACCOUNT_QUALIFIER.search(lowered, max(0, start - 16), start)
            if qualifier is None or (start and lowered[start - 1].isalnum()):
                continue
            start = qualifier.start()
        elif noun.group()[0] in "kts":  # a key, token or secret: only of a credential's kind
            qualifier = _LABEL_QUALIFIER.search(lowered, max(0, start - 16), start)
            if qualifier is None:
                continue
            start = qualifier.start()
        elif start and lowered[start - 1].isalnum():
            continue  # inside a word
        match = _LABEL_VALUE.match(lowered, noun.end())
        if match is None:
            continue
        if match.group("phrase") is not None:
            phrase = text[match.start("phrase") : match.end("phrase")]
            if not _names_no_phrase(phrase):
                found.append((start, text[start : noun.end()]))
            continue
        value = text[match.start("value") : match.end("value")].rstrip(".,:;!?*'\"`")
        if not _names_no_value(value):
            found.append((start, text[start : noun.end()]))
    for pair in _CREDENTIAL_PAIR.finditer(lowered):
        value = text[pair.start("value") : pair.end("value")].rstrip(".,:;?*'\"`")
        if _looks_like_a_password(value):
            found.append((pair.start(), text[pair.start() : pair.start("value")].split()[0]))
    return found


def _looks_like_a_password(value: str) -> bool:
    """The second half of a login pair is a password unless it is a stand-in, a reference
    or too short: a chosen password mixes in a digit, a sign or a capital ("Hunter2-Summer!"),
    where words about one ("in 1Password" aside) are plain lowercase."""
    if len(value) < 6 or _is_placeholder(value) or _PLACEHOLDER_PASSWORD.fullmatch(value):
        return False
    if value[:1] in "$%~@&/\\<{" or _EMAIL.match(value):
        return False
    return classes(value) + any(not c.isalnum() for c in value) >= 2


def _names_no_phrase(phrase: str) -> bool:
    """Whether a quoted phrase after a credential label is a stand-in or says where the
    value is kept ("see 1Password", "in the vault") rather than being a passphrase."""
    words = phrase.lower().split()
    if len(words) < 2:
        return _names_no_value(phrase)
    if _is_placeholder(phrase) or _PLACEHOLDER_PASSWORD.fullmatch(phrase.replace(" ", "")):
        return True
    return bool(set(words) & _WHERE_WORDS)


# Words that say where a credential is kept or how it is made, not what it is.
_WHERE_WORDS = frozenset(
    [
        "see",
        "in",
        "from",
        "stored",
        "kept",
        "vault",
        "1password",
        "env",
        "environment",
        "variable",
        "set",
        "ask",
        "generated",
        "rotated",
        "your",
        "the",
        "redacted",
        "hidden",
        "secret",
    ]
)


def _names_no_value(value: str) -> bool:
    """Whether what follows a credential label is no credential: a word or a few ("is
    required", "is stored in Vault", "is auto-generated"), a stand-in (`<your-key>`,
    `***`, `${API_KEY}`, `changeme`), a reference to where it is kept (a path, a variable,
    an attribute such as `settings.API_KEY`, a YAML tag, an email), or too short to be one.
    Anything else is a value, however it is shaped: a UUID, digits, dashed groups, and
    four or more words joined by dashes (a passphrase)."""
    if value.endswith("'s"):
        value = value[:-2]
    if len(value) < 6 or _is_placeholder(value) or _PLACEHOLDER_PASSWORD.fullmatch(value):
        return True
    if value[:1] in "$%~@!&/\\" or "/" in value or _EMAIL.match(value):
        return True
    if value.startswith(("ssh-", "ecdsa-", "sk-ssh-", "sk-ecdsa-")):
        return True  # an SSH public key's algorithm: the key that follows is public
    if value.isalpha():
        return True
    parts = [part for part in _WORD_JOINS.split(value) if part]
    if len(parts) < 2 or not all(part.isalpha() or is_wordy(part) for part in parts):
        return False  # one word with digits or signs ("hunter2"), or parts no word spells
    return value.count("-") < 3  # "per-user", "base64-encoded"; four words: a passphrase


def _glued(lines: list[str]):
    """(the text with each line whose last word holds a token prefix joined to the next
    line's leading run, a function from an offset in it to a 1-based line); (None, None)
    when no line is joined. Only the last words of lines are searched for prefixes."""
    tails = _line_end_tokens(lines)  # 0-based line -> its last word, where a token may be cut
    if not tails:
        return None, None
    words = "\n".join(tails.values())
    present = _prefixes_in(words)
    cuts = {n for n, word in tails.items() if any(prefix in word for prefix in present)}
    if not cuts:
        return None, None
    parts, starts, offset = [], [], 0
    for number, line in enumerate(lines):
        if number - 1 in cuts:
            line = line.lstrip(_QUOTE_PREFIX)  # the token goes on after `> ` or `# `
        starts.append(offset)
        piece = (
            line
            if number in cuts and lines[number + 1].lstrip(_QUOTE_PREFIX)[:1] in (_TOKEN_CHARS)
            else line + "\n"
        )
        parts.append(piece)
        offset += len(piece)

    def line_at(at: int) -> int:
        return bisect_right(starts, at)

    return "".join(parts), line_at


def _line_end_tokens(lines: list[str]) -> dict[int, str]:
    """{0-based line: its last word} for every line but the last whose last word (after
    its last space) is 4 to 199 token characters and holds a digit, `_` or `-`: every
    token prefix but an upper-case one does, and token bodies have digits.

    Such a word is the line's last run of token characters. The lines are found from
    their ends: in the reversed text each line's end follows a newline, a literal the
    regex engine finds fast, where a pattern tried at every digit and dash of an entry
    cost about 4% of a full-caps verify."""
    text = "\n".join(lines)
    backwards = text[::-1]
    tails = {}
    line, counted = None, 0  # the line of the last word kept; newlines counted up to `counted`
    for match in _LINE_END_DIGIT.finditer(backwards):
        after = match.start() + 1  # where the line's reversed text begins
        row_end = backwards.find("\n", after)
        row_end = len(backwards) if row_end == -1 else row_end
        space = backwards.find(" ", after, row_end)
        word = backwards[after : row_end if space == -1 else space][::-1]
        if 4 <= len(word) < 200 and _TOKEN_CHARS.issuperset(word):
            if line is None:  # the first word kept: its line, counted from the end
                line = text.count("\n")
            line -= backwards.count("\n", counted, after)
            counted = after
            tails[line] = word
    return tails


def _short_passwords(text: str, lowered: str) -> list[tuple[int, str]]:
    """(offset, name) for a password-named setting whose value, read up to the next space
    or quote (`&` and `%` are a password's characters) and 8 to 15 characters long (or
    holding `&` or `%`), mixes character classes the way a chosen password does. Other
    long values are the generic rule's."""
    found = []
    for match in _ASSIGNMENT.finditer(lowered):
        if not lowered.startswith(("passw", "passphrase", "pwd"), match.start()):
            continue
        if match.group("prose") or (match.group("quote") and "&" not in match.group("value")):
            continue  # prose and quoted values: the generic rule reads them whole
        start = match.start()
        while start and text[start - 1] in _NAME_CHARS:
            start -= 1
        name = text[start : match.end("rest")]
        end = match.start("value")
        while end < len(text) and end - match.start("value") <= 40 and text[end] not in _VALUE_ENDS:
            end += 1
        value = text[match.start("value") : end]
        # The generic rule reads a value only to `&` or `%`: with one, any length is ours.
        cut = "&" in value or "%" in value
        if _NOT_SECRET_NAME.search(name) or not 8 <= len(value) < (41 if cut else 16):
            continue
        if name.lower() in ("pwd", "oldpwd") or value[:1] in "/~." or "/" in value:
            continue  # the shell's working folder; a path is no password
        if _looks_chosen(value):
            found.append((start, name))
    return found


def _looks_chosen(value: str) -> bool:
    """A password, not a word: three classes (or two and a symbol), switching often."""
    if _is_placeholder(value) or _PLACEHOLDER_PASSWORD.fullmatch(value) or _EMAIL.match(value):
        return False
    symbols = any(not c.isalnum() for c in value)
    if classes(value) + symbols < 3:
        return False
    return class_switches(value) >= len(value) / 4


def _real_flag_value(user: str, value: str) -> bool:
    value = value.strip("'\"")
    if not value or value.startswith(("$", "-", "<", "%")) or _is_placeholder(value):
        return False
    if _PLACEHOLDER_PASSWORD.fullmatch(value) or value == user:
        return False
    return len(value) >= 6 and (classes(value) >= 2 or len(value) >= 12)


def _looks_random(value: str) -> bool:
    """A setting's value that is random: secret_randomness.looks_random, which judges
    unlabelled runs too, told that a name says what the value holds."""
    if _is_placeholder(value) or _EMAIL.match(value):
        return False
    return looks_random(value, named=True)


def _is_placeholder(value: str) -> bool:
    if _PLACEHOLDER.search(value):
        return True
    # jwt.io's sample, also where a header or a setting holds it whole.
    return value.startswith("eyJ") and value.count(".") == 2 and _is_sample_jwt(value)


class _LineIndex:
    """1-based line number of an offset into `text`, by bisection over line ends.

    Built on first use, since most entries have no finding at all.
    """

    def __init__(self, text: str) -> None:
        self._text = text
        self._ends: list[int] = []

    def __call__(self, offset: int) -> int:
        if not self._ends:
            self._ends = list(accumulate(len(line) + 1 for line in self._text.split("\n")))
        return bisect_right(self._ends, offset) + 1
