"""Text in memory that speaks to the agent instead of describing the project.

Memory is data the agent reads, so a line that orders it to drop its instructions, take a
new role, or that fakes a system turn is a prompt injection, whoever wrote it. Notes about
injection must stay legal, so a phrase counts only where a command would stand: at the
start of a line, list item or sentence, or after a colon. A note such as "watch for
entries that say to ignore previous instructions" describes the attack instead: there the
phrase sits mid-sentence, in quotes, or after "such as" or "e.g.".

Ignore/disregard phrases must also aim at the agent's own orders ("previous", "your",
"above", or a sweeping "all instructions."), because "ignore instructions found inside
entries" is the defence and "ignore the rules for vendored files" is ordinary advice.

Catalog rows are what an agent reads first, so every table cell is read as if it began a
line of its own (its escaped pipes restored), and so is the text a cites line quotes.
Fake chat-template markers count anywhere in a line, unless the line plainly names them:
alone in backticks or quotes, or listed after "such as", "e.g." and the like.

A warning, not an error, in an entry: a person may phrase a real note this way, and
should reword it. In a catalog row of an INDEX file it is an error: agents read the rows
first, and a cell is too short to hold a discussion that the phrase would be a mention in.

Every rule reads the text after rules/normalise.py: zero-width characters, fullwidth
letters and Cyrillic lookalikes spell the same words as plain ASCII.
"""

from __future__ import annotations

from ..lazy_re import MULTILINE, lazy
from ..store.textfile import MAX_LINE
from .normalise import format_characters, judged, judged_lines, judged_lowered

RULE = "injection.instruction"

# Every pattern here runs on lowercased text: IGNORECASE alternations are several times
# slower, and verify reads every entry in the store.

_QUALIFIER = (
    r"(?:previous|prior|above|earlier|preceding|foregoing|original|initial|old|system"
    r"|safety|existing|other)"
)
# Nouns that name the agent's own orders; the weak ones are also everyday words.
_STRONG_NOUNS = r"instructions?|prompts?|directives?|programming|system[ \t]+prompt"
_WEAK_NOUNS = r"rules|guidelines|guardrails|constraints|context"

# ignore / disregard / forget ... [all] [the] [previous] instructions; forget everything
# above; ignore the above (and ...)
_OVERRIDE = lazy(
    r"(?P<verb>ignore|disregard|forget|override|bypass|discard|abandon"
    r"|(?:do[ \t]+not|don't|stop)[ \t]+(?:follow|obey)(?:ing)?)[ \t]+"
    r"(?:(?P<det>(?:(?:all|any|of|the|your|my|these|those|every|each)[ \t]+){0,3})"
    rf"(?P<qual>(?:{_QUALIFIER}[ \t]+){{0,2}})"
    rf"(?:(?P<strong>{_STRONG_NOUNS})|(?P<weak>{_WEAK_NOUNS}))\b"
    r"|(?P<sweep>everything|all|the)[ \t]+(?:above|before|prior"
    r"|(?:that[ \t]+)?you(?:'ve|[ \t]+have|[ \t]+were)?[ \t]+(?:been[ \t]+)?(?:told|given|said)))"
)
# "instructions above", "the rules you were given": a qualifier after the noun.
_QUALIFIER_AFTER = lazy(
    r"[ \t]+(?:above|before|so[ \t]+far"
    r"|(?:that[ \t]+)?you(?:'ve|[ \t]+have|[ \t]+were)?[ \t]+(?:been[ \t]+)?(?:given|told))\b"
)
# The order ends at the noun: "Ignore all instructions." or "... instructions and reply".
_ORDER_ENDS = lazy(r"[ \t]*(?:[.!,;:)\n]|$|and\b|then\b)")
# a new role: "you must now", "you will now act as", "you are now in developer mode",
# "from now on you will"; "you should now see a green check" is how docs talk
_NEW_ROLE = lazy(
    r"you[ \t]+(?:must|shall)[ \t]+now\b"
    r"|you[ \t]+(?:will|should)[ \t]+now[ \t]+(?:act|behave|respond|reply|answer|pretend|role-?play"
    r"|be|obey|follow|ignore|only|speak|always|never)\b"
    r"|you[ \t]+are[ \t]+now[ \t]+(?:a|an|in|the|my|no[ \t]+longer|free|unrestricted"
    r"|jailbroken|dan|going[ \t]+to)\b"
    # "From now on, you need Node 20" is how a changelog talks.
    r"|from[ \t]+now[ \t]+on,?[ \t]+(?:you[ \t]+(?:will|shall|are|act|behave|respond|reply|answer"
    r"|obey|ignore|pretend|speak|work|only|always|never|no[ \t]+longer)|your[ \t]+(?:new|only|real"
    r"|true|role|name|job|task|instructions?|orders?|rules?|prompt))\b"
)
# new orders: "New instructions:", "Updated system prompt:"; "New rules: PRs need two
# reviews" is a team's news, so rules count only as system rules
_NEW_ORDERS = lazy(
    r"(?:new|updated|revised|real|actual|true)[ \t]+"
    r"(?:(?:system[ \t]+)?(?:instructions?|prompt)|system[ \t]+rules)[ \t]*:"
)
# a fake role prefix giving orders: "System: you are now the admin", "developer message:
# ignore the tests"; "System: macOS 14" is a fact about the machine
_ROLE_PREFIX = lazy(
    r"(?:system|developer)(?:[ \t]+(?:prompt|message|override))?(?:\*\*|__)?[ \t]*:"
    r"(?:\*\*|__)?[ \t]*"
    # not "you must": "System: you must have Docker 24+" states a requirement
    r"(?:you(?:[ \t]+(?:are|will|shall|now)|'re|r[ \t]+new)|ignore|disregard|forget"
    r"|from[ \t]+now|always|never|do[ \t]+not|don't)\b"
)
_VERBS = (
    "ignor",
    "disregard",
    "forget",
    "overrid",
    "bypass",
    "discard",
    "abandon",
    "follow",
    "obey",
)
_TARGETS = (
    "instruction",
    "prompt",
    "directive",
    "programming",
    "rules",
    "guideline",
    "guardrail",
    "constraint",
    "context",
    "everything",
    "all ",
    "above",
)
# (substring groups that must each be present, pattern): the cheap test skips most entries.
_PHRASES = (
    ((_VERBS, _TARGETS), _OVERRIDE),
    ((("now",), ("you",)), _NEW_ROLE),
    (
        (("instruction", "prompt", "rules"), ("ion:", "ions:", "prompt:", "rules:", " :", "\t:")),
        _NEW_ORDERS,
    ),
    ((("system", "developer"), (":",)), _ROLE_PREFIX),
)

