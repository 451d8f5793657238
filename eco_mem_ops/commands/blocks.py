"""`blocks`: write or refresh eco-mem's marked blocks in AGENTS.md and CLAUDE.md, its
SessionStart hook in .claude/settings.json (install/hooks.py), and its pre-commit
exclude in a host's .pre-commit-config.yaml (install/precommit.py).

It runs inside `copier copy` (a task) and after every `copier update` (a migration), so
it depends on nothing but the block and hook writers.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ecomem.errors import UsageError

HELP = "write or refresh the AGENTS.md / CLAUDE.md blocks (every package store's too) and the Claude Code hook"
DESCRIPTION = """\
Append or replace the eco-mem block in AGENTS.md (and, when Claude Code support is
on, the @AGENTS.md import in CLAUDE.md and a SessionStart hook in
.claude/settings.json that prints `context`; with it off, the block, the hook and
the .claude/skills/eco-mem link go). In a .pre-commit-config.yaml the host already
has, with no top-level `exclude` of its own, a block holding an `exclude` that keeps
every hook out of the skill and the memory; with the host's own exclude, nothing is
written and a message names the alternative to join to it. Text outside the markers,
and every other key of settings.json, is never changed; malformed markers leave every
file untouched. A settings.json that is not a JSON object is left untouched, with a
message.
"""
EPILOG = "exit codes: 0 done (also when settings.json is left untouched), 2 malformed markers or I/O error"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(root: Path, args: argparse.Namespace) -> int:
    import sys

    from ecomem.hostfiles import blocks

    from ..install import hooks, package_refresh, precommit

    existed = {name: os.path.lexists(root / name) for name in (*HOST_FILES, hooks.SETTINGS)}
    try:
        changed = blocks.write_blocks(root)
    except blocks.BlockError as error:
        raise UsageError(str(error)) from None
    # Package stores (`init PATH`): their AGENTS.md blocks and INDEX contracts, rows kept.
    changed += package_refresh.refresh_packages(root)
    try:
        if hooks.sync_hook(root):
            changed.append(f"{hooks.SETTINGS} (SessionStart hook)")
    except (hooks.HookError, OSError) as error:
        # The host's file: the rest of the install stands, and the copy goes on.
        print(f"ops.py blocks: {error}", file=sys.stderr)
    try:
        written, said = precommit.sync_exclude(root)
    except (blocks.BlockError, UnicodeError, OSError, UsageError) as error:
        written, said = [], [f"{error}; the pre-commit exclude was left as it was"]
    changed += [f"{name} (pre-commit exclude)" for name in written]
    for line in said:
        # The host's file: one line for the operator, and the install goes on.
        print(f"ops.py blocks: {line}", file=sys.stderr)
    print(report(changed, existed))
    return 0


HOST_FILES = ("AGENTS.md", "CLAUDE.md")


def report(changed: list[str], existed: dict[str, bool]) -> str:
    """`created: …; updated: …`: a file that was not there before is created, not updated."""
    created = [name for name in changed if existed.get(name.split(" ")[0]) is False]
    updated = [name for name in changed if name not in created]
    said = [
        f"{verb}: {', '.join(names)}"
        for verb, names in (("created", created), ("updated", updated))
        if names
    ]
    return "; ".join(said) or "blocks already current"
