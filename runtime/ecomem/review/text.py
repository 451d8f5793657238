"""What the review heuristics read out of an entry: its statements, the words that say
what a statement is about, the values it states, and the repository paths it names.

Memory text is data: it is only split into words here, never run or followed.
"""

from __future__ import annotations

import re

from ..store.fields import read_fields
from ..text.cites import cite_lines
from ..text.markdown import FENCE
from ..text.markup import links, without_links
from ..text.words import GRAMMAR, stem
from . import synonyms

# A value a fact states: a number, a version or a date (port 8000, 3.11, a v-prefixed release, 2026-01-02).
VALUE = re.compile(r"(?<![\w.])v?\d+(?:[.:/-]\d+)*(?![\w])")
# Letters first; digits inside a word keep it an identifier (m0, py311, ec2), not a value.
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'\u2019-]*")
NUMBER_WORDS = {
    "one": "1",
    "two": "2",
    "three": "3",
    "four": "4",
    "five": "5",
    "six": "6",
    "seven": "7",
    "eight": "8",
    "nine": "9",
    "ten": "10",
}
# Contractions that negate, and (below) each typed without its apostrophe, as people
# do; derived, so the spelling checkers hosts run never meet the apostrophe-less forms.
_NEGATING_CONTRACTIONS = (
    "can't",
    "don't",
    "doesn't",
    "isn't",
    "aren't",
    "won't",
    "mustn't",
    "shouldn't",
    "didn't",
)
# Words that turn a statement into its opposite. "no" and "off" count only as words.
NEGATIONS = frozenset(
    [
        *_NEGATING_CONTRACTIONS,
        *(word.replace("'", "") for word in _NEGATING_CONTRACTIONS),
        "not",
        "never",
        "no",
        "none",
        "nothing",
        "nobody",
        "without",
        "disabled",
        "disable",
        "off",
        "false",
        "forbidden",
        "disallowed",
        "cannot",
    ]
)
# Words that carry no subject and no polarity: grammar, modality, quantity.
# The grammar words find drops too (text/words.py), and more that say how, not what.
STOPWORDS = GRAMMAR | frozenset(
    """
    been has have into its so than that their them then there these they this those
    were will you your us me my may can could must should shall would might always
    allowed enabled enable true yes every each all any only just also some more most
    very here now one's it's
    """.split()  # noqa: SIM905 - a word list reads best as words
)
SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")
CODE_SPAN = re.compile(r"`([^`]+)`")


def _phrase_pattern():
    alternatives = "|".join(re.escape(phrase) for phrase, _ in synonyms.PHRASES)
    return re.compile(rf"\b(?:{alternatives})\b", re.IGNORECASE)


PHRASE = _phrase_pattern()
PHRASE_CONCEPT = dict(synonyms.PHRASES)
TOKEN = re.compile(rf"(?P<value>{VALUE.pattern})|(?P<word>{WORD.pattern})")


# A concept's own name is never stemmed: "store" and "stores" both stay "store".
CANONICAL = frozenset(synonyms.WORDS.values()) | frozenset(PHRASE_CONCEPT.values())


def concept(word: str) -> str:
    """One word (lower case) as the concept it names: a synonym's head, else its stem."""
    return synonyms.WORDS.get(word) or (word if word in CANONICAL else stem(word))


def _skipped(word: str) -> bool:
    return word in STOPWORDS or word in synonyms.GENERIC or len(word) < 2


TOOL_NAMES = frozenset(concept(word) for word in synonyms.TOOLS | synonyms.CAPITALISED_TOOLS)
# Words that make a sentence one step of several ("run ruff before every commit"): two
# such sentences naming two tools are two steps, not two answers to one question.
STEP_WORDS = frozenset(["before", "after", "every", "each", "also", "too", "and", "plus"])


class Statement:
    """One sentence, read as a claim: the concepts it is about, the names (tools,
    capitalised or code-quoted words) it states, its numbers with the unit word that
    follows each (`300 seconds`, `port 8000` has none), and its polarity."""

    __slots__ = ("concepts", "names", "negated", "step", "subject", "typed", "values")

    def __init__(self, text: str) -> None:
        text = PHRASE.sub(lambda found: f" {PHRASE_CONCEPT[found.group(0).lower()]} ", text)
        concepts, names, capitalised, typed, values = set(), set(), set(), set(), set()
        negations, inner, start = 0, 0, True
        pending = None  # a number waiting to see whether a unit word follows it
        for match in TOKEN.finditer(text):
            if match.group("value"):
                if pending is not None:
                    typed.add(("", pending))
                pending = match.group("value").lstrip("v")
                values.add(pending)
                start = False
                continue
            raw = match.group("word").strip("'\u2019-")
            word = raw.lower().replace("\u2019", "'")
            if word in NUMBER_WORDS:
                if pending is not None:
                    typed.add(("", pending))
                pending = NUMBER_WORDS[word]
                values.add(pending)
                start = False
                continue
            if word in NEGATIONS or word.endswith("n't"):
                negations += 1
                word = ""
            parts = [part for part in word.split("-") if part and not _skipped(part)]
            if pending is not None:
                typed.add((concept(parts[0]) if parts else "", pending))
                pending = None
            for part in parts:
                if part in NEGATIONS:
                    negations += 1
                    continue
                head = concept(part)
                if part in synonyms.TOOLS or (
                    part in synonyms.CAPITALISED_TOOLS and raw[:1].isupper()
                ):
                    names.add(head)
                elif not start and raw[:1].isupper() and part not in synonyms.WORDS:
                    capitalised.add(head)
                else:
                    concepts.add(head)
                if not start:
                    inner += 1
            start = False
        if pending is not None:
            typed.add(("", pending))
        if len(capitalised) * 2 > inner:
            concepts |= capitalised  # Title Case: capitals say nothing about names
        else:
            names |= capitalised
        for span in CODE_SPAN.findall(text):
            quoted = {
                concept(part) for word in WORD.findall(span.lower()) for part in word.split("-")
            }
            names.update(quoted & concepts)
        concepts -= names
        self.concepts = frozenset(concepts)
        self.names = frozenset(names)
        self.subject = self.concepts | self.names
        self.values = frozenset(values)
        self.typed = frozenset(typed)
        self.negated = negations % 2 == 1
        self.step = any(word.lower() in STEP_WORDS for word in WORD.findall(text))