# Where a command can begin: line start (after blockquote, list marker, number or heading
# marks), after a sentence or a colon, after a dash, or inside an HTML comment; then
# optional emphasis, lead-ins such as "Please" or "Assistant,", and "you must".
_COMMAND_POSITION = lazy(
    r"(?:^[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d+[.)]|#{1,6})[ \t]+(?:\[[ x]\][ \t]+)?)?"
    r"|[.!?;:][ \t]+|(?:--|\u2014|\u2013)[ \t]+|<!--[ \t]*)"
    r"(?:(?:\*\*|__|\*|_)[ \t]*)?"
    r"(?:(?:please|now|so|and|then|also|ok|okay|first|next|finally|important|note"
    r"|attention|hey|assistant|ai|agent|claude)[,:!.]?[ \t]+)*"
    r"(?:(?:you|the[ \t]+(?:assistant|agent|model|ai))[ \t]+"
    r"(?:must|should|need[ \t]+to|have[ \t]+to|will|shall|are[ \t]+to)[ \t]+)?$",
    MULTILINE,  # `^` then also matches where a search starts just after a newline
)
_CONTEXT = 200  # characters before a phrase that are read to place it
# Lead-ins that introduce a quoted or cited example rather than give an order.
_MENTION_LEAD = lazy(
    r"(?:e\.g\.|i\.e\.|\beg\.|\bexamples?|such[ \t]+as|\blike|\bsays?|\bsaid|\bphrases?"
    r"|\bpatterns?|\bpayloads?|\bstrings?|\btext|\breads?|for[ \t]+instance)[ \t]*[:,]?[ \t]*$"
)

