"""Text as a Markdown reader sees it, for the injection rule (text/injection.py): each
paragraph one line, markup hidden (text/markup.py finds it), table cells and a cites
line's quote read as lines of their own.
"""

from __future__ import annotations

from ..lazy_re import lazy
from .injection_phrases import (
    LOOSE_PHRASES,
    LOOSE_TAG_HINTS,
    between_words,
    hinted,
    ticks_split_a_hint,
)
from .normalise import format_characters, judged

# The characters rendering deletes (_rendered: emphasis, brackets, backslash escapes,
# entities, tags). Text without them renders in place, `-`, `_` and newlines turned into
# spaces, table cells split onto lines of their own, code-span ticks dropped, and
# lowercased, so its paragraph copy holds a hint only where the text without ticks holds
# it, or the hint holds a space: then the loose hints of that text say whether the copy
# is worth making (copy_may_hint).
_DELETED_BY_RENDERING = "*~[]&<\\"


def copy_may_hint(joined: str, loose: tuple) -> bool:
    """Whether the paragraph copy of a judged text may hold a hint; `loose` is what
    the loose hints found in the text."""
    if loose[0] or loose[2] or any(char in joined for char in _DELETED_BY_RENDERING):
        return True
    if "`" not in joined or not ticks_split_a_hint(joined):
        return False
    unticked = hinted(joined.lower().replace("`", ""), LOOSE_PHRASES, LOOSE_TAG_HINTS)
    return bool(unticked[0] or unticked[2])


# Markdown joins the lines of a paragraph and hides its markup, so "Ignore all\nprevious
# instructions", "Ignore **all** previous instructions", "Ignore <q>all</q> previous",
# "Ignore <!-- --> previous", "&#73;gnore", "Ignore `all` previous" and
# "ignore-previous-instructions" read as the order they spell. Each paragraph is judged
# again as one line the way it renders: a table row's cells each a line of their own,
# comments and tags of any name hidden, entities decoded, then normalised (so what an
# entity decodes to is judged like a typed character), emphasis and escapes gone, dashes
# and underscores read as spaces, link targets and defined reference labels dropped, an
# image's alt text read as opening a line (text/markup.py finds the markup).
MARKUP_HINTS = "\n&*_-<[~`\\"
# What a fenced code block's opening and closing lines start with.
FENCE = ("```", "~~~")
_BLOCK_MARKS = ("- ", "* ", "+ ", "-\t", "*\t", "+\t", "#", "|", *FENCE)
# Tags a browser draws as a break between words (a line break, a block, a list item, a
# table cell): read as a space. Any other tag, known or not, draws nothing where it stands.
BREAKING_TAGS = frozenset((
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


_PLACEHOLDER = "\x01"  # text/markup.py's PLACEHOLDER, without importing it here
# A line end and the quote marks after it: the paragraph copy joins its lines there.
_LINE_JOIN = lazy(r"\n[ \t>]*")


def rendered_whole(given: str, words: bool = False) -> str:
    """The text rendered at once, its lines joined as a paragraph joins them and its
    ticks dropped (as injection.py's _across_code_spans reads it): it holds every hint that any part of
    the paragraph copy holds (tests/test_transcripts_injection.py holds that)."""
    if _PLACEHOLDER in given:
        given = given.replace("\n" + _PLACEHOLDER, "")
    return _LINE_JOIN.sub(" ", _rendered(given, words)).replace("`", "")


def paragraph_copy(given: str, words: bool = False) -> tuple[str, list[tuple[int, int]]]:
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
            continue  # a line end that markup across lines held (text/markup.py)
        if paragraph and (not body or _starts_block(body)):
            read.append(" ".join(paragraph))
            paragraph = []
        if body.startswith("|"):
            # A table row renders as cells, each read as if it began a line (where a
            # command may begin), as the rule reads a row as written (segments).
            for cell in _cells(body):
                add(_rendered(cell, words), number)
                read.append(" ".join(paragraph))
                paragraph = []
        elif body.strip():
            add(_rendered(body, words), number)
    if paragraph:
        read.append(" ".join(paragraph))
    return "\n".join(read), starts


def _cells(row: str) -> list[str]:
    from .table_row import split_cells  # only for a text that holds a table

    return split_cells(row)


def _starts_block(line: str) -> bool:
    """Whether a line (without indentation) opens a list item, heading, table row or fence."""
    if line.startswith(_BLOCK_MARKS):
        return True
    digits = len(line) - len(line.lstrip("0123456789"))
    return digits > 0 and line[digits : digits + 2] in (". ", ") ")


def _rendered(text: str, words: bool = False) -> str:
    """Text as written, as a reader sees it rendered, judged and lowercased (see
    injection.py's _paragraph_findings). Markup is found in the text as written, as a renderer finds it,
    so `&lt;` never opens a tag; entities are decoded before the text is normalised."""
    if "<" in text or "](" in text or "-->" in text:
        from . import markup

        text = markup.hidden(text, BREAKING_TAGS)
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
        # paragraph_copy joins it and lets a command begin after it.
        text = html.unescape(text).replace("\r", "\n")
    if words:  # with the marks gone, the letters either side of a format character meet
        text = text.translate(_SPACED).replace("`", "")
        text = between_words(text, format_characters(text))
    return judged(text).translate(_SPACED).lower()


def segments(lines: list[str]) -> tuple[list[str], list[int] | None]:
    """The lines as the rule reads them, and the 1-based line each came from (None when
    they are the lines given). A table row is followed by one line per cell, its `\\|`
    restored; a cites line gives its path and, on a line of its own, the text it quotes."""
    rows = [line.lstrip().startswith("|") for line in lines]
    quotes = [not row and "cites" in line for row, line in zip(rows, lines)]
    if not (any(rows) or any(quotes)):
        return lines, None  # the usual entry: read as it is
    from .table_row import split_cells

    if any(quotes):  # only then: verify need not import the citation syntax
        from .cites import CITE_LINE, CiteSyntax, parse_value

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
