"""eco-mem's marked block in the root .gitattributes.

Git for Windows checks text out with CRLF (core.autocrlf=true), and verify reads a
CR as `file.crlf`: a Windows clone would fail verify on every memory file. The
`eol=lf` lines make git check the memory drawers and the skill out with LF on
every platform, whatever the clone's autocrlf. Same marker rules as the other
host files: the host's own lines survive byte for byte (markers.py).
"""

from __future__ import annotations

from .. import protocol

GITATTRIBUTES = ".gitattributes"
MARKERS = ("# eco-mem:begin", "# eco-mem:end")


def _pattern(folder: str) -> str:
    pattern = f"{folder}/**"
    # A space would split the pattern from its attributes; git reads a quoted one.
    return f'"{pattern}"' if " " in pattern or '"' in pattern else pattern


def eol_lines() -> list[str]:
    """The block's line-ending lines: memory and skill check out with LF everywhere."""
    return [
        "# eco-mem: memory and skill check out with LF everywhere (Git for Windows too)",
        f"{_pattern(protocol.MEMORY_DIR)} text eol=lf",
        f"{_pattern(protocol.SKILL_DIR)} text eol=lf",
    ]


def block_lines() -> list[str]:
    """Everything eco-mem keeps in the root .gitattributes block."""
    return eol_lines()
