"""The markup a Markdown reader hides, found the way CommonMark finds it, with no bound.

The injection rule judges each paragraph again as it renders (text/injection.py), so
whatever a renderer hides must be hidden here too, however long: a tag whose attribute
runs to a thousand characters hides just as well as a short one, so no length or count
here is one an entry can step over. Raw HTML is read as CommonMark reads it (a tag of
any name and any number of attributes, a closing tag, a comment, a processing
instruction, a declaration, a CDATA section), and a link's target however it is spelled:
balanced parentheses, `<...>`, a title in quotes or parentheses.

The scan stays linear in the text's length: a try from one `<` stops at the next `<`
outside quotes, so tries do not overlap; every search for a closing quote or terminator
is remembered (_Finder), so tries that look for the same far or absent one share it; and
a link target that does not close is skipped whole, since a target starting inside it
follows characters a reader sees (it cannot join two halves of a word unseen).
tests/test_text_gates.py judges a mebibyte of markup that never closes in seconds.
"""

from __future__ import annotations

from ..lazy_re import MULTILINE, lazy

# Raw HTML that stays on one line, read by one pattern (tries that fail cost no Python):
# every repeat is unbounded, and a try from one `<` stops at the next `<` outside quotes,
# so tries do not pile up. An open comment, processing instruction or CDATA section
# hides the rest of its line. A declaration and a link target are read by _Scan.
_ONE_LINE = (
    r"<!---?>|<!--.*?(?:-->|$)|<\?.*?(?:\?>|$)|<!\[CDATA\[.*?(?:\]\]>|$)"
    r"|</(?P<closing>[A-Za-z][A-Za-z0-9-]*)[ \t]*>"
    r"|<(?P<opening>[A-Za-z][A-Za-z0-9-]*)"
    r"(?:[ \t]+[A-Za-z_:][A-Za-z0-9_.:-]*"
    r"(?:[ \t]*=[ \t]*(?:[^ \t\n\"'=<>`]+|'[^'\n]*'|\"[^\"\n]*\"))?)*"
    r"[ \t]*/?>|-->"
)
_ON_ONE_LINE = lazy(_ONE_LINE, MULTILINE)
# Where markup may begin in one line: what the pattern reads whole, or a declaration or
# link target to read further.
_ONE_LINE_START = lazy(_ONE_LINE + r"|<!(?=[A-Za-z])|\]\(", MULTILINE)
# Where markup that spans lines may begin.
_START = lazy(r"<[A-Za-z/!?]|-->|\]\(")
# A tag still open where its line ends: only such a tag can span lines.
_OPEN_AT_LINE_END = lazy(
    r"</?[A-Za-z][A-Za-z0-9-]*(?:[ \t]+[A-Za-z_:][A-Za-z0-9_.:-]*"
    r"(?:[ \t]*=[ \t]*(?:[^ \t\n\"'=<>`]+|'[^'\n]*'|\"[^\"\n]*\"))?)*"
    r"[ \t]*(?:=[ \t]*)?(?:'[^'\n]*|\"[^\"\n]*)?$",
    MULTILINE,
)
_TAG_NAME = lazy(r"[A-Za-z][A-Za-z0-9-]*")
# Whitespace inside a tag: spaces and tabs, and (read across lines) one line end.
_GAP = lazy(r"[ \t]*")
_GAP_ACROSS = lazy(r"[ \t]*(?:\r?\n[ \t]*)?")
_ATTRIBUTE = lazy(r"[A-Za-z_:][A-Za-z0-9_.:-]*")
_UNQUOTED = lazy(r"[^ \t\n\r\"'=<>`]+")
# A link destination written bare: no space or control character; `\` escapes one. Read
# to each parenthesis, not to the line's end: that made a line of links cost its square.
_BARE_TO_PAREN = lazy(r"(?:\\.|[^\x00-\x20\x7f\\()])*")
_BLANK_LINE = lazy(r"\n[ \t>]*(?:\n|$)")
# A reference definition, "[label]: target", opening a line (four spaces make code).
_DEFINITION = lazy(r"^ {0,3}\[([^\[\]]+)\]:", MULTILINE)
# "[text][label]" and "[text][]": the label is what a reader does not see.
_LABEL = lazy(r"\]\[([^\[\]]*)\]")


