"""`uninstall`: take eco-mem out of this repository, host files back as they were."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ecomem.errors import UsageError

HELP = "remove eco-mem from this repository (memory stays unless --memory)"
DESCRIPTION = """\
Undo the install: remove the skill folder, the eco-mem blocks in AGENTS.md,
CLAUDE.md, .gitignore and .gitattributes, the catalog merge driver in this
clone's git config, the .claude/skills/eco-mem link, the CI workflow the
template rendered and the copier answers file. A host file that held only our
block goes; every other host byte stays as it is. The memory folder stays,
INDEX files included, so what the team wrote is still readable; --memory
removes it too. Refuses a dirty git tree; changes nothing else in git: review
`git status`, then commit.
"""
EPILOG = "exit codes: 0 removed (or nothing to remove), 2 refused, usage or I/O error."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--memory",
        action="store_true",
        help="also delete the memory folder: every entry, open desk and INDEX file",
    )
    parser.add_argument(
        "-n", "--dry-run", action="store_true", help="list what would go, change nothing"
    )
    parser.add_argument("--json", action="store_true", help="print the changes as JSON")


def run(root: Path, args: argparse.Namespace) -> int:
    from ecomem import protocol

    from ..install import uninstall

    changes = uninstall.plan(root, args)
    problem = uninstall.dirty(root) if changes else ""
    if problem and not args.dry_run:
        raise UsageError(f"refusing to start: {problem}")
    if not args.dry_run:
        uninstall.apply(changes)
    kept = None if args.memory else protocol.MEMORY_DIR
    if args.json:
        report = {
            "version": 1,
            "dry_run": args.dry_run,
            "changes": [change.as_dict() for change in changes],
            "memory_kept": kept if kept and (root / kept).is_dir() else None,
            "refused": problem or None,
        }
        print(json.dumps(report, indent=2))
        return 0
    if not changes:
        print("eco-mem is not installed here; nothing to remove")
        return 0
    tense = 0 if args.dry_run else 1
    for change in changes:
        verb = VERBS[change.action][tense]
        print(f"{'would ' if args.dry_run else ''}{verb} {change.path} ({change.note})")
    if kept and (root / kept).is_dir():
        said = "would keep" if args.dry_run else "kept"
        print(f"{said} {kept}/: its INDEX files list what it holds; --memory removes it")
    if args.dry_run:
        print(
            f"dry run: nothing changed{f'; a real run would refuse: {problem}' if problem else ''}"
        )
        return 0
    hidden = uninstall.hidden_memory(root) if kept and (root / kept).is_dir() else []
    for line in hidden:  # the memory stays, but git would not keep what is written there
        print(f"ops.py uninstall: warning: {line}", file=sys.stderr)
    if hidden:
        print(
            f"ops.py uninstall: warning: memory written in {kept}/ from now on would never"
            " reach a commit; change the rule named above, or add a re-include for it",
            file=sys.stderr,
        )
    print("eco-mem removed; review `git status`, then commit")
    return 0


# What each kind of change is called before (dry run) and after it is made.
VERBS = {
    "delete": ("delete", "deleted"),
    "edit": ("edit", "edited"),
    "config": ("remove from git config", "removed from git config"),
}
