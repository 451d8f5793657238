"""The one reader of the host's Copier answers file (no YAML library needed)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ecomem import protocol
from ecomem.errors import UsageError
from ecomem.path_rule import is_git_dir, path_rule_problem

# The answers that name folders: judged by the template's one path rule on every read,
# so a hand-edited answers file is refused before Copier or a command uses the path.
PATH_ANSWERS = ("skill_path", "memory_path")

# The questions copier.yml asks (the rest it computes from them): all an answers file
# may pass back to Copier as `--data`. tests/test_fleet_answers.py holds it to copier.yml.
QUESTIONS = (
    "skill_path",
    "memory_path",
    "claude_code",
    "ci",
    "ci_strict",
    "desks_travel",
    "review_thresholds",
)


def answers_path(root: Path) -> Path:
    return root / protocol.ANSWERS_FILE


def read_text(path: Path) -> str:
    """The answers file's text; a file that is not UTF-8 or cannot be read is a usage error."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(
            f"{path.name} is not UTF-8 text (byte {error.start}); restore it from git"
            " (`git checkout -- " + path.name + "`) or re-save it as UTF-8"
        ) from None
    except OSError as error:
        raise UsageError(f"{path.name}: cannot read it ({error.strerror})") from None


def read_answers(path: Path) -> dict[str, str]:
    """Top-level `key: value` scalars of the answers file; a folder answer that breaks
    the path rule is a usage error (its value is never printed).

    Copier reads this file as YAML and this reader does not, so it accepts only the
    lines on which both read the same: the shape Copier writes, one plain key per line,
    each key once, a plain or simply quoted scalar. Anything else (a quoted or repeated
    key, an indented continuation, a tag, an anchor, a flow value, an escape) could make
    Copier see a `_src_path` the trust check never saw, and is refused.
    """
    answers = {}
    # Split on "\n" alone and judge every other character: YAML and str.splitlines()
    # disagree on which characters break a line, and str.strip() on which are spaces.
    for number, line in enumerate(read_text(path).split("\n"), start=1):
        if not line.isprintable():
            # A tab, a control or format character, a line or paragraph separator, or
            # a space other than U+0020: YAML folds a line of such "blanks" into the
            # value above it, where this reader would skip the line.
            raise UsageError(
                f"{path.name}: line {number} holds a character Copier never writes there"
                " (a tab, a control character or a space other than ' '); restore it from git"
            )
        if not line or line.startswith("#"):
            continue
        key, colon, value = line.partition(": ") if ": " in line else line.partition(":")
        # YAML trims only spaces; str.strip() would also drop a no-break space that
        # YAML keeps as part of the value, so such an edge is refused, not trimmed.
        value = value.strip(" ")
        if value != value.strip():
            colon = ""
        if line.endswith(":") and ": " not in line:
            key, colon, value = line[:-1], ":", ""  # an empty answer
        elif ": " not in line:
            colon = ""  # `a:b` is one plain string to YAML, no key at all
        if not (colon and _plain_key(key) and key not in answers and _simple_scalar(value)):
            raise UsageError(
                f"{path.name}: line {number} is not in the shape Copier writes (one plain"
                " `key: value` per line, each key once); restore it from git"
            )
        quoted = value[:1] in ("'", '"')
        if key in SOURCE_ANSWERS and not quoted and _YAML_TYPED.fullmatch(value):
            raise UsageError(
                f"{path.name}: line {number} holds a {key} YAML reads as a number, date or"
                " boolean, which Copier would have quoted; restore it from git"
            )
        answers[key] = value[1:-1] if quoted else value
    for key in PATH_ANSWERS:
        why = path_rule_problem(answers[key]) if key in answers else ""
        if why:
            raise UsageError(f"{path.name}: {key} {why}; restore it from git")
    return answers


# The answers Copier must read as the very string the trust check read.
SOURCE_ANSWERS = ("_src_path", "_commit")
# Plain scalars YAML 1.1 resolves to something other than a string (booleans, null,
# integers in any base, floats, sexagesimals, dates), matched broadly: Copier quotes
# every string that looks like one, so a plain one was not written by Copier.
_YAML_TYPED = re.compile(
    r"(?i)yes|no|true|false|on|off|~|null"
    r"|[-+]?(?:0b[01_]+|0x[0-9a-f_]+|[0-9][0-9_:]*(?:\.[0-9_]*(?:e[-+]?[0-9]+)?)?)"
    r"|[-+]?\.(?:[0-9_]+(?:e[-+]?[0-9]+)?|inf|nan)"
    r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[t ].*)?"
)
_KEY_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_KEY_CHARS = _KEY_START | frozenset("0123456789")
# A plain YAML scalar starting with one of these is no plain string (a tag, an anchor,
# an alias, a block or flow value, a directive, a reserved or quote character).
_INDICATORS = frozenset("!&*|>{[%@`#,?:-'\"")


def _plain_key(key: str) -> bool:
    return bool(key) and key[0] in _KEY_START and _KEY_CHARS.issuperset(key)


def _simple_scalar(value: str) -> bool:
    """A value YAML reads as the same string this reader keeps: empty, plain (no
    indicator first, no comment), or quoted once with nothing YAML would unescape."""
    if "\t" in value or any(ord(char) < 32 for char in value):
        return False
    if len(value) >= 2 and value[0] == value[-1] and value[0] in ("'", '"'):
        inner = value[1:-1]
        return value[0] not in inner and "\\" not in inner
    return not value or (value[0] not in _INDICATORS and " #" not in value and ": " not in value)


def folder_problem(root: Path, folder: str) -> str:
    """Where a folder answer really leads when that is out of the repository or into
    `.git` (any letter case, links resolved: a committed `lnk -> .git`), else ""."""
    top = os.path.realpath(root)
    real = os.path.realpath(os.path.join(top, folder or "."))
    inside = os.path.relpath(real, top)
    if inside.split(os.sep)[0] == os.pardir:
        return f"leads out of the repository (to {real})"
    if any(map(is_git_dir, (*folder.split("/"), *inside.split(os.sep)))):
        return f"is inside .git (its real path is {inside})"
    return ""


def refuse_folders_out_of_place(root: Path, answers: dict[str, str]) -> None:
    """A one-line refusal when the answers' skill or memory folder is not one the
    template may render into: an upgrade would write there."""
    for name in ("skill_path", "memory_path"):
        where = folder_problem(root, answers.get(name, ""))
        if where:
            raise UsageError(
                f"{name} in {protocol.ANSWERS_FILE} {where}; eco-mem writes nothing there"
            )
