"""Wire the catalog merge into git: a .gitattributes block and the clone's driver.

Two halves, because git keeps them apart on purpose. The root .gitattributes
(committed, shared) names the four drawer INDEX.md files with
`merge=eco-mem-catalog`; what that driver runs lives in each clone's own
.git/config, which no commit can set. A clone without the config merges those
files exactly as before: git falls back to its text merge for a driver it does
not know. `track` (run by copy, update and upgrade) writes both; every memory
command checks the config by reading .git/config and writes it only when it is
missing, so a fresh clone gets it the first time an agent uses memory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .. import protocol
from ..git import git_dirs
from ..safe_open import remove, target, write_text
from ..store.load import INDEX
from .markers import remove_block, upsert_block

ATTRIBUTES = ".gitattributes"
MARKERS = ("# eco-mem:begin", "# eco-mem:end")
BLOCK_NOTE = "# Written by eco_mem.py track: catalogs merge row by row, memory checks out LF (docs/teamwork.md)."
DRIVER = "eco-mem-catalog"
DRIVER_NAME = "eco-mem catalog rows, merged row by row"
SECTION = re.compile(r'^\s*\[\s*merge\s+"eco-mem-catalog"\s*\]\s*$')
SECTION_START = re.compile(r"^\s*\[")
DRIVER_LINE = re.compile(r"^\s*driver\s*=\s*(.*?)\s*$")


def _pattern(path: str, under: bool = False) -> str:
    """A .gitattributes pattern that matches exactly this repo-relative path
    (with `under`, everything below that folder)."""
    pattern = "/" + "".join("\\" + char if char in "*?[\\" else char for char in path)
    pattern += "/**" if under else ""
    if any(char.isspace() or char == '"' for char in pattern):
        # Quoted C-style, the form git reads for patterns with spaces.
        return '"' + pattern.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return pattern


def block_lines(root: Path) -> list[str]:
    """The block's lines: one per drawer catalog that exists, nothing when none does."""
    lines = []
    for drawer in protocol.DRAWERS:
        path = f"{protocol.MEMORY_DIR}/{drawer}/{INDEX}"
        if (root / path).is_file():
            lines.append(f"{_pattern(path)} merge={DRIVER}")
    if not lines:
        return []
    return [BLOCK_NOTE, *lines, *eol_lines()]


def eol_lines() -> list[str]:
    """Memory and skill check out with LF on every platform: Git for Windows checks text
    out with CRLF (core.autocrlf=true), which verify reads as `file.crlf`."""
    return [
        f"{_pattern(protocol.MEMORY_DIR, under=True)} text eol=lf",
        f"{_pattern(protocol.SKILL_DIR, under=True)} text eol=lf",
    ]


def _read(root: Path, path: Path) -> str | None:
    real = target(root, path, follow=True)  # never a link out of the repository
    if not os.path.exists(real):
        return None
    with open(real, encoding="utf-8", newline="") as handle:
        return handle.read()


def write_attributes(root: Path) -> bool:
    """Refresh the block in the root .gitattributes (host lines kept byte for byte).
    Returns whether the file changed; a file left empty by removing the block goes."""
    path = root / ATTRIBUTES
    original = _read(root, path)
    body = block_lines(root)
    host = remove_block(original or "", ATTRIBUTES, MARKERS)
    text: str | None = upsert_block(host, body, ATTRIBUTES, MARKERS) if body else host
    if original is None and not text:
        text = None
    if text == original:
        return False
    if text:
        write_text(root, path, text, follow=True)
    else:
        remove(root, path)
    return True


def driver_command() -> str:
    """What git runs, from the work tree's top folder: %O base, %A ours (the result), %B theirs."""
    script = f"{protocol.SKILL_DIR}/scripts/eco_mem.py"
    if any(char.isspace() or char in "'\"\\$`" for char in script):
        script = "'" + script.replace("'", "'\\''") + "'"
    # git's own text merge first: with rows placed by key, most concurrent changes
    # touch different lines, and then its answer is the row-wise one (an identical row
    # added on both sides is kept once). Only when it conflicts does Python start, and
    # merge-catalog merges row by row (exit 0 merged, 1 a row conflict it marked). If
    # Python cannot run or fails (exit 2 or more, 127 when there is no python3), git's
    # own text merge, markers and all, is the result: never less than plain git gives.
    # -S: no site module; the driver needs only the standard library, and site may
    # import much more (a .pth file of a package).
    merged = "%A.eco-mem"
    return (
        f"git merge-file -q -p %A %O %B > {merged} 2>/dev/null; m=$?;"
        f" if [ $m = 0 ]; then mv -f {merged} %A; exit 0; fi;"
        f" python3 -S {script} merge-catalog %O %A %B %P; s=$?;"
        f" if [ $s -gt 1 ] && [ $m -lt 128 ]; then mv -f {merged} %A; exit 1; fi;"
        f" rm -f {merged}; exit $s"
    )


def config_file(root: Path) -> Path | None:
    """The config git reads for this work tree: .git/config, or for a linked worktree
    the common dir's config. None outside git."""
    dirs = git_dirs(root)
    return dirs[1] / "config" if dirs else None


def configured_driver(text: str) -> str | None:
    """The `driver` value of [merge "eco-mem-catalog"] in a git config text, if any."""
    inside, found = False, None
    for line in text.splitlines():
        if SECTION_START.match(line):
            inside = bool(SECTION.match(line))
            continue
        match = DRIVER_LINE.match(line) if inside else None
        if match:
            value = match.group(1)
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            found = value
    return found


def ensure_driver(root: Path) -> bool:
    """Set merge.eco-mem-catalog.driver (and .name) in the clone's config when it is
    missing or stale. One file read when all is well; True if it wrote."""
    config = config_file(root)
    if config is None or not config.is_file():
        return False
    with config.open(encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    if configured_driver(text) == driver_command():
        return False
    from ..git import output  # only on the first run in a clone

    for key, value in (("name", DRIVER_NAME), ("driver", driver_command())):
        output(config.parent, "config", "--file", os.fspath(config), f"merge.{DRIVER}.{key}", value)
    return True