class _Finder:
    """str.find with each answer remembered per needle, so the many tries that look for
    the same far (or absent) quote or terminator cost one search together."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._last: dict[str, tuple[int, int]] = {}  # needle -> (searched from, found at)

    def find(self, needle: str, start: int, limit: int) -> int:
        """Where `needle` first stands at or after `start` and before `limit`, or -1."""
        since, at = self._last.get(needle, (len(self.text) + 1, -1))
        if not (since <= start and (at == -1 or start <= at)):
            at = self.text.find(needle, start)
            self._last[needle] = (start, at)
        return at if at != -1 and at + len(needle) <= limit else -1


class _Scan:
    """One text scanned for hidden markup; `across` lets a piece hold line ends (as a
    paragraph's tags and link titles may), never a blank line."""

    def __init__(self, text: str, across: bool) -> None:
        self.text = text
        self.across = across
        self.gap = _GAP_ACROSS if across else _GAP
        self.finder = _Finder(text)
        self._limit = (len(text) + 1, -1)  # (asked from, answer): one answer serves many

    def limit(self, at: int) -> int:
        """Where the piece starting at `at` must end by: its line end, or its paragraph's."""
        since, end = self._limit
        if not (since <= at <= end):
            if self.across:
                blank = _BLANK_LINE.search(self.text, at)
                end = blank.start() if blank else len(self.text)
            else:
                end = self.text.find("\n", at)
                end = len(self.text) if end == -1 else end
            self._limit = (at, end)
        return end

    def skip_gap(self, at: int) -> int:
        return self.gap.match(self.text, at).end()

    def pieces(self):
        """(start, end, tag name or None) for each piece of hidden markup, in order."""
        text, at = self.text, 0
        while True:
            found = (_START if self.across else _ONE_LINE_START).search(text, at)
            if found is None:
                return
            start = found.start()
            whole = found  # a whole piece, or a 2-character start to read on from
            if self.across:  # a comment and its kin may close on a later line
                spans = text.startswith(("<!--", "<?", "<![CDATA["), start)
                whole = None if spans else _ON_ONE_LINE.match(text, start)
            if whole is not None and whole.end() > start + 2:
                yield start, whole.end(), whole.group("opening") or whole.group("closing")
                at = whole.end()
                continue
            tag = text[start] == "<" and text[start + 1 : start + 2] not in "!?"
            if self.across and tag and not _OPEN_AT_LINE_END.match(text, start):
                at = start + 1  # a tag that fails on its own line fails across lines too
                continue
            if text.startswith("](", start):
                end, resume = self.link_target(start + 2)
                if end != -1:
                    yield start + 1, end, None  # the `]` stays: emphasis marks go later
                    at = end
                else:
                    at = max(start + 2, resume)
                continue
            end, name = self.html(start)
            if end == -1:
                at = start + 1
            else:
                yield start, end, name
                at = end

    def html(self, start: int) -> tuple[int, str | None]:
        """(end, tag name) of raw HTML opening at `start` (a `<`), or (-1, None)."""
        text = self.text
        limit = self.limit(start)
        for opening, closing in (("<!--", "-->"), ("<?", "?>"), ("<![CDATA[", "]]>")):
            if text.startswith(opening, start):
                if opening == "<!--" and text.startswith(("<!-->", "<!--->"), start):
                    return text.index(">", start) + 1, None
                end = self.finder.find(closing, start + len(opening), limit)
                if end != -1:
                    return end + len(closing), None
                # One left open hides the rest of its line, as _ONE_LINE reads it.
                line_end = text.find("\n", start)
                return (len(text) if line_end == -1 else line_end), None
        if text.startswith("<!", start) and text[start + 2 : start + 3].isalpha():
            end = self.finder.find(">", start + 2, limit)
            return (end + 1 if end != -1 else -1), None
        closing = text.startswith("</", start)
        name = _TAG_NAME.match(text, start + 2 if closing else start + 1)
        if name is None:
            return -1, None
        at = name.end()
        if not closing:
            at = self.attributes(at, limit)
            if at == -1:
                return -1, None
        at = self.skip_gap(at)
        if not closing and text.startswith("/", at):
            at += 1
        if text.startswith(">", at):
            return at + 1, name.group()
        return -1, None

    def attributes(self, at: int, limit: int) -> int:
        """Where a tag's attributes end, from just past its name; -1 for a quote left open."""
        text = self.text
        while True:
            gap = self.skip_gap(at)
            name = _ATTRIBUTE.match(text, gap) if gap > at else None
            if name is None:
                return at
            at = name.end()
            equals = self.skip_gap(at)
            if not text.startswith("=", equals):
                continue
            value = self.skip_gap(equals + 1)
            quote = text[value : value + 1]
            if quote in ("'", '"'):
                close = self.finder.find(quote, value + 1, limit)
                if close == -1:
                    return -1
                at = close + 1
            else:
                bare = _UNQUOTED.match(text, value)
                if bare is None:
                    return -1
                at = bare.end()

    def link_target(self, at: int) -> tuple[int, int]:
        """(end past its `)`, -1 if none; where to look on) for a link's target and
        title that open at `at`, just past `](`."""
        text = self.text
        limit = self.limit(at)
        at = self.skip_gap(at)
        if text.startswith("<", at):
            close = self.finder.find(">", at + 1, limit)
            if (
                close == -1
                or self.finder.find("<", at + 1, close) > -1
                or (self.finder.find("\n", at + 1, close) > -1)
            ):
                return -1, at + 1  # `<...>` holds no `<` and no line end
            end = close + 1
        else:
            end, depth = at, 0
            while True:
                end = _BARE_TO_PAREN.match(text, end).end()
                paren = text[end : end + 1]
                if paren == ")" and not depth:
                    break  # the `)` that closes the link
                if paren not in ("(", ")"):
                    if depth:
                        return -1, end  # parentheses left open: no link
                    break
                depth += 1 if paren == "(" else -1
                end += 1
        after = self.skip_gap(end)
        if after > end and text[after : after + 1] in ('"', "'", "("):
            closing = ")" if text[after] == "(" else text[after]
            close = self.finder.find(closing, after + 1, limit)
            if close == -1:
                return -1, end
            after = self.skip_gap(close + 1)
        if text.startswith(")", after):
            return after + 1, end
        return -1, end


def hidden(text: str, breaking: frozenset) -> str:
    """`text` (one line) as a reader sees it with its markup hidden: a tag named in
    `breaking` leaves a space, any other piece nothing."""
    out, at = [], 0
    for start, end, name in _Scan(text, across=False).pieces():
        out += [text[at:start], " " if name and name.lower() in breaking else ""]
        at = end
    return "".join(out) + text[at:] if out else text


def links(line: str) -> list[tuple[int, int, str]]:
    """(start at `]`, end past `)`, destination without `<>`) of each link target in
    `line`, read as a renderer reads it (_Scan.link_target): the one link scanner, so
    review's path check reads the links the injection rule hides."""
    found, scan = [], _Scan(line, across=False)
    at = line.find("](")
    while at >= 0:
        end, resume = scan.link_target(at + 2)
        if end != -1:
            destination = line[scan.skip_gap(at + 2) : resume]
            if destination.startswith("<"):
                destination = destination[1:-1]
            found.append((at, end, destination))
        at = line.find("](", end if end != -1 else max(at + 2, resume))
    return found


def without_links(line: str) -> str:
    """`line` with each link target (links) made one space."""
    kept, last = [], 0
    for start, end, _ in links(line):
        kept += [line[last:start], " "]
        last = end
    return "".join(kept) + line[last:] if kept else line


# A line that only keeps a line's number: markup across lines was there, and what
# followed it was moved up to join the text before it (across_lines).
PLACEHOLDER = "\x01"


def across_lines(text: str, breaking: frozenset) -> str:
    """`text` with each piece of markup that spans lines hidden as on one line, the rest
    of its last line joined to the text before it and each line end it held left as a
    PLACEHOLDER line after that (so lines keep their numbers and no blank line splits
    the paragraph); a reference link's label is dropped where the text defines it.
    Everything else stays as written, for each line to be rendered alone."""
    if "[" in text and "]:" in text:
        defined = {_label(found.group(1)) for found in _DEFINITION.finditer(text)}
        if defined:
            text = _LABEL.sub(
                lambda m: "]" if not m.group(1) or _label(m.group(1)) in defined else m.group(),
                text,
            )
    if "\n" not in text:
        return text
    out, at, pending = [], 0, 0  # pending: line ends owed after the current line

    def keep(chunk: str) -> None:
        nonlocal pending
        if pending and "\n" in chunk:
            cut = chunk.index("\n")
            chunk = chunk[:cut] + ("\n" + PLACEHOLDER) * pending + chunk[cut:]
            pending = 0
        out.append(chunk)

    for start, end, name in _Scan(text, across=True).pieces():
        piece = text[start:end]
        if "\n" in piece:
            keep(text[at:start])
            out.append(" " if name and name.lower() in breaking else "")
            pending += piece.count("\n")
            at = end
    if not out:
        return text
    keep(text[at:])
    return "".join(out) + ("\n" + PLACEHOLDER) * pending


def _label(label: str) -> str:
    """A reference label as CommonMark matches it: case and runs of spaces ignored."""
    return " ".join(label.split()).casefold()
