"""The one reader of the host's Copier answers file (no YAML library needed)."""

from __future__ import annotations

import os
from pathlib import Path

from .. import protocol
from ..errors import UsageError
from ..path_rule import path_rule_problem

# The answers that name folders: judged by the template's one path rule on every read,
# so a hand-edited answers file is refused before Copier or a command uses the path.
PATH_ANSWERS = ("skill_path", "memory_path")


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
    the path rule is a usage error (its value is never printed)."""
    answers = {}
    for line in read_text(path).splitlines():
        if line.startswith(("#", " ", "-")) or ":" not in line:
            continue
        key, _, value = line.partition(":")
        answers[key.strip()] = value.strip().strip("'\"")
    for key in PATH_ANSWERS:
        why = path_rule_problem(answers[key]) if key in answers else ""
        if why:
            raise UsageError(f"{path.name}: {key} {why}; restore it from git")
    return answers


def folder_problem(root: Path, folder: str) -> str:
    """Where a folder answer really leads when that is out of the repository or into
    `.git` (any letter case, links resolved: a committed `lnk -> .git`), else ""."""
    top = os.path.realpath(root)
    real = os.path.realpath(os.path.join(top, folder or "."))
    inside = os.path.relpath(real, top)
    if inside.split(os.sep)[0] == os.pardir:
        return f"leads out of the repository (to {real})"
    if any(part.lower() == ".git" for part in (*folder.split("/"), *inside.split(os.sep))):
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
