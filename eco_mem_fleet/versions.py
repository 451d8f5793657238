"""What a repository has installed, and which template version is the newest.

Versions compare as Copier compares them (PEP 440, a leading `v` allowed), so
the fleet agrees with `copier update` about what "older" means.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml
from packaging.version import InvalidVersion, Version

ANSWERS_FILE = ".copier-answers.eco-mem.yml"
DEFAULT_SKILL_PATH = ".agents/skills"
# What reading an answers file can raise: it is the repository's data, any bytes at all.
UNREADABLE = (OSError, UnicodeError, yaml.YAMLError)


def unreadable(error: Exception) -> str:
    """The one line that fails a repository whose answers file cannot be read."""
    return f"refused: its answers file cannot be read ({type(error).__name__})"


def read_answers(repo: Path) -> dict | None:
    """The repo's eco-mem answers, or None when eco-mem is not installed."""
    path = repo / ANSWERS_FILE
    if not path.is_file():
        return None
    loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded if isinstance(loaded, dict) else {}


def parse_version(ref: object) -> Version | None:
    """`v1.2.0` -> 1.2.0; `v1.2.0-3-gabc` (git describe) -> 1.2.0.post3; else None."""
    text = str(ref or "")
    described = re.match(r"^(.+)-(\d+)-g(\w+)$", text)
    if described:
        text = f"{described.group(1)}.post{described.group(2)}+{described.group(3)}"
    try:
        return Version(text)
    except InvalidVersion:
        return None


def is_older(installed: object, target: str) -> bool:
    """True when `installed` is behind `target`; a ref that is no version counts as behind."""
    have, want = parse_version(installed), parse_version(target)
    if have is None or want is None:
        return str(installed) != target
    return have < want


def template_source(src: str) -> str:
    """A local template path made absolute, so every clone records one that works later."""
    return os.path.abspath(src) if os.path.exists(src) else src
