"""`forget`: remove an entry and its row together, for a stated reason.

Episodes are append-only, yet a leaked secret or text planted to steer the agent must be
able to leave like anything else: those two reasons, and only those, reach an episode.
"""

from __future__ import annotations

from argparse import Namespace
from datetime import date

from ..findings import ERROR, Finding
from ..store.catalog import NO_FILE
from ..store.entries import pick
from ..store.load import Store
from ..store.rows import remove_row
from ..write import gate
from ..write.writer import Refused

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
    import subprocess

    try:
        result = subprocess.run(
            ["git", "-C", str(root), "log", "-1", "--format=%h", "--", relpath],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError:
        return None
    if result.returncode != 0:
        return None
    return result.stdout.strip() or None