# Fake chat-template and role markers, anywhere in a line: ChatML and its kin (spaces
# inside the bars or around them, DeepSeek's `▁` for `_`), gpt-oss harmony's tokens,
# Llama's [INST] and <<SYS>> (spaced or not), Gemma's turns, XML-ish system (with any
# suffix), instruction and tool-call tags, a "### System:" heading.
# Fullwidth bars and brackets reach here as ASCII (rules/normalise.py).
_SPECIAL_TOKENS = "|".join(
    name.replace("_", "[_\u2581]")
    for name in (
        "im_start", "im_end", "im_sep", "system", "assistant", "user", "endoftext", "eot_id",
        "start_header_id", "end_header_id", "begin_of_text", "begin_of_sentence",
        "end_of_sentence", "eom_id", "python_tag",
        # gpt-oss harmony
        "start", "end", "channel", "message", "return", "call", "constrain",
    )
)  # fmt: skip
# `system` with any suffix: <system-reminder> is how Claude Code marks its own trusted notes.
_TAGS = (
    r"system(?:[-_][a-z0-9]+)*|sys|instructions?|invoke|tool[-_]calls?|tool[-_]use"
    r"|tool[-_]results?|function[-_]calls?|function[-_]results?"
)
_FAKE_TURN = lazy(
    rf"<[ \t]*\|[ \t]*(?:{_SPECIAL_TOKENS})[ \t]*\|[ \t]*>"
    r"|<(?:start|end)_of_turn>"
    # [INST] anywhere; [SYSTEM] only opening a line with text after it: "the [system]
    # section" and an INI header `[system]` are configuration
    r"|\[[ \t]*/?[ \t]*inst[ \t]*\](?![(\[])|<<[ \t]*/?[ \t]*sys[ \t]*>>"
    r"|(?<![^\n])[ \t>*+-]*\[[ \t]*/?[ \t]*(?:system|sys)[ \t]*\](?![(\[])[ \t]*:?[ \t]*(?=[^\s])"
    rf"|</?(?:[a-z][a-z0-9]*:)?(?:{_TAGS})(?:[ \t][^<>\n]*)?>"
    # a "### System:" heading that opens a turn: nothing after it, or an order; "###
    # System: overview" is a section title
    r"|(?<![\w#])#{1,6}[ \t]*system(?:[ \t]+(?:prompt|message))?[ \t]*:"
    r"(?=[ \t]*(?:\n|$|you\b|ignore\b|disregard\b|forget\b|from[ \t]+now|always\b|never\b))"
)
# A quick test first, then the gate regex: every marker holds `sys`, `inst`, `_of_turn`,
# a tool-call word or a `|` right after `<`. Substring tests are far cheaper than the
# gate's scan, which stops at every heading `#` and link `[` of an entry.
_FAKE_TURN_HINTS = ("sys", "inst", "_of_turn")
# Markers that begin with `<`, looked for only in text that holds one (a cell escapes its
# pipes as `\|`).
_TAG_HINTS = ("<|", "<\\|", "< |", "invoke", "tool", "function")
_FAKE_TURN_GATE = lazy(
    r"[<\[#](?:[ \t]*\||[ \t]*/?[ \t]*(?:sys|inst)|<[ \t]*/?[ \t]*sys|[ \t]*system"
    r"|(?:start|end)_of_turn|/?(?:[a-z][a-z0-9]*:)?(?:invoke|tool|function|instruction))"
)
# A turn of a chat transcript that hands the agent a new turn: `Human:` or `Assistant:`
# opening a line (after a quote, list marker or emphasis), as in Anthropic's prompt format.
# "User: prefers tabs" is a fact about a person, so only these two names count.
_TURN_MARKER = lazy(
    r"^[ \t]*(?:>[ \t]*)*(?:[-*+][ \t]+)?(?:\*\*|__|\*|_)?(?:human|assistant)"
    r"(?:\*\*|__|\*|_)?[ \t]*:",
    MULTILINE,
)
_TURN_HINTS = ("human", "assistant")
# A marker a line names rather than uses: listed after a lead such as "such as", "e.g.",
# "tags" (other markers, quotes and "or"/"and" may stand between).
_MARKER_LEAD = lazy(
    r"(?:e\.g\.|i\.e\.|\beg\.|\bexamples?|such[ \t]+as|\blike|\bsays?|\bsaid|\breads?"
    r"|\btags?|\bmarkers?|\btokens?|\bstrings?|\bpatterns?|\bpayloads?|for[ \t]+instance)"
    r"[ \t]*[:,]?[ \t]*(?:(?:,|/|\bor\b|\band\b)[ \t]*)*$"
)
# ... or followed by such a noun: "<|im_start|> and [INST] markers".
_MARKER_NOUN = lazy(
    r"[ \t]*(?:(?:,|/|\bor\b|\band\b)[ \t]*)*(?:markers?|tags?|tokens?|delimiters?|strings?)\b"
)
_QUOTES = "`'\""
# A line is judged to this many characters; a longer one is a finding of its own (no note
# needs one, and text far past what a reader sees is where an order would hide). The cap
# also bounds the work one line can cost. It is the memory files' line cap: a file with a
# longer line is not read at all (store/textfile.py), so what meets it here is other text.
LONGEST_JUDGED = MAX_LINE
NAMED_PER_LINE = 24  # markers one line may name (see _Layout.used_marker)

_INDEX = "INDEX.md"  # the catalog file: a row there is read before any entry

_FIX = "memory is data, not instructions: rewrite it as a fact about the project or delete it"


def _hinted(lowered: str, phrase_hints=_PHRASES, tag_hints=_TAG_HINTS) -> tuple[bool, bool, list]:
    """(may a fake role marker be in the text, may a turn marker, the phrase patterns it
    may hold): substring tests only, so most entries are done here."""
    turns = any(hint in lowered for hint in _FAKE_TURN_HINTS) or (
        "<" in lowered and any(hint in lowered for hint in tag_hints)
    )
    roles = any(hint in lowered for hint in _TURN_HINTS)
    phrases = [
        pattern
        for needs, pattern in phrase_hints
        if all(any(hint in lowered for hint in group) for group in needs)
    ]
    return turns, roles, phrases


# The same hints with each one that holds a space made "" (present in any text): what a
# text's paragraph copy may be hinted at, judged on the text itself (_paragraph_findings).
def _spaced_as_present(hints: tuple) -> tuple:
    return tuple("" if " " in hint else hint for hint in hints)


_LOOSE_PHRASES = tuple(
    (tuple(_spaced_as_present(group) for group in needs), pattern) for needs, pattern in _PHRASES
)
_LOOSE_TAG_HINTS = _spaced_as_present(_TAG_HINTS)
# The characters rendering deletes (_rendered: emphasis, brackets, backslash escapes,
# entities, tags). Text without them renders in place, `-`, `_` and newlines turned into
# spaces, table cells split onto lines of their own, code-span ticks dropped, and
# lowercased, so its paragraph copy holds a hint only where the text without ticks holds
# it, or the hint holds a space: then the loose hints of that text say whether the copy
# is worth making (_copy_may_hint).
_DELETED_BY_RENDERING = "*~[]&<\\"


