"""The `- cites:` field: the file a fact rests on, and optionally the exact text in it.

    - cites: pyproject.toml
    - cites: pyproject.toml "testpaths = [\\"tests\\"]"

PATH runs up to the first `"` (or to the line end) and is trimmed; it may sit in
backticks. TEXT starts at that quote and ends at the line's last character, which must
be a quote. Inside TEXT, `\\"` stands for a quote and `\\\\` for a backslash; any other
backslash stands for itself, so a cited regex such as `\\d+` is written as it is.
Only syntax lives here; rules/cites.py checks the evidence on disk.
"""

from __future__ import annotations

import re

# The field's name as the semantic field pattern reads names: a list marker, optional
# backticks. The marker is required so a prose sentence "cites: x" is not a citation.
CITE_LINE = re.compile(r"^\s*[-*]\s*`?cites`?\s*:(.*)$")


class CiteSyntax(ValueError):
    """The value of a cites line cannot be read; the message says how to write it."""


class Cite:
    __slots__ = ("line", "path", "text")

    def __init__(self, path: str, text: str | None, line: int = 0) -> None:
        self.path = path
        self.text = text  # None: the file itself is the evidence
        self.line = line  # 1-based line in the entry, 0 when not from a file

    def value(self) -> str:
        return format_value(self.path, self.text)


def parse_value(value: str) -> Cite:
    value = value.strip()
    quote = value.find('"')
    path = (value if quote < 0 else value[:quote]).strip()
    if len(path) > 1 and path[0] == path[-1] == "`":
        path = path[1:-1].strip()
    if not path:
        raise CiteSyntax('needs a repository path: `- cites: PATH` or `- cites: PATH "TEXT"`')
    if quote < 0:
        return Cite(path, None)
    quoted = value[quote:]
    if len(quoted) < 2 or not quoted.endswith('"'):
        raise CiteSyntax('the text must end the line with a closing quote: PATH "TEXT"')
    text = _unescape(quoted[1:-1])
    if not text:
        raise CiteSyntax(
            "empty quoted text; cite the bare path when the whole file is the evidence"
        )
    return Cite(path, text)


def _unescape(inner: str) -> str:
    out = []
    index = 0
    while index < len(inner):
        char = inner[index]
        if char == "\\" and index + 1 < len(inner) and inner[index + 1] in '"\\':
            out.append(inner[index + 1])
            index += 2
            continue
        if char == "\\" and index + 1 == len(inner):
            raise CiteSyntax('the closing quote is escaped (\\"); write a final backslash as \\\\')
        if char == '"':
            raise CiteSyntax('a quote inside the text must be written \\"')
        out.append(char)
        index += 1
    return "".join(out)


def format_value(path: str, text: str | None) -> str:
    if text is None:
        return path
    out = []
    for index, char in enumerate(text):
        if char == '"':
            out.append('\\"')
        elif char == "\\" and (index + 1 == len(text) or text[index + 1] in '"\\'):
            out.append("\\\\")
        else:
            out.append(char)
    return f'{path} "{"".join(out)}"'


def cite_lines(lines: list[str]) -> list[int]:
    """0-based indexes of the lines that are cites fields."""
    return [
        index
        for index, line in enumerate(lines)
        if "cites" in line and CITE_LINE.match(line) is not None
    ]


def read_cites(lines: list[str]) -> tuple[list[Cite], list[tuple[int, str]]]:
    """(citations, [(1-based line, problem)]) of an entry's lines."""
    found, problems = [], []
    for index in cite_lines(lines):
        match = CITE_LINE.match(lines[index])
        try:
            cite = parse_value(match.group(1))
        except CiteSyntax as why:
            problems.append((index + 1, str(why)))
            continue
        cite.line = index + 1
        found.append(cite)
    return found, problems
