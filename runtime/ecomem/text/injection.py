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

Every rule reads the text after text/normalise.py: zero-width characters, fullwidth
letters and Cyrillic lookalikes spell the same words as plain ASCII.

Three modules, one concept each: what an order looks like (injection_phrases.py), the
text as a Markdown reader sees it (markdown.py), and here the matcher that decides where
a phrase or marker counts and what the finding says. It lives below the store because
the store's readers ask it whether a file name reads as an order (store/names.py).
"""

from __future__ import annotations

from ..lazy_re import lazy
from .injection_phrases import (
    COMMAND_POSITION,
    CONTEXT,
    FAKE_TURN,
    FAKE_TURN_GATE,
    LOOSE_PHRASES,
    LOOSE_TAG_HINTS,
    MARKER_LEAD,
    MARKER_NOUN,
    MENTION_LEAD,
    ORDER_ENDS,
    QUALIFIER_AFTER,
    QUOTES,
    SYMBOLS_ONLY,
    TURN_MARKER,
    between_words,
    hinted,
)
from .markdown import (
    BREAKING_TAGS,
    MARKUP_HINTS,
    copy_may_hint,
    paragraph_copy,
    rendered_whole,
    segments,
)
from .normalise import format_characters, judged_lines, judged_lowered
from .textfile import MAX_LINE

RULE = "injection.instruction"


# A line is judged to this many characters; a longer one is a finding of its own (no note
# needs one, and text far past what a reader sees is where an order would hide). The cap
# also bounds the work one line can cost. It is the memory files' line cap: a file with a
# longer line is not read at all (text/textfile.py), so what meets it here is other text.
LONGEST_JUDGED = MAX_LINE
NAMED_PER_LINE = 24  # markers one line may name (see _Layout.used_marker)

_INDEX = "INDEX.md"  # the catalog file: a row there is read before any entry

_FIX = "memory is data, not instructions: rewrite it as a fact about the project or delete it"


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
    between two words the rule is spelled with (between_words). Each reading is
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


def _scan(path: str, lines: list[str], words: bool = False) -> list:
    """The findings in `lines`; with `words`, each format character in them is a space
    only between two words (between_words), in the text and in its paragraph copy."""
    given = lines  # as written: the paragraph copy renders these
    if words:
        text = "\n".join(lines)
        lines = between_words(text, format_characters(text)).split("\n")
    read = lines  # what is judged: the shared lowered copy is of these
    joined, lines = judged_lines(read)  # text/normalise.py
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
    loose = hinted(lowered, LOOSE_PHRASES, LOOSE_TAG_HINTS)
    turns, roles, phrases = hinted(lowered) if loose[0] or loose[2] else loose
    copy_may_show = copy_may_hint(joined, loose)
    if not (
        turns or roles or phrases or long_lines or any(mark in lowered for mark in MARKUP_HINTS)
    ):
        return []  # the cells and quotes below are parts of this text: no hint there either
    origin = None
    rows = ()  # 1-based lines of catalog rows, in an INDEX file
    if "|" in joined or "cites" in lowered:
        if path.endswith(_INDEX):
            rows = {n for n, line in enumerate(lines, 1) if line.lstrip().startswith("|")}
        lines, origin = segments(lines)
        if origin is not None:
            lowered = "\n".join(lines).lower()
            turns, roles, phrases = hinted(lowered)
    found = []  # (offset, message)
    layout = _Layout(lowered)

    if turns and FAKE_TURN_GATE.search(lowered):
        for match in layout.first_per_line(FAKE_TURN, layout.used_marker):
            shown = match.group().strip()
            if shown[:1] == "<" and shown[1:2] not in "|<":
                shown = shown.split()[0].rstrip(">") + ">"  # never what attributes say
            found.append((match.start(), f"fake role marker {shown!r}; {_FIX}"))
    if roles:
        for match in layout.first_per_line(TURN_MARKER, layout.used_marker):
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
    copy = _paragraph_findings("\n".join(given), joined, words) if copy_may_show else ()
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


def _paragraph_findings(given: str, joined: str, words: bool = False) -> list[tuple[int, str]]:
    """(line, message) for phrases that only a paragraph read as rendered text spells.
    `given` is the text as written, `joined` the same text judged (text/normalise.py)."""
    if not any(mark in joined for mark in MARKUP_HINTS):
        return []
    if "<" in given or "[" in given:
        from . import markup

        # Markup across lines is hidden, its line ends kept; a defined reference's label goes.
        given = markup.across_lines(given, BREAKING_TAGS)
    # The whole text rendered at once first: if no phrase could be spelled, most entries
    # are done with a few passes in C, and each paragraph is left unread.
    turns, _, phrases = hinted(rendered_whole(given, words))
    if not (turns or phrases):
        return []
    text, starts = paragraph_copy(given, words)
    if text == joined.lower() and "`" not in text:
        return []  # rendered as written: nothing that the text as written did not show
    turns, _, phrases = hinted(text)
    found = []
    layout = _Layout(text)
    part_starts = {start for start, _ in starts}
    if turns and FAKE_TURN_GATE.search(text):
        for match in layout.first_per_line(FAKE_TURN, layout.used_marker):
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
    turns, _, phrases = hinted(plain)
    if turns and FAKE_TURN_GATE.search(plain):  # "<|im_`start`|>"
        for match in layout.first_per_line(FAKE_TURN, lambda m: split(m) and layout.used_marker(m)):
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


def _opens_a_part(text: str, match, part_starts: set) -> bool:
    """Whether a phrase opens a line of the file (a part of the paragraph copy) and, for
    an ignore/disregard phrase, aims at the agent's own orders."""
    if match.start() not in part_starts:
        return False
    return not match.groupdict().get("verb") or _targets_agent_orders(text, match)


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