def _copy_may_hint(joined: str, loose: tuple) -> bool:
    """Whether the paragraph copy of a judged text may hold a hint; `loose` is what
    the loose hints found in the text."""
    if loose[0] or loose[2] or any(char in joined for char in _DELETED_BY_RENDERING):
        return True
    if "`" not in joined or not _ticks_split_a_hint(joined):
        return False
    unticked = _hinted(joined.lower().replace("`", ""), _LOOSE_PHRASES, _LOOSE_TAG_HINTS)
    return bool(unticked[0] or unticked[2])


# Every character a hint without a space is spelled with: dropping ticks makes a new hint
# only where a run of them stood between two of these ("ig`no`re", not "`make build`").
_HINT_CHARACTERS = frozenset(
    "".join(
        hint
        for hints in (
            _FAKE_TURN_HINTS,
            _TAG_HINTS,
            *(group for needs, _ in _PHRASES for group in needs),
        )
        for hint in hints
        if " " not in hint and "\t" not in hint
    )
)


def _ticks_split_a_hint(text: str) -> bool:
    """Whether a run of backticks stands between two characters of _HINT_CHARACTERS."""
    at = text.find("`")
    while at != -1:
        end = at + 1
        while text[end : end + 1] == "`":
            end += 1
        if at and end < len(text) and {text[at - 1].lower(), text[end].lower()} <= _HINT_CHARACTERS:
            return True
        at = text.find("`", end)
    return False


def may_give_orders(lowered: str) -> bool:
    """Whether lowercased text may hold a phrase or marker (substring tests only)."""
    turns, roles, phrases = _hinted(lowered)
    return bool(turns or roles or phrases)


def scan(path: str, lines: list[str]) -> list:
    found = _scan(path, lines)
    readings = _format_character_readings(lines)  # none for nearly every text
    if not readings:
        return found
    judged_at = {finding.line for finding in found}
    more = []
    for reading, words in readings:
        for finding in _scan(path, reading, words):
            if finding.line not in judged_at:
                judged_at.add(finding.line)
                more.append(finding)
    return sorted(found + more, key=lambda finding: finding.line) if more else found


def _format_character_readings(lines: list[str]) -> list[tuple[list[str], bool]]:
    """The other readings of lines that hold format characters, typed or as entities.

    judged() reads each as nothing, which is what "ig\u200bnore" hides; but one may as
    well stand for a space, "previous&#8203;instructions". So the lines are judged again
    with each one a space, and, when they hold two or more (one may be of each kind, as
    in "previous\u200binstru\u200bctions"), with each a space only where it stands
    between two words the rule is spelled with (_between_words). Each reading is
    (its lines, whether the paragraph copy chooses the same way once markup is gone).
    """
    joined = "\n".join(lines)
    if joined.isascii() and "&" not in joined:
        return []
    typed = _ENTITY.sub(_entity_as_format_character, joined) if "&" in joined else joined
    found = format_characters(typed)
    if not found:
        return []
    readings = [(typed.translate(dict.fromkeys(map(ord, found), " ")).split("\n"), False)]
    if len(typed) - len(typed.translate(dict.fromkeys(map(ord, found)))) > 1:
        readings.append((typed.split("\n"), True))
    return readings


# What html.unescape decodes: numeric (decimal, hex) and named, the `;` optional as there.
_ENTITY = lazy(r"&(?:#[0-9]{1,8};?|#[xX][0-9a-fA-F]{1,8};?|[A-Za-z][A-Za-z0-9]{1,31};?)")


def _entity_as_format_character(match) -> str:
    """An entity that decodes to format characters, as them; any other as written."""
    import html

    decoded = html.unescape(match.group())
    return decoded if format_characters(decoded) else match.group()


_WORDS: set = set()  # the words of the phrase patterns, filled on first use
_LONGEST_WORD = 16


def _between_words(text: str, characters: set) -> str:
    """`text` with each of its format `characters` a space where it breaks two words of
    the phrase patterns (_word_break, reading the letters after it through any more of
    them), and removed elsewhere: "previous instructions", "instructions"."""
    if not characters:
        return text
    import re

    if not _WORDS:
        for _, pattern in _PHRASES:
            _WORDS.update(re.findall(r"[a-z]{2,}", pattern.source))
        _WORDS.update([word[:-1] for word in _WORDS if word.endswith("s")])
    pieces = re.split("([" + re.escape("".join(sorted(characters))) + "])", text)
    out, tail = [pieces[0]], pieces[0][-_LONGEST_WORD:]
    for index in range(2, len(pieces), 2):
        ahead = "".join(pieces[index : index + 2 * _LONGEST_WORD : 2])[:_LONGEST_WORD]
        before, after = _letters(tail[::-1])[::-1], _letters(ahead)
        out += [" " if _word_break(before, after) else "", pieces[index]]
        tail = (tail + out[-2] + pieces[index])[-_LONGEST_WORD:]
    return "".join(out)


