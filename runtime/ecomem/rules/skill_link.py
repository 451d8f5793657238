"""A skill link that git checked out as a plain file.

With `core.symlinks=false` (the default of Git for Windows without Developer Mode),
git writes each committed link as a small file holding the link's target. Claude
Code then finds no skill in `.claude/skills/eco-mem`, and nothing else notices: git
reports a clean tree. Verify says so, with the two commands that bring the link back.
Read with one lstat per path and, only for a plain file, one read of a few bytes.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..findings import WARNING, Finding

# The links a Claude Code install reads through: ours, and the host's folder link
# (`.claude/skills -> ../.agents/skills`), which fails the same way.
LINKS = (".claude/skills", ".claude/skills/eco-mem")
# git stores a link's target as its content; a target longer than this is no path.
MAX_TARGET = 4096


def skill_link_findings(root: Path) -> list[Finding]:
    real_root = os.path.realpath(root)
    for link in LINKS:
        path = root / link
        try:
            info = os.lstat(path)
        except OSError:
            continue  # absent, or under a folder that is itself the plain file
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_TARGET:
            continue
        if not _names_a_folder(path, real_root):
            continue
        message = (
            "is a plain file holding a link's target: git checked the link out with"
            " core.symlinks=false, so Claude Code sees no skill here. Run `git config"
            f" core.symlinks true`, then `rm {link} && git checkout -- {link}` (on"
            " Windows, turn on Developer Mode first so git may create links)"
        )
        return [Finding(link, 0, "skill.link-checked-out-as-file", WARNING, message)]
    return []


def _names_a_folder(path: Path, real_root: str) -> bool:
    """True when the file's whole content is a relative path to a folder of this
    repository: a folder outside it is never looked for (a fork's file could otherwise
    ask CI whether some folder of the runner exists)."""
    try:
        target = path.read_bytes()[: MAX_TARGET + 1].decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    if not target or "\n" in target or "\0" in target or os.path.isabs(target):
        return False
    from ..safe_open import _inside  # the writers' own test of a resolved path

    folder = os.path.realpath(os.path.join(os.path.dirname(path), target))
    return _inside(folder, real_root) and os.path.isdir(folder)