def prose_lines(lines: list[str]) -> list[str]:
    """The entry's prose: no field or cites lines, no fenced or indented code."""
    skip = set(cite_lines(lines))
    skip.update(index for index, _ in read_fields(lines).values())
    out, fenced = [], False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(FENCE):
            fenced = not fenced
            continue
        if fenced or index in skip or line.startswith(("    ", "\t")) or not stripped:
            continue
        out.append(line)
    return out


def title_of(lines: list[str]) -> str:
    return next((line[2:].strip() for line in lines if line.startswith("# ")), "")


_SAID: dict[str, Statement] = {}  # a sentence repeated across entries is read once


def statements(texts: list[str]) -> list[Statement]:
    """Every sentence of the given texts (a title, a one-liner, body lines)."""
    found = []
    for text in texts:
        text = text.lstrip("#-* ").strip()
        for sentence in SENTENCE_END.split(text):
            if sentence.strip():
                said = _SAID.get(sentence)
                if said is None:
                    said = _SAID[sentence] = Statement(sentence)
                found.append(said)
    return found


def words(found: list[Statement]) -> frozenset[str]:
    """The stemmed content words of statements, values included: what a duplicate shares."""
    bag: set[str] = set()
    for statement in found:
        bag |= statement.subject | statement.values
    return frozenset(bag)


# A path is only judged when its shape says it is one: a known file extension, or (in
# backticks or a link) a slash. Anything with a placeholder or glob character is an
# example, not a claim that the file exists.
EXTENSIONS = frozenset(
    """
    py pyi md rst txt toml yml yaml json jsonc ini cfg conf lock js mjs cjs ts tsx jsx
    vue svelte css scss html sh bash zsh ps1 go rs java kt kts scala rb php c h cc cpp
    hpp cs swift m sql proto graphql tf hcl gradle xml csv mk cmake dockerfile env
    """.split()  # noqa: SIM905 - a word list reads best as words
)
NOT_A_PATH = set("<>{}[]*?$%~|=!@#^&,;'\"()\\ ")
PLACEHOLDER_PARTS = ("path/to/", "example", "your-", "xxx", "...", "…")
# Names that stand for any name: `foo/bar.py`, `x/y`, `NAME/config.yml` are examples.
PLACEHOLDER_WORDS = frozenset(
    """
    foo bar baz qux quux xyz abc x y z a b n name names path dir folder file thing
    something whatever my your some
    """.split()  # noqa: SIM905 - a word list reads best as words
)
# Shapes of git refs, not files: `origin/main`, `feature/login`.
REF_PREFIXES = ("origin/", "upstream/", "refs/", "heads/", "remotes/", "feature/", "feat/")
REF_PREFIXES += ("fix/", "bugfix/", "hotfix/", "release/", "releases/")


def placeholder(token: str) -> bool:
    """Whether a path-shaped token is an example rather than a claim about this repo."""
    parts = [part for part in token.strip("/").split("/") if part not in ("", ".", "..")]
    for part in parts:
        stem_part = part.split(".", 1)[0]
        if stem_part.lower() in PLACEHOLDER_WORDS:
            return True
        if "." not in part and len(stem_part) > 1 and stem_part.isupper():
            return True  # NAME, SERVICE: a slot to fill in
    return "." not in parts[-1] and token.lower().startswith(REF_PREFIXES) if parts else True


BARE = re.compile(r"(?<![\w/.`-])((?:\.?[\w-]+/)+[\w.-]+\.[A-Za-z0-9]+)(?![\w/])")


def path_shaped(token: str, quoted: bool) -> str | None:
    """`token` as a repository path to look up, or None when it is not one to judge."""
    token = token.strip().rstrip(".,:;")
    if not token or "://" in token or token.startswith(("/", "-", "~")):
        return None
    if any(char in NOT_A_PATH for char in token):
        return None
    lowered = token.lower()
    if any(part in lowered for part in PLACEHOLDER_PARTS) or placeholder(token):
        return None
    name = token.rstrip("/").rsplit("/", 1)[-1]
    extension = name.rsplit(".", 1)[-1].lower() if "." in name[1:] else ""
    if extension in EXTENSIONS:
        return token
    if quoted and "/" in token.rstrip("/") and not extension:
        return token  # a folder or an extensionless file named in backticks
    return None


def named_paths(lines: list[str]) -> list[str]:
    """The repository paths a piece of prose names, in order, each once."""
    found: dict[str, None] = {}
    for line in lines:
        if line.lower().lstrip("-* ").startswith("graduates to"):
            continue  # a checklist's future home, not a claim that it exists
        for span in CODE_SPAN.findall(line):
            path = path_shaped(span, quoted=True)
            if path:
                found.setdefault(path)
        for _, _, target in links(line):
            path = path_shaped(target.split("#", 1)[0], quoted=True)
            if path:
                found.setdefault(path)
        plain = without_links(CODE_SPAN.sub(" ", line))
        for match in BARE.finditer(plain):
            path = path_shaped(match.group(1), quoted=False)
            if path:
                found.setdefault(path)
    return list(found)