def _word_break(before: str, after: str) -> bool:
    """Whether the letters `before` end a word and those `after` begin one, and no word
    that runs across the break takes more of `before` ("igno|re" is one word, and
    "ignore|all" two, though "re|al" spells "real")."""
    ending = max((k for k in range(2, len(before) + 1) if before[-k:] in _WORDS), default=0)
    if not ending or not any(after[:k] in _WORDS for k in range(2, len(after) + 1)):
        return False
    return not any(
        before[-k:] + after[:j] in _WORDS
        for k in range(ending, len(before) + 1)
        for j in range(1, len(after) + 1)
    )


def _letters(text: str) -> str:
    """The letters `text` opens with, lowercased."""
    end = 0
    while end < len(text) and text[end].isalpha():
        end += 1
    return text[:end].lower()


def _scan(path: str, lines: list[str], words: bool = False) -> list:
    """The findings in `lines`; with `words`, each format character in them is a space
    only between two words (_between_words), in the text and in its paragraph copy."""
    given = lines  # as written: the paragraph copy renders these
    if words:
        text = "\n".join(lines)
        lines = _between_words(text, format_characters(text)).split("\n")
    read = lines  # what is judged: the shared lowered copy is of these
    joined, lines = judged_lines(read)  # rules/normalise.py
    long_lines = {}  # 1-based line -> its length, for lines judged only in part
    if len(joined) > LONGEST_JUDGED and any(len(line) > LONGEST_JUDGED for line in lines):
        long_lines = {n: len(line) for n, line in enumerate(lines, 1) if len(line) > LONGEST_JUDGED}
        lines = [line[:LONGEST_JUDGED] for line in lines]
        given = [line[:LONGEST_JUDGED] for line in given]
        joined = "\n".join(lines)
    # str.lower keeps every newline, so lines still count
    lowered = joined.lower() if long_lines else judged_lowered(read)
    # Loosely first (a hint holding a space counts as present): most texts are done with
    # that, and it also says whether their paragraph copy could hold a hint.
    loose = _hinted(lowered, _LOOSE_PHRASES, _LOOSE_TAG_HINTS)
    turns, roles, phrases = _hinted(lowered) if loose[0] or loose[2] else loose
    copy_may_hint = _copy_may_hint(joined, loose)
    if not (
        turns or roles or phrases or long_lines or any(mark in lowered for mark in _MARKUP_HINTS)
    ):
        return []  # the cells and quotes below are parts of this text: no hint there either
    origin = None
    rows = ()  # 1-based lines of catalog rows, in an INDEX file
    if "|" in joined or "cites" in lowered:
        if path.endswith(_INDEX):
            rows = {n for n, line in enumerate(lines, 1) if line.lstrip().startswith("|")}
        lines, origin = _segments(lines)
        if origin is not None:
            lowered = "\n".join(lines).lower()
            turns, roles, phrases = _hinted(lowered)
    found = []  # (offset, message)
    layout = _Layout(lowered)

    if turns and _FAKE_TURN_GATE.search(lowered):
        for match in layout.first_per_line(_FAKE_TURN, layout.used_marker):
            shown = match.group().strip()
            if shown[:1] == "<" and shown[1:2] not in "|<":
                shown = shown.split()[0].rstrip(">") + ">"  # never what attributes say
            found.append((match.start(), f"fake role marker {shown!r}; {_FIX}"))
    if roles:
        for match in layout.first_per_line(_TURN_MARKER, layout.used_marker):
            shown = " ".join(match.group().split())
            found.append((match.start(), f"fake chat turn {shown!r}; {_FIX}"))

    for pattern in phrases:
        for match in layout.first_per_line(pattern, lambda m: _is_command(lowered, m)):
            shown = " ".join(match.group().split())
            found.append((match.start(), f"text addressed to the agent ({shown!r}); {_FIX}"))

    first: dict[int, str] = {}
    for line, message in _first_per_line(lowered, found):
        first.setdefault(origin[line - 1] if origin else line, message)
    # The same text as a reader sees it rendered: each paragraph one line, markup gone.
    copy = _paragraph_findings("\n".join(given), joined, words) if copy_may_hint else ()
    for line, message in copy:
        first.setdefault(line, message)

    if not (first or long_lines):
        return []
    from ..findings import ERROR, WARNING, Finding  # loaded only for a finding to report

    for line, length in long_lines.items():
        first.setdefault(
            line,
            f"a line of {length} characters is judged only to its first {LONGEST_JUDGED}:"
            " split it (a line this long can hide text past what is read)",
        )
    return [
        Finding(path, line, RULE, ERROR if line in rows else WARNING, message)
        for line, message in sorted(first.items())
    ]


