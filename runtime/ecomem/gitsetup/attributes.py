"""Wire the catalog merge into git: a .gitattributes block and the clone's driver.

Two halves, because git keeps them apart on purpose. The root .gitattributes
(committed, shared) names the four drawer INDEX.md files with
`merge=eco-mem-catalog`; what that driver runs lives in each clone's own git
config and git dir, which no commit can set (gitsetup/driver.py). A clone
without them merges those files exactly as before: git falls back to its text
merge for a driver it does not know. `track` (run by copy, update and upgrade)
writes both; every memory command checks the driver and writes it only when it
is missing or stale, so a fresh clone gets it the first time an agent uses
memory. `ensure_driver` is the driver's entry, here beside the block for the
callers that handle both (the operator's uninstall removes the driver:
eco_mem_ops/install/driver_removal.py).
"""

from __future__ import annotations

from pathlib import Path

from .. import protocol
from ..safe_open import read_host_text, remove, write_text
from ..store.load import INDEX
from .driver import DRIVER, ensure_driver  # noqa: F401 (callers import them here)
from .markers import remove_block, upsert_block

ATTRIBUTES = ".gitattributes"
MARKERS = ("# eco-mem:begin", "# eco-mem:end")
BLOCK_NOTE = "# Written by eco_mem.pyz track: catalogs merge row by row, memory checks out LF (docs/teamwork.md)."


_LITERAL = str.maketrans({char: "\\" + char for char in "*?[\\"})  # glob characters


def _pattern(path: str, under: bool = False) -> str:
    """A .gitattributes pattern that matches exactly this repo-relative path
    (with `under`, everything below that folder)."""
    pattern = "/" + path.translate(_LITERAL)
    pattern += "/**" if under else ""
    # Each distinct character once: a monorepo's store paths run to kilobytes of few.
    if any(char.isspace() or char == '"' for char in set(pattern)):
        # Quoted C-style, the form git reads for patterns with spaces.
        return '"' + pattern.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return pattern


def block_lines(root: Path) -> list[str]:
    """The block's lines: one per drawer catalog that exists, in every store (the root's
    and each package's), nothing when none does."""
    from ..store.stores import all_stores

    lines, memories = [], []
    for memory_dir in all_stores(root):
        for drawer in protocol.DRAWERS:
            path = f"{memory_dir}/{drawer}/{INDEX}"
            if (root / path).is_file():
                lines.append(f"{_pattern(path)} merge={DRIVER}")
                if memory_dir not in memories:
                    memories.append(memory_dir)
    if not lines:
        return []
    return [BLOCK_NOTE, *lines, *eol_lines(root, memories), *vendored_lines(root)]


def eol_lines(root: Path, memories: list[str] | None = None) -> list[str]:
    """Memory and skill check out with LF on every platform: Git for Windows checks text
    out with CRLF (core.autocrlf=true), which verify reads as `file.crlf`."""
    from .track import git_name  # a folder reached through a link: git's name for it

    return [
        *(
            f"{_pattern(git_name(root, memory), under=True)} text eol=lf"
            for memory in memories or [protocol.MEMORY_DIR]
        ),
        f"{_pattern(git_name(root, protocol.SKILL_DIR), under=True)} text eol=lf",
    ]


def vendored_lines(root: Path) -> list[str]:
    """The skill's scripts are vendored code to the host's tools: GitHub's language
    statistics leave them out, so a JavaScript repository does not show as Python."""
    from .track import git_name

    scripts = git_name(root, f"{protocol.SKILL_DIR}/scripts")
    return [f"{_pattern(scripts, under=True)} linguist-vendored"]


def write_attributes(root: Path) -> bool:
    """Refresh the block in the root .gitattributes (host lines kept byte for byte).
    Returns whether the file changed; a file left empty by removing the block goes."""
    path = root / ATTRIBUTES
    original = read_host_text(root, path)
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
