"""The host's pre-commit exclude: one marked block in .pre-commit-config.yaml.

Some hooks read no folder settings (end-of-file-fixer and trailing-whitespace
rewrite the catalogs' Markdown; check-added-large-files, at its default 500 KB, refuses
the runtime file, `scripts/eco_mem.pyz`). Only pre-commit's top-level `exclude` keeps
them out of the skill and the memory, so `blocks` (install, every update, the fleet) appends one in an eco-mem
block, and uninstall takes it out (install/uninstall.py).

Written only where it cannot change what the host meant: a config file that already
exists (never created), is a block mapping eco-mem can append a key to, and has no
top-level `exclude` of its own. With the host's own exclude, nothing is written and
the operator is told the alternative to join to it with `|`.

Stdlib only, like the rest of ops.py: the file is read as lines, not parsed as YAML.
The tests check every shape written with `yaml.safe_load` and `pre-commit
validate-config`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ecomem import protocol
from ecomem.gitsetup.markers import remove_block, upsert_block
from ecomem.gitsetup.track import CLAUDE_LINK
from ecomem.safe_open import read_host_text, write_text

from . import hooks

# pre-commit reads the first name; the second is a spelling some hosts use.
CONFIG_NAMES = (".pre-commit-config.yaml", ".pre-commit-config.yml")
MARKERS = ("# eco-mem:begin", "# eco-mem:end")
BLOCK_NOTE = "# Written by eco-mem: no hook reads or rewrites its files (docs/install.md)."

# A top-level key: at column 0, bare or quoted.
_EXCLUDE_KEY = re.compile(r"""^(exclude|"exclude"|'exclude')[ \t]*:""")


def config_files(root: Path) -> list[str]:
    """The host's pre-commit configs by the names above."""
    return [name for name in CONFIG_NAMES if os.path.isfile(root / name)]


def _regex(path: str) -> str:
    """`path` as a Python regex matching it literally (its parts passed path_rule.py, so
    `.` is the only metacharacter in practice)."""
    return "".join("\\" + char if char in ".^$*+?{}[]\\|()" else char for char in path)


def exclude_pattern(root: Path) -> str:
    """The skill and every memory folder; with Claude Code on, its link to the skill too,
    which a clone without symlinks checks out as a one-line text file that a hook such
    as end-of-file-fixer would rewrite, and the Biome settings the install wrote."""
    from ecomem.store.stores import all_stores

    # The root's memory, then each package store (`init PATH`), as blocks refreshes them.
    folders = [protocol.SKILL_DIR, *all_stores(root)]
    files = []
    if protocol.CLAUDE_CODE and os.path.lexists(root / CLAUDE_LINK):
        files.append(CLAUDE_LINK)
    # The Biome settings beside our settings.json (hooks.py) are JSONC, which a host's
    # check-json would refuse; while they are ours, no hook sees them either.
    if hooks.our_biome_settings(root):
        files.append(hooks.BIOME_SETTINGS)
    return pattern_for(folders, files)


def pattern_for(folders: list[str], files: list[str]) -> str:
    """The exclude for everything below `folders` and for each of `files` itself."""
    return f"^({'|'.join(map(_regex, folders))})/" + "".join(f"|^{_regex(f)}$" for f in files)


def block_lines(pattern: str) -> list[str]:
    # Single-quoted: YAML reads a backslash there as itself, and the paths hold no quote.
    return [BLOCK_NOTE, f"exclude: '{pattern}'"]


def _appendable(lines: list[str]) -> bool:
    """False for a flow mapping (`{...}`) or a file with a second document or a document
    end: a key appended there would not join the one mapping pre-commit reads."""
    if lines[0].startswith(("{", "[")):
        return False
    rest = lines[1:] if lines[0].startswith("---") else lines
    return not any(line.startswith(("---", "...")) for line in rest)


def _host_lines(host: str) -> list[str]:
    """The lines that are the host's YAML: comments and blank lines left out."""
    return [line for line in host.splitlines() if line.strip() and not line.startswith("#")]


def sync_exclude(root: Path) -> tuple[list[str], list[str]]:
    """Bring the block in each pre-commit config of the host up to date.

    Returns (the names of the files changed, lines for the operator).
    """
    names = config_files(root)
    if not names:
        return [], []
    pattern = exclude_pattern(root)  # asks git for the package stores: once, not per file
    # Every file planned before any is written: malformed markers in one leave both.
    plans = [(name, *_planned(root, name, pattern)) for name in names]
    for name, new, _ in plans:
        if new is not None:
            write_text(root, root / name, new, follow=True)
    return [name for name, new, _ in plans if new is not None], [why for *_, why in plans if why]


def _planned(root: Path, name: str, pattern: str) -> tuple[str | None, str]:
    """(the file's new text, or None to leave it; a line for the operator or "")."""
    original = read_host_text(root, root / name)
    if original is None:
        return None, ""
    host = remove_block(original, name, MARKERS)
    lines = _host_lines(host)
    said = ""
    if not lines:
        new = host  # an empty config is the host's to fill; nothing to exclude from
    elif any(_EXCLUDE_KEY.match(line) for line in lines):
        new = host
        said = (
            f"{name} has its own top-level exclude, so eco-mem added none: join"
            f" {pattern} to it with | to keep hooks out of eco-mem's files"
        )
    elif not _appendable(lines):
        new = host
        said = (
            f"{name} is not one block mapping eco-mem can add a key to: add"
            f" exclude: '{pattern}' to it by hand to keep hooks out of eco-mem's files"
        )
    else:
        new = upsert_block(host, block_lines(pattern), name, MARKERS)
    return (None if new == original else new), said
