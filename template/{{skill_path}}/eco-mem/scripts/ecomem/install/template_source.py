"""Which template this clone trusts `upgrade` to run, kept where no commit reaches.

The answers file is committed, so its `_src_path` is whatever the last commit
says: a one-line edit on a branch would make `upgrade` run another template
with `--trust` (its tasks and migrations execute on this machine). The source
a person chose (the install's task, or `upgrade --template SRC`) is recorded
in the clone's common git dir instead; `upgrade` runs a source only when the
answers file and that record agree.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from ..errors import UsageError

RECORD = os.path.join("eco-mem", "template-source")
# A URL with a scheme, scp-like `user@host:path`, or Copier's gh:/gl: shortcuts.
REMOTE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://|[^/@:]+@[^/:]+:|gh:|gl:)")
SHORTCUTS = {"gh:": "https://github.com/", "gl:": "https://gitlab.com/"}


def refuse_option(what: str, value: str) -> None:
    """Data that reaches git or Copier as an argument must never read as an option."""
    if value.startswith("-"):
        raise UsageError(f"{what} {value!r} starts with '-': refused, it would read as an option")


def location(source: str, root: Path) -> str:
    """Where git finds `source`: a URL with Copier's gh:/gl: shortcuts expanded, or an
    absolute path (a relative one is read from the repository, as Copier reads it)."""
    if not REMOTE.match(source):
        return str((root / Path(source).expanduser()).resolve())
    for short, long in SHORTCUTS.items():
        if source.startswith(short):
            return long + source[len(short) :]
    return source


def _record_path(root: Path) -> Path | None:
    found = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--git-common-dir"],
        capture_output=True,
        text=True,
    )
    if found.returncode != 0 or not found.stdout.strip():
        return None
    return (root / found.stdout.strip()).resolve() / RECORD  # relative to root when relative


def recorded(root: Path) -> str | None:
    """The source this clone was told to trust, or None when nobody told it yet."""
    path = _record_path(root)
    try:
        text = path.read_text(encoding="utf-8").strip() if path else ""
    except (OSError, UnicodeError):
        return None
    return text or None


def remember(root: Path, source: str) -> bool:
    """Record `source` (as git will find it) for this clone; False outside a git repository."""
    refuse_option("template source", source)
    path = _record_path(root)
    if path is None:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(path.name + ".new")
    scratch.write_text(location(source, root) + "\n", encoding="utf-8")
    os.replace(scratch, path)
    return True


def check_trusted(root: Path, source: str, answers_name: str) -> None:
    """Refuse an answers-file source this clone was never told to trust."""
    refuse_option(f"_src_path in {answers_name}", source)
    trusted = recorded(root)
    move = f"run `eco_mem.py upgrade --template {source}` once to trust it on purpose"
    if trusted is None:
        raise UsageError(
            f"no template source is recorded for this clone; {answers_name} names {source}."
            f" If that is the template you mean, {move}"
        )
    if location(source, root) != trusted:
        raise UsageError(
            f"_src_path in {answers_name} ({source}) is not the template this clone trusts"
            f" ({trusted}); a commit changed it. To switch templates on purpose, {move}"
        )
