"""Edit a JSON document as text: add or remove one value, every other byte kept.

A host's `.claude/settings.json` is its own: loading it and dumping it again would keep
the keys and values but respell the rest (inline lists spread over lines, spacing,
number forms). Here the document is parsed into nodes that know where they sit in the
text, and an edit splices only the bytes of the value added or removed, indented like
its neighbours. The text must already be valid JSON (json.loads checks it first).
"""

from __future__ import annotations

import json

WHITESPACE = " \t\r\n"
_SCALARS = json.JSONDecoder()
# Deeper than any settings file needs; json.loads and `parse` both recurse once per
# level, and a host file nested a thousand deep would end them in RecursionError.
MAX_DEPTH = 64


def check_depth(text: str) -> None:
    """ValueError when `text` nests lists and objects deeper than MAX_DEPTH. A scan of
    brackets outside strings, before anything recursive reads the text."""
    depth, quoted, escaped = 0, False, False
    for line, row in enumerate(text.split("\n"), 1):
        for char in row:
            if quoted:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    quoted = False
            elif char == '"':
                quoted = True
            elif char in "[{":
                depth += 1
                if depth > MAX_DEPTH:
                    raise ValueError(f"nested deeper than {MAX_DEPTH} levels (line {line})")
            elif char in "]}":
                depth -= 1


class Node:
    """A value and where it is: text[start:end]. An object's `members` are (key, key
    start, node); an array's `items` are nodes."""

    __slots__ = ("end", "items", "kind", "members", "start", "value")

    def __init__(self, kind: str, start: int) -> None:
        self.kind, self.start, self.end = kind, start, start
        self.items: list[Node] = []
        self.members: list[tuple[str, int, Node]] = []
        self.value = None

    def get(self, key: str) -> Node | None:
        return next((node for name, _, node in self.members if name == key), None)

    def children(self) -> list[tuple[int, Node]]:
        """(where the child starts, with its key for an object member, the value node)."""
        if self.kind == "object":
            return [(at, node) for _, at, node in self.members]
        return [(node.start, node) for node in self.items]


def parse(text: str) -> Node:
    node, end = _value(text, _skip(text, 0))
    if _skip(text, end) != len(text):
        raise ValueError("extra data after the JSON value")
    return node


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in WHITESPACE:
        at += 1
    return at


def _value(text: str, at: int) -> tuple[Node, int]:
    opening = text[at : at + 1]
    if opening == "{":
        node = Node("object", at)
        at = _skip(text, at + 1)
        while text[at] != "}":
            key_at = at
            key, at = json.decoder.scanstring(text, at + 1)
            at = _skip(text, at)  # at the colon
            child, at = _value(text, _skip(text, at + 1))
            node.members.append((key, key_at, child))
            at = _skip(text, at)
            if text[at] == ",":
                at = _skip(text, at + 1)
        node.value = {key: child.value for key, _, child in node.members}
    elif opening == "[":
        node = Node("array", at)
        at = _skip(text, at + 1)
        while text[at] != "]":
            child, at = _value(text, at)
            node.items.append(child)
            at = _skip(text, at)
            if text[at] == ",":
                at = _skip(text, at + 1)
        node.value = [child.value for child in node.items]
    else:
        node = Node("scalar", at)
        node.value, at = _SCALARS.raw_decode(text, at)
        node.end = at
        return node, at
    node.end = at + 1
    return node, node.end


def line_indent(text: str, at: int) -> str:
    """The whitespace that starts the line holding position `at`."""
    start = text.rfind("\n", 0, at) + 1
    end = start
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[start:end]


def render(value, indent: str, unit, ensure_ascii: bool) -> str:
    """`value` as JSON whose continuation lines start with `indent`; on one line when
    `unit` is None."""
    text = json.dumps(value, indent=unit, ensure_ascii=ensure_ascii)
    return text.replace("\n", "\n" + indent)


def append(text: str, container: Node, piece, unit, ensure_ascii: bool) -> str:
    """`text` with `piece` added last in `container`: a value for an array, a (key, value)
    pair for an object. A container written on one line stays on one line."""
    key, value = piece if container.kind == "object" else (None, piece)
    children = container.children()
    if children:
        last_at, last = children[-1]
        inline = "\n" not in text[container.start : last_at]
        indent = line_indent(text, last_at)
        separator = ", " if inline else ",\n" + indent
        at, before, after = last.end, separator, ""
    else:
        # An empty `[]` or `{}` opens onto lines of its own, unless the whole document is
        # written on one line (then it stays on one line).
        document = text.strip()
        inline = "\n" not in document and len(document) > container.end - container.start
        outer = line_indent(text, container.start)
        indent = outer + (unit if isinstance(unit, str) else " " * (unit or 0))
        at, before = container.start + 1, "" if inline else "\n" + indent
        after = "" if inline else "\n" + outer
        # Drop whatever blank space sat between the brackets.
        text = text[:at] + text[container.end - 1 :]
    body = render(value, indent, None if inline else unit, ensure_ascii)
    if key is not None:
        body = json.dumps(key, ensure_ascii=ensure_ascii) + ": " + body
    return text[:at] + before + body + after + text[at:]


def remove(text: str, container: Node, index: int) -> str:
    """`text` without the index-th child of `container` (with its key, for an object) and
    the comma that joined it to its neighbours."""
    children = container.children()
    start, node = children[index]
    if index > 0:
        cut_from, cut_to = children[index - 1][1].end, node.end
    elif len(children) > 1:
        cut_from, cut_to = start, children[1][0]
    else:  # the only child: the container becomes empty, `[]` or `{}`
        cut_from, cut_to = container.start + 1, container.end - 1
    return text[:cut_from] + text[cut_to:]


def replace(text: str, node: Node, value, unit, ensure_ascii: bool) -> str:
    """`text` with `node` rewritten as `value`, indented from the line it starts on."""
    inline = "\n" not in text[node.start : node.end]
    body = render(value, line_indent(text, node.start), None if inline else unit, ensure_ascii)
    return text[: node.start] + body + text[node.end :]
