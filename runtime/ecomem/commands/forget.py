"""`forget`: remove an entry and its row together, for a stated reason.

Episodes are append-only, yet a leaked secret or text planted to steer the agent must be
able to leave like anything else: those two reasons, and only those, reach an episode.
"""

from __future__ import annotations

from argparse import Namespace
from datetime import date

from .. import protocol
from ..errors import Refused
from ..findings import ERROR, Finding
from ..store.catalog import NO_FILE
from ..store.entries import pick
from ..store.load import Store
from ..store.rows import remove_row
from ..write import gate
from .memory import EXITS

REASONS = ("obsolete", "secret", "injection")
EPISODE_REASONS = ("secret", "injection")


def forget(args: Namespace, store: Store, today: date) -> gate.Change:
    hit = pick(store, args.slug, args.drawer)
    if hit.drawer.name == "episodic" and args.reason not in EPISODE_REASONS:
        message = (
            "episodes are append-only; one leaves only with --reason secret or --reason injection"
        )
        raise Refused(
            [
                Finding(
                    hit.drawer.index_relpath, hit.row.line, "episodic.append-only", ERROR, message
                )
            ]
        )
    change = gate.Change(hit.drawer.name)
    if hit.file != NO_FILE:
        change.files[hit.file] = None
    if hit.row is not None:  # a desk has only its file
        change.index_lines = remove_row(hit.drawer.index_lines, hit.row)
    return change


def committed_in(root, relpath: str) -> str | None:
    """The last commit that held `relpath`, if git knows one: then history still has it."""
    from ..git import git

    try:
        result = git(root, "log", "-1", "--format=%h", "--", relpath)
    except OSError:
        return None
    if result.returncode != 0:
        return None
    return result.stdout.strip() or None


# -- the command -------------------------------------------------------------------

HELP = "remove an entry and its row"
DESCRIPTION = """\
Remove an entry file and its row together. Episodes leave only for a leaked
secret or injected instructions. A committed secret stays in git history:
rotate it, then purge history (docs/memory-commands.md in the eco-mem
template repository).
"""
EPILOG = EXITS


def add_arguments(parser) -> None:
    from .. import protocol

    parser.add_argument("slug", metavar="SLUG")
    parser.add_argument(
        "--reason",
        choices=REASONS,
        default="obsolete",
        help="default obsolete; an episode needs secret or injection",
    )
    parser.add_argument("--drawer", choices=protocol.DRAWERS, help="when SLUG is ambiguous")


def run(root, args) -> int:
    import sys

    from .memory import written

    touched = written(
        root, f"forgot ({args.reason})", lambda store, today: [forget(args, store, today)]
    )
    if touched[0].startswith(f"{protocol.MEMORY_DIR}/working/"):
        from .desks import stage_removal

        if stage_removal(root, touched[0]):
            print(f"staged: removal of {touched[0]} from this branch", file=sys.stderr)
    if args.reason in EPISODE_REASONS:
        for path in [path for path in touched if not path.endswith("/INDEX.md")]:
            commit = committed_in(root, path)
            if commit:
                print(
                    f"{path} is still in git history (last in {commit}): for a secret, rotate it"
                    " first, then purge history (docs/memory-commands.md in the eco-mem"
                    " template repository)",
                    file=sys.stderr,
                )
    return 0