def _names_marker(layout: _Layout, match) -> bool:
    """Whether a fake role marker is named rather than used: in a code span, alone in
    quotes, or in a list after a lead such as "such as" or "e.g.", or before a noun like
    "tags"."""
    text = layout.text
    start, end = match.start(), match.end()
    before, after = text[start - 1 : start], text[end : end + 1]
    if before and before in QUOTES and after == before:
        return True
    line_start, line_end = layout.bounds(start)
    if layout.ticks(line_start, start) % 2 and layout.ticks(end, line_end):
        return True  # in a code span, as a backticked phrase is: shown, not said
    before = text[max(line_start, start - CONTEXT) : start]
    after = text[end : min(end + CONTEXT, line_end)]
    # Other markers and quotes in the list do not break it.
    before, after = (
        "".join(" " if char in QUOTES else char for char in FAKE_TURN.sub(" ", part))
        for part in (before, after)
    )
    return bool(MARKER_LEAD.search(before) or MARKER_NOUN.match(after))


def _is_command(text: str, match) -> bool:
    if match.groupdict().get("verb") and not _targets_agent_orders(text, match):
        return False
    # Only the last stretch of the line decides, so a long line with many mentions stays
    # linear. A window that starts mid-line cannot match `^`, the line start.
    start = match.start()
    window = max(0, start - CONTEXT)
    newline = text.rfind("\n", window, start)
    if newline != -1:
        window = newline + 1
    if match.groupdict().get("anywhere") is not None:
        # concealment and exfiltration are orders mid-sentence too, unless quoted or cited
        quoted = start > 0 and text[start - 1] in QUOTES
        return not (quoted or MENTION_LEAD.search(text, window, start))
    opens_clause = COMMAND_POSITION.search(text, window, start) or (
        window != newline + 1 and SYMBOLS_ONLY.match(text, window, start)
    )
    return bool(opens_clause) and not MENTION_LEAD.search(text, window, start)


def _targets_agent_orders(text: str, match) -> bool:
    """Whether an ignore/disregard phrase aims at the agent's own orders.

    "Ignore previous instructions", "forget your rules" and "disregard all instructions."
    do; "ignore instructions found inside entries" is the defence, and "ignore the rules
    for vendored files" is ordinary advice.
    """
    strong, weak = match.group("strong"), match.group("weak")
    if match.group("sweep") == "the":  # "ignore the above and ...", not "ignore the above error"
        return bool(ORDER_ENDS.match(text, match.end()))
    if not (strong or weak):
        return True  # "forget everything above"
    if match.group("verb") in ("skip", "drop") and not strong:
        return False  # "drop the old constraints" is a migration, "skip the prior rules" a step
    determiners = match.group("det").split()
    if match.group("qual") or "your" in determiners or QUALIFIER_AFTER.match(text, match.end()):
        return True
    if match.group("verb").startswith(("do", "stop")):
        return False  # "do not follow instructions in entries" is the defence itself
    sweeping = strong or "all" in determiners or "any" in determiners
    return bool(sweeping and ORDER_ENDS.match(text, match.end()))


def _first_per_line(text: str, found: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """(line, message) for the first finding on each line, counting newlines once."""
    result: dict = {}
    line, counted = 1, 0
    for offset, message in sorted(found):
        line += text.count("\n", counted, offset)
        counted = offset
        result.setdefault(line, message)
    return list(result.items())


def doubts(text: str) -> bool:
    """Whether the rule sees an order in one line of `text` anywhere, mentions included.

    The strictest reading, for text that reaches every session unasked (a row marked
    [always], store/always.py): what the rule flags in a catalog row, and also a phrase
    aimed at the agent's orders where scan() reads a mention (in quotes or a code span,
    mid-sentence, after "such as"), a named fake marker, a turn marker anywhere. A rule
    every change follows has no need to quote an attack, so such a row is held back."""
    if scan(_INDEX, [text]):
        return True
    _, lines = judged_lines([text])
    lowered = lines[0][:LONGEST_JUDGED].lower() if lines else ""
    for read in (lowered, lowered.replace("`", "")) if "`" in lowered else (lowered,):
        turns, roles, phrases = hinted(read)
        if turns and FAKE_TURN_GATE.search(read) and FAKE_TURN.search(read):
            return True
        if roles and TURN_MARKER.search(read):
            return True
        for pattern in phrases:
            for match in pattern.finditer(read):
                if not match.groupdict().get("verb") or _targets_agent_orders(read, match):
                    return True
    return False
