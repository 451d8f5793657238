"""This repository's answers, read from the answers file Copier keeps at its root.

The template writes that file as YAML in block style (extensions/answers.py). The
scripts need a few of its top-level scalars and carry no YAML library, so they read
that shape and no more: `key: value` lines whose value is true, false, null, a
number, a quoted string or a plain one. A key they need in any other shape (a value
spread over lines, a list) is refused with its name, never guessed at.

The file is data a commit can change, like every tracked file: a folder answer must
pass path_rule.py before any command builds a path from it.

The copy of the merge and digest code that `track` keeps in the git dir carries the
answers it was written with (`answers.yml` beside this file): no commit reaches it,
so a branch's answers file cannot point that copy at another folder. It is written
in the same shape (`recorded`), and read by the same reader.

No json, no re: the session digest reads the answers too, and stays without both.
"""

from __future__ import annotations

import os

from .errors import UsageError
from .path_rule import path_rule_problem
from .protocol import ANSWERS_FILE

HERE = os.path.dirname(os.path.abspath(__file__))
RECORDED = os.path.join(HERE, "answers.yml")
# Only the copy in the git dir (`merge-driver-<checksum>/ecomem/`, gitsetup/driver.py)
# keeps a record. Anywhere else (the runtime file, its unpacked cache, the source tree)
# a file by that name is a commit's, and must not stand in for the answers file.
IN_GIT_DIR_COPY = os.path.basename(os.path.dirname(HERE)).startswith("merge-driver-")
FOLDERS = ("skill_path", "memory_path")
FLAGS = ("claude_code", "desks_travel")
LARGEST = 64 * 1024  # an answers file is a few hundred bytes
SCALARS = {"true": True, "false": False, "null": None, "~": None, "": None}
# The keys Copier writes: ASCII letters, digits and `_`. YAML also reads a quoted key, a
# `? key` line and a `<<` merge as keys, which this reader would pass over while Copier
# took the value: one file, two folders. A key of any other shape is refused.
PLAIN_KEY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
OTHER_SHAPE = "<a key that is not a plain name>"


def settings(root) -> dict:
    """{skill_path, memory_path, claude_code, desks_travel, review_thresholds}, checked."""
    path = RECORDED if reads_record() else os.path.join(os.fspath(root), ANSWERS_FILE)
    try:
        with open(path, "rb") as handle:
            data = handle.read(LARGEST + 1)
    except FileNotFoundError:
        raise UsageError(
            f"no {ANSWERS_FILE} at {root}: eco-mem is not installed there"
            " (--root names the repository)"
        ) from None
    if len(data) > LARGEST:
        raise UsageError(f"{ANSWERS_FILE} is larger than an answers file can be")
    answers = read_answers(data.decode("utf-8-sig", "replace"))  # YAML skips a BOM too
    return checked(answers)


def reads_record() -> bool:
    """Whether `settings` reads this copy's own record (the git dir's copy) rather than
    the work tree's answers file."""
    return IN_GIT_DIR_COPY and os.path.isfile(RECORDED)


def read_answers(text: str) -> dict:
    """Top-level `key: value` scalars; a key whose value is not one maps to `...`."""
    answers: dict = {}
    key = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t-":  # a value continued, or a list item: not a scalar
            if key is not None:
                answers[key] = ...
            continue
        key, colon, value = line.partition(":")
        key = key.strip()
        if not key or not PLAIN_KEY.issuperset(key):
            answers[OTHER_SHAPE] = ...
        answers[key] = scalar(value.strip()) if colon else ...
    return answers


def scalar(value: str):
    if value.startswith('"'):  # as the template quotes: the answers read need no escapes
        if len(value) < 2 or not value.endswith('"') or "\\" in value or '"' in value[1:-1]:
            return ...
        return value[1:-1]
    if value.startswith("'"):
        if len(value) < 2 or not value.endswith("'"):
            return ...
        return value[1:-1].replace("''", "'")
    if value in SCALARS:
        return SCALARS[value]
    if value.isdigit():
        return int(value)
    if value[0] in "[{&*!|>%@`":
        return ...
    return value.split(" #", 1)[0].rstrip()


def recorded(found: dict) -> str:
    """`settings`' answers as the file the git dir's copy keeps (RECORDED)."""
    return "".join(
        f"{name}: {str(value).lower() if isinstance(value, bool) else value}\n"
        for name, value in sorted(found.items())
    )


def checked(answers: dict) -> dict:
    if OTHER_SHAPE in answers:
        raise UsageError(
            f"{ANSWERS_FILE}: a key is not in the shape Copier writes (a plain"
            " `name: value` per line; a quoted, `? ` or `<<` key is not read)"
        )
    found = {}
    for name in FOLDERS:
        value = answers.get(name)
        why = "is missing" if value is None else _folder_problem(value)
        if why:
            raise UsageError(f"{ANSWERS_FILE}: {name} {why}")
        found[name] = value
    for name in FLAGS:
        value = answers.get(name, False)
        if not isinstance(value, bool):
            raise UsageError(f"{ANSWERS_FILE}: {name} must be true or false")
        found[name] = value
    thresholds = answers.get("review_thresholds") or ""
    if not isinstance(thresholds, str):
        raise UsageError(f"{ANSWERS_FILE}: review_thresholds must be NAME=N pairs")
    found["review_thresholds"] = thresholds
    skill, memory = found["skill_path"] + "/", found["memory_path"] + "/"
    if skill.startswith(memory) or memory.startswith(skill):
        raise UsageError(f"{ANSWERS_FILE}: memory_path and skill_path must not nest")
    return found


def _folder_problem(value) -> str:
    # The reason only, never the value: a branch chose it, and an agent reads this line
    # from every command it runs (find first), so an echo would put the branch's words
    # in front of the agent unjudged (tests/test_answers_as_data.py). store/answers.py
    # then judges the words of a folder read from the work tree.
    if not isinstance(value, str):
        return "must be a folder path"
    return path_rule_problem(value)
