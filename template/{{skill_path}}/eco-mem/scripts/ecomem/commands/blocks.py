"""`blocks`: write or refresh eco-mem's marked blocks in AGENTS.md and CLAUDE.md.

It runs inside `copier copy`, so it depends on nothing but the block writer.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import UsageError

HELP = "write or refresh the AGENTS.md / CLAUDE.md blocks"
DESCRIPTION = """\
Append or replace the eco-mem block in AGENTS.md (and the @AGENTS.md import in
CLAUDE.md when Claude Code support is on; with it off, the block and the
.claude/skills/eco-mem link go). Text outside the markers is never changed;
malformed markers leave every file untouched.
"""
EPILOG = "exit codes: 0 done, 2 malformed markers or I/O error"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(root: Path, args: argparse.Namespace) -> int:
    from ..install import blocks

    try:
        changed = blocks.write_blocks(root)
    except blocks.BlockError as error:
        raise UsageError(str(error)) from None
    print("updated: " + ", ".join(changed) if changed else "blocks already current")
    return 0