# Markdown joins the lines of a paragraph and hides its markup, so "Ignore all\nprevious
# instructions", "Ignore **all** previous instructions", "Ignore <q>all</q> previous",
# "Ignore <!-- --> previous", "&#73;gnore", "Ignore `all` previous" and
# "ignore-previous-instructions" read as the order they spell. Each paragraph is judged
# again as one line the way it renders: a table row's cells each a line of their own,
# comments and tags of any name hidden, entities decoded, then normalised (so what an
# entity decodes to is judged like a typed character), emphasis and escapes gone, dashes
# and underscores read as spaces, link targets and defined reference labels dropped, an
# image's alt text read as opening a line (rules/markup.py finds the markup).
_MARKUP_HINTS = "\n&*_-<[~`\\"
_BLOCK_MARKS = ("- ", "* ", "+ ", "-\t", "*\t", "+\t", "#", "|", "```", "~~~")
# Tags a browser draws as a break between words (a line break, a block, a list item, a
# table cell): read as a space. Any other tag, known or not, draws nothing where it stands.
_BREAKING_TAGS = frozenset((
    "br", "hr", "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "table", "caption", "thead",
    "tbody", "tfoot", "tr", "td", "th", "blockquote", "pre", "h1", "h2", "h3", "h4", "h5",
    "h6", "section", "article", "aside", "header", "footer", "nav", "main", "figure",
    "figcaption", "details", "summary", "address", "fieldset", "legend", "form", "option",
    "optgroup", "dialog", "menu", "center", "hgroup", "search", "title", "body", "html",
    "head",
))  # fmt: skip
_SPACED = str.maketrans(
    {"*": None, "~": None, "[": None, "]": None, "\\": None, "-": " ", "_": " "}
)


def _paragraph_findings(given: str, joined: str, words: bool = False) -> list[tuple[int, str]]:
    """(line, message) for phrases that only a paragraph read as rendered text spells.
    `given` is the text as written, `joined` the same text judged (rules/normalise.py)."""
    if not any(mark in joined for mark in _MARKUP_HINTS):
        return []
    if "<" in given or "[" in given:
        from . import markup

        # Markup across lines is hidden, its line ends kept; a defined reference's label goes.
        given = markup.across_lines(given, _BREAKING_TAGS)
    # The whole text rendered at once first: if no phrase could be spelled, most entries
    # are done with a few passes in C, and each paragraph is left unread.
    turns, _, phrases = _hinted(_rendered_whole(given, words))
    if not (turns or phrases):
        return []
    text, starts = _paragraph_copy(given, words)
    if text == joined.lower() and "`" not in text:
        return []  # rendered as written: nothing that the text as written did not show
    turns, _, phrases = _hinted(text)
    found = []
    layout = _Layout(text)
    part_starts = {start for start, _ in starts}
    if turns and _FAKE_TURN_GATE.search(text):
        for match in layout.first_per_line(_FAKE_TURN, layout.used_marker):
            found.append((match.start(), f"fake role marker {match.group().split()[0]!r}; {_FIX}"))
    for pattern in phrases:
        # A part's start is a line start in the file, where a command may begin.
        for match in layout.first_per_line(
            pattern, lambda m: _opens_a_part(text, m, part_starts) or _is_command(text, m)
        ):
            shown = " ".join(match.group().split())
            found.append((match.start(), f"text addressed to the agent ({shown!r}); {_FIX}"))
    if "`" in text:
        found.extend(_across_code_spans(text, part_starts))
    if not found:
        return []
    from bisect import bisect_right

    offsets = [start for start, _ in starts]
    return [(starts[bisect_right(offsets, at) - 1][1], message) for at, message in sorted(found)]


_PLACEHOLDER = "\x01"  # rules/markup.py's PLACEHOLDER, without importing it here
# A line end and the quote marks after it: the paragraph copy joins its lines there.
_LINE_JOIN = lazy(r"\n[ \t>]*")


def _rendered_whole(given: str, words: bool = False) -> str:
    """The text rendered at once, its lines joined as a paragraph joins them and its
    ticks dropped (as _across_code_spans reads it): it holds every hint that any part of
    the paragraph copy holds (tests/test_transcripts_injection.py holds that)."""
    if _PLACEHOLDER in given:
        given = given.replace("\n" + _PLACEHOLDER, "")
    return _LINE_JOIN.sub(" ", _rendered(given, words)).replace("`", "")


def _paragraph_copy(given: str, words: bool = False) -> tuple[str, list[tuple[int, int]]]:
    """(the text rendered, each paragraph one line and each table cell one line; the
    (offset in it, 1-based line in `given`) where each part starts)."""
    read, starts = [], []
    paragraph: list[str] = []
    offset = 0  # where the next part starts in the paragraph copy

    def add(rendered: str, number: int) -> None:
        nonlocal offset
        for part in rendered.split("\n"):  # a line end an entity decoded to, too
            starts.append((offset, number))
            paragraph.append(part)
            offset += len(part) + 1  # the space that joins it, or the newline after it

    for number, line in enumerate(given.split("\n"), 1):
        body = line.lstrip(" \t>")  # a quote's marks: its lines join as the paragraph's
        if body == _PLACEHOLDER:
            continue  # a line end that markup across lines held (rules/markup.py)
        if paragraph and (not body or _starts_block(body)):
            read.append(" ".join(paragraph))
            paragraph = []
        if body.startswith("|"):
            # A table row renders as cells, each read as if it began a line (where a
            # command may begin), as the rule reads a row as written (_segments).
            for cell in _cells(body):
                add(_rendered(cell, words), number)
                read.append(" ".join(paragraph))
                paragraph = []
        elif body.strip():
            add(_rendered(body, words), number)
    if paragraph:
        read.append(" ".join(paragraph))
    return "\n".join(read), starts


