"""`json.dumps(value, indent=2)` for the plain reports verify prints, without importing json.

Importing json compiles six regular expressions and costs verify about 2% of its run
(it runs on every commit); a report is only dicts, lists, strings, integers, booleans
and None. Anything else is handed to json itself, so the output is always what
json.dumps gives. tests/test_verify.py checks the two agree on any such value.
"""

from __future__ import annotations

# What json.dumps writes for the characters it escapes by a short form; every other
# character outside printable ASCII becomes \\uXXXX (ensure_ascii, json's default).
_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


def dumps(value, indent: int = 2) -> str:
    """The text json.dumps(value, indent=indent) returns."""
    parts: list[str] = []
    try:
        _write(value, parts, "\n", " " * indent)
    except _NotPlain:
        import json

        return json.dumps(value, indent=indent)
    return "".join(parts)


class _NotPlain(Exception):
    """A value this writer does not spell (a float, a tuple, a key that is no string)."""


def _write(value, parts: list[str], newline: str, step: str) -> None:
    if value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif type(value) is int:
        parts.append(str(value))
    elif type(value) is str:
        parts.append(_string(value))
    elif type(value) is list:
        if not value:
            parts.append("[]")
            return
        inner = newline + step
        parts.append("[")
        for number, item in enumerate(value):
            parts.append(inner if not number else "," + inner)
            _write(item, parts, inner, step)
        parts.append(newline + "]")
    elif type(value) is dict:
        if not value:
            parts.append("{}")
            return
        inner = newline + step
        parts.append("{")
        for number, (key, item) in enumerate(value.items()):
            if type(key) is not str:
                raise _NotPlain
            parts.append(inner if not number else "," + inner)
            parts.append(_string(key) + ": ")
            _write(item, parts, inner, step)
        parts.append(newline + "}")
    else:
        raise _NotPlain


def _string(text: str) -> str:
    # Printable ASCII (space to `~`) stands as it is, but for `"` and `\`.
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    out = []
    for char in text:
        if char in _SHORT:
            out.append(_SHORT[char])
        elif " " <= char <= "~":
            out.append(char)
        elif ord(char) > 0xFFFF:  # a surrogate pair, as json writes it
            code = ord(char) - 0x10000
            out.append(f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{ord(char):04x}")
    return '"' + "".join(out) + '"'
