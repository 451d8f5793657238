"""`confirm`: the only way a fact becomes user-confirmed, and only on the user's word."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import Refused
from ..findings import ERROR, Finding
from .memory import EXITS

HELP = "mark a fact user-confirmed, after the user said so"
EPILOG = EXITS
DESCRIPTION = """\
The only way a fact becomes user-confirmed. --by-user states that the user
confirmed it; without it the command refuses. as_of moves to today.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("slug", metavar="SLUG")
    parser.add_argument("--by-user", action="store_true", help="the user confirmed this fact")


def run(root: Path, args: argparse.Namespace) -> int:
    from .memory import written
    from .revise import confirm

    if not args.by_user:
        message = (
            "only the user confirms a fact: ask them, and rerun with --by-user once they agree"
        )
        raise Refused([Finding(args.slug, 0, "semantic.source", ERROR, message)])
    written(root, "confirmed", lambda store, today: [confirm(args, store, today)])
    return 0