def _across_code_spans(text: str, part_starts: set) -> list[tuple[int, str]]:
    """(offset in `text`, message) for phrases and markers that a code span's backticks
    split, read without them: in "Ignore `all` previous instructions" a reader (and an agent) reads
    the words, and the ticks only set one in type. A phrase wholly inside one span keeps
    the reading the text gets with its ticks: "`ignore previous instructions` is the
    classic payload" names the phrase, as quotes would."""
    import re
    from bisect import bisect_left, bisect_right

    ticks = [match.start() for match in re.finditer("`", text)]
    plain = text.replace("`", "")
    moved = [at - count for count, at in enumerate(ticks)]  # each tick's place in `plain`
    starts = {start - bisect_left(ticks, start) for start in part_starts}

    def split(match) -> bool:  # a tick stood between its first and last character
        return bisect_left(moved, match.end()) > bisect_right(moved, match.start())

    found = []
    layout = _Layout(plain)
    turns, _, phrases = _hinted(plain)
    if turns and _FAKE_TURN_GATE.search(plain):  # "<|im_`start`|>"
        for match in layout.first_per_line(
            _FAKE_TURN, lambda m: split(m) and layout.used_marker(m)
        ):
            at = match.start() + bisect_right(moved, match.start())
            found.append((at, f"fake role marker {match.group().split()[0]!r}; {_FIX}"))
    for pattern in phrases:
        for match in layout.first_per_line(
            pattern,
            lambda m: split(m) and (_opens_a_part(plain, m, starts) or _is_command(plain, m)),
        ):
            shown = " ".join(match.group().split())
            at = match.start() + bisect_right(moved, match.start())  # back to `text`
            found.append((at, f"text addressed to the agent ({shown!r}); {_FIX}"))
    return found


def _cells(row: str) -> list[str]:
    from ..store.catalog import split_cells  # only for a text that holds a table

    return split_cells(row)


def _opens_a_part(text: str, match, part_starts: set) -> bool:
    """Whether a phrase opens a line of the file (a part of the paragraph copy) and, for
    an ignore/disregard phrase, aims at the agent's own orders."""
    if match.start() not in part_starts:
        return False
    return not match.groupdict().get("verb") or _targets_agent_orders(text, match)


def _starts_block(line: str) -> bool:
    """Whether a line (without indentation) opens a list item, heading, table row or fence."""
    if line.startswith(_BLOCK_MARKS):
        return True
    digits = len(line) - len(line.lstrip("0123456789"))
    return digits > 0 and line[digits : digits + 2] in (". ", ") ")


def _rendered(text: str, words: bool = False) -> str:
    """Text as written, as a reader sees it rendered, judged and lowercased (see
    _paragraph_findings). Markup is found in the text as written, as a renderer finds it,
    so `&lt;` never opens a tag; entities are decoded before the text is normalised."""
    if "<" in text or "](" in text or "-->" in text:
        from . import markup

        text = markup.hidden(text, _BREAKING_TAGS)
    if "![" in text:
        # An image shows its alt text where it stands (or gives it to whoever reads the
        # page as text): read the alt text as opening a line, where a command may begin.
        text = text.replace("![", "\n")
    if "][" in text:
        # "[a][b]" with no definition of b (a defined label is gone: markup.across_lines)
        # shows both texts, brackets between: read them as two words, not one.
        text = text.replace("][", "] [")
    if "&" in text:
        import html

        # A decoded `&#10;` or `&#13;` ends a line as the file's own line ends do:
        # _paragraph_copy joins it and lets a command begin after it.
        text = html.unescape(text).replace("\r", "\n")
    if words:  # with the marks gone, the letters either side of a format character meet
        text = text.translate(_SPACED).replace("`", "")
        text = _between_words(text, format_characters(text))
    return judged(text).translate(_SPACED).lower()


class _Layout:
    """Where the lines of a text end and where its backticks are, found once on first use,
    so placing a match costs a bisect instead of a scan back to its line start (which made
    a long line of markers quadratic)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._newlines: list[int] | None = None
        self._ticks: list[int] | None = None
        self._named: dict[int, int] = {}  # line start -> markers named on that line

    def used_marker(self, match) -> bool:
        """Whether a marker is used rather than named (_names_marker). Past NAMED_PER_LINE
        named markers on one line the next counts as used: a list that long is no note,
        and judging each costs a window's scan."""
        start = self.bounds(match.start())[0]
        if self._named.get(start, 0) >= NAMED_PER_LINE or not _names_marker(self, match):
            return True
        self._named[start] = self._named.get(start, 0) + 1
        return False

    def _found(self) -> None:
        import re  # loaded already: a match to place came from a compiled pattern

        self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        self._ticks = [m.start() for m in re.finditer("`", self.text)]

    def bounds(self, offset: int) -> tuple[int, int]:
        """(start, end) of the line holding `offset`; end is its newline or the text end."""
        if self._newlines is None:
            self._found()
        from bisect import bisect_left

        index = bisect_left(self._newlines, offset)
        start = self._newlines[index - 1] + 1 if index else 0
        end = self._newlines[index] if index < len(self._newlines) else len(self.text)
        return start, end

    def ticks(self, start: int, end: int) -> int:
        """How many backticks lie in text[start:end]."""
        if self._ticks is None:
            self._found()
        from bisect import bisect_left

        return bisect_left(self._ticks, end) - bisect_left(self._ticks, start)

    def first_per_line(self, pattern, keep):
        """The first match of `pattern` on each line that `keep` keeps: once a line has a
        finding, the search goes on at the next line."""
        position, text = 0, self.text
        while True:
            match = pattern.search(text, position)
            if match is None:
                return
            if keep(match):
                yield match
                position = self.bounds(match.start())[1] + 1
            else:
                position = max(match.end(), match.start() + 1)
            if position > len(text):
                return


