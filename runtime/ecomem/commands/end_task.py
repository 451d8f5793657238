"""`end-task`: the relay. Print the desk, promote what lasts, clear the desk.

The promotion (a fact or an episode) and the desk's removal are one write: if the gate
refuses the promotion, the desk stays where it was.

A travelling desk (one git tracks) leaves its branch in a commit, and a relay is done only
when what it promoted is in that same commit: a cloud runner's clone is thrown away. So
when the desk was tracked, the removal, the promoted entry and its catalog row are all
staged, and the output says which. A catalog that held other unstaged edits before the
write is not staged (that would commit someone else's work); the output says so.
"""

from __future__ import annotations

from argparse import Namespace
from datetime import date

from ..errors import UsageError
from ..store.entries import pick
from ..store.load import Store
from ..write import gate
from . import new
from .memory import EPISODE_OPTIONS, EXITS, FACT_OPTIONS, refuse_options

# Options only the other kind of promotion takes (--title is shared).
OTHER_OPTIONS = {
    "semantic": (*(name for name in FACT_OPTIONS if name != "title"), "body"),
    "episodic": tuple(name for name in EPISODE_OPTIONS if name != "title"),
}
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
        other = "episodic" if args.promote_to == "semantic" else "semantic"
        refuse_options(args, OTHER_OPTIONS[other], f"to --promote-to {args.promote_to}")
        if args.promote_to == "semantic":
            changes.append(new.semantic(args, body or "", store, today))
        else:
            changes.append(new.episodic(args, store, today))
    else:
        refuse_options(args, (*FACT_OPTIONS, *EPISODE_OPTIONS, "body"), "without --promote-to")
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


# -- the command -------------------------------------------------------------------

HELP = "print a desk, promote what lasts, clear the desk"
DESCRIPTION = """\
Print the desk, then delete it. --promote-to adds one fact or episode
(the options of `new semantic` or `new episodic`) in the same write; if the
promotion is refused, the desk stays. If the desk travels with the branch (git
tracks it), its removal, the promoted entry and its row are staged, to be
committed together. Nothing is asked interactively.
"""
EPILOG = EXITS


def add_arguments(parser) -> None:
    from .memory import episode_options, fact_options

    parser.add_argument("slug", metavar="SLUG", help="the desk")
    parser.add_argument("--promote-to", choices=("semantic", "episodic"))
    fact_options(parser, required=False)
    episode_options(parser, required=False, title=False)
    parser.add_argument("--json", action="store_true", help="print the desk and paths as JSON")


def refuse_unreviewed(review, desk: str) -> None:
    """end-task prints the desk it clears: a desk a branch brought in, unreviewed, is
    someone else's text, printed only quoted, by `adopt`, with the user's OK."""
    origin = review.file(desk)
    if origin is None:
        return
    from ..errors import Refused
    from ..findings import ERROR, Finding

    message = (
        f"this {origin.line()} is not this clone's and no review passed it: `adopt"
        f" {origin.slug}` shows it to the user; end it once they agreed and it was taken"
    )
    raise Refused([Finding(desk, 0, "working.unreviewed", ERROR, message)])


def run(root, args) -> int:
    import sys

    from ..write import writer
    from .memory import nonempty_body

    body = nonempty_body(args.body) if args.promote_to == "semantic" else None
    result: dict = {}

    from ..store.provenance import unreviewed

    review = unreviewed(root)

    def build(store, today):
        result["desk"], result["text"] = desk_text(store, args.slug)
        refuse_unreviewed(review, result["desk"])
        changes = end_task(args, body, store, today)
        result["promoted"] = [
            f"{store.relpath}/{change.drawer}/{name}"
            for change in changes[:-1]
            for name in change.files
        ]
        # The catalogs as they were: staged after the write only if git held them so.
        catalogs[:] = [
            (store.drawers[change.drawer].index_relpath, store.drawers[change.drawer].index_lines)
            for change in changes[:-1]
            if change.index_lines is not None
        ]
        return changes, result

    catalogs: list = []
    writer.write(root, build)
    from .desks import stage_relay, stage_removal

    # A travelling desk leaves the branch with the same commit that relays it.
    result["unstaged"] = stage_removal(root, result["desk"])
    result["staged"], result["not_staged"] = [], []
    if result["unstaged"]:
        result["staged"], result["not_staged"] = stage_relay(root, result["promoted"], catalogs)
    if args.json:
        import json

        print(json.dumps({"version": 1, **result}, indent=2))
        return 2 if result["not_staged"] else 0
    sys.stdout.write(result["text"])
    for path in result["promoted"]:
        print(f"promoted: {path}", file=sys.stderr)
    print(f"cleared: {result['desk']}", file=sys.stderr)
    if result["unstaged"]:
        print(f"staged: removal of {result['desk']} from this branch", file=sys.stderr)
    for path in result["staged"]:
        print(f"staged: {path}", file=sys.stderr)
    for path, why in result["not_staged"]:
        print(f"eco_mem.pyz end-task: not staged: {path}: {why}", file=sys.stderr)
    if result["unstaged"] and result["promoted"]:
        said = "commit them together" if not result["not_staged"] else "stage the rest, then"
        print(f"{said}: the relay is done when one commit holds all of it", file=sys.stderr)
    return 2 if result["not_staged"] else 0
