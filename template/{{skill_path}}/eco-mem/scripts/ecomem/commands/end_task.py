"""`end-task`: the relay. Print the desk, promote what lasts, clear the desk.

The promotion (a fact or an episode) and the desk's removal are one write: if the gate
refuses the promotion, the desk stays where it was.
"""

from __future__ import annotations

from argparse import Namespace
from datetime import date

from ..store.entries import pick
from ..store.load import Store
from ..write import gate
from ..write.writer import UsageError
from . import new

PROMOTION_OPTIONS = {
    "semantic": ("title", "source", "scope", "expires"),
    "episodic": ("title", "context", "action", "result", "lesson"),
}


def end_task(args: Namespace, body: str | None, store: Store, today: date) -> list[gate.Change]:
    hit = pick(store, args.slug, "working")
    changes = []
    if args.promote_to:
        missing = [
            "--" + name.replace("_", "-")
            for name in PROMOTION_OPTIONS[args.promote_to]
            if getattr(args, name) is None
        ]
        if missing:
            raise UsageError(f"--promote-to {args.promote_to} needs {', '.join(missing)}")
        if args.promote_to == "semantic":
            changes.append(new.semantic(args, body or "", store, today))
        else:
            changes.append(new.episodic(args, store, today))
    desk = gate.Change("working")
    desk.files[hit.file] = None  # a desk has no row: its file is the whole of it
    changes.append(desk)
    return changes


def desk_text(store: Store, slug: str) -> tuple[str, str]:
    """(path, text) of the desk, read before it goes."""
    hit = pick(store, slug, "working")
    entry = hit.drawer.entries.get(hit.file)
    text = "\n".join(entry.lines) + "\n" if entry and entry.lines is not None else ""
    return f"{hit.drawer.relpath}/{hit.file}", text