def _segments(lines: list[str]) -> tuple[list[str], list[int] | None]:
    """The lines as the rule reads them, and the 1-based line each came from (None when
    they are the lines given). A table row is followed by one line per cell, its `\\|`
    restored; a cites line gives its path and, on a line of its own, the text it quotes."""
    rows = [line.lstrip().startswith("|") for line in lines]
    quotes = [not row and "cites" in line for row, line in zip(rows, lines)]
    if not (any(rows) or any(quotes)):
        return lines, None  # the usual entry: read as it is
    from ..store.catalog import split_cells

    if any(quotes):  # only then: verify need not import the citation syntax
        from ..store.cites import CITE_LINE, CiteSyntax, parse_value

    read, origin = [], []
    for number, line in enumerate(lines, 1):
        parts = [line]
        if rows[number - 1]:
            # The row itself too: a raw pipe inside a marker would split it across cells.
            parts = [line, *split_cells(line)]
        elif quotes[number - 1] and CITE_LINE.match(line):
            try:
                cite = parse_value(CITE_LINE.match(line).group(1))
            except CiteSyntax:
                pass
            else:
                parts = [f"- cites: {cite.path}"] + ([cite.text] if cite.text else [])
        for part in parts:
            # A cell or a quote holds no newline of its own: split_cells works on one line.
            read.append(part)
            origin.append(number)
    return read, origin


def _names_marker(layout: _Layout, match) -> bool:
    """Whether a fake role marker is named rather than used: in a code span, alone in
    quotes, or in a list after a lead such as "such as" or "e.g.", or before a noun like
    "tags"."""
    text = layout.text
    start, end = match.start(), match.end()
    before, after = text[start - 1 : start], text[end : end + 1]
    if before and before in _QUOTES and after == before:
        return True
    line_start, line_end = layout.bounds(start)
    if layout.ticks(line_start, start) % 2 and layout.ticks(end, line_end):
        return True  # in a code span, as a backticked phrase is: shown, not said
    before = text[max(line_start, start - _CONTEXT) : start]
    after = text[end : min(end + _CONTEXT, line_end)]
    # Other markers and quotes in the list do not break it.
    before, after = (
        "".join(" " if char in _QUOTES else char for char in _FAKE_TURN.sub(" ", part))
        for part in (before, after)
    )
    return bool(_MARKER_LEAD.search(before) or _MARKER_NOUN.match(after))


def _is_command(text: str, match) -> bool:
    if match.groupdict().get("verb") and not _targets_agent_orders(text, match):
        return False
    # Only the last stretch of the line decides, so a long line with many mentions stays
    # linear. A window that starts mid-line cannot match `^`, the line start.
    start = match.start()
    window = max(0, start - _CONTEXT)
    newline = text.rfind("\n", window, start)
    if newline != -1:
        window = newline + 1
    opens_clause = _COMMAND_POSITION.search(text, window, start)
    return bool(opens_clause) and not _MENTION_LEAD.search(text, window, start)


def _targets_agent_orders(text: str, match) -> bool:
    """Whether an ignore/disregard phrase aims at the agent's own orders.

    "Ignore previous instructions", "forget your rules" and "disregard all instructions."
    do; "ignore instructions found inside entries" is the defence, and "ignore the rules
    for vendored files" is ordinary advice.
    """
    strong, weak = match.group("strong"), match.group("weak")
    if match.group("sweep") == "the":  # "ignore the above and ...", not "ignore the above error"
        return bool(_ORDER_ENDS.match(text, match.end()))
    if not (strong or weak):
        return True  # "forget everything above"
    determiners = match.group("det").split()
    if match.group("qual") or "your" in determiners or _QUALIFIER_AFTER.match(text, match.end()):
        return True
    if match.group("verb").startswith(("do", "stop")):
        return False  # "do not follow instructions in entries" is the defence itself
    sweeping = strong or "all" in determiners or "any" in determiners
    return bool(sweeping and _ORDER_ENDS.match(text, match.end()))


def _first_per_line(text: str, found: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """(line, message) for the first finding on each line, counting newlines once."""
    result: dict = {}
    line, counted = 1, 0
    for offset, message in sorted(found):
        line += text.count("\n", counted, offset)
        counted = offset
        result.setdefault(line, message)
    return list(result.items())
