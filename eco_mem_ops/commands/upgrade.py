"""`upgrade`: `copier update` for eco-mem that cannot report success over a conflict."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HELP = "copier update with a conflict check"
DESCRIPTION = """\
Run `copier update --trust -a ANSWERS_FILE` for eco-mem, then check the
result: unmerged paths, conflict markers and .rej files are listed with what
to do, and the command exits 1. Deleted drawer INDEX files are restored and
the AGENTS.md, CLAUDE.md and .gitignore blocks refreshed. Refuses to start on
a dirty git tree, when the template cannot be reached, or when the answers
file names a template this clone was never told to trust (`--template SRC`
trusts one on purpose). Renders only releases: the template's release tags
are fetched once into a snapshot, and the installed `_commit` and --vcs-ref
must each name one (a tag, or the commit a tag points to). Says so at
once when the recorded version is the newest release. Without a terminal
the recorded answers are used.
Arguments after `--` go to copier unchanged.
"""
EPILOG = "exit codes: 0 updated cleanly, 1 conflicts to resolve, 2 refused or failed."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-r",
        "--vcs-ref",
        metavar="REF",
        help="a release tag, or the commit one points to (default: the newest release)",
    )
    parser.add_argument(
        "-l",
        "--defaults",
        action="store_true",
        help="ask nothing: recorded answers, defaults for new questions (automatic without a terminal)",
    )
    parser.add_argument(
        "-d", "--data", action="append", default=[], metavar="KEY=VALUE", help="answer a question"
    )
    parser.add_argument(
        "--template",
        metavar="SRC",
        help="trust this template (URL or path) in this clone; when it is a new home,"
        " also record it as _src_path in the answers file and commit that",
    )
    parser.add_argument(
        "--releases",
        metavar="DIR",
        help="render from this release snapshot, fetched once for a whole fleet run"
        " (the fleet passes it), instead of fetching the releases again",
    )
    parser.add_argument(
        "--remember-source",
        metavar="SRC",
        help="only record SRC as the template this clone trusts (the install's task runs this)",
    )
    parser.add_argument(
        "copier_args", nargs=argparse.REMAINDER, help="anything after -- goes to copier unchanged"
    )


def run(root: Path, args: argparse.Namespace) -> int:
    from ..install import template_source

    if args.remember_source is not None:
        # The install's task: the person running `copier copy` chose this template.
        unread = template_source.not_modelled(args.remember_source or "")
        if unread:
            # The copy itself is done; only `upgrade` will need the source named.
            print(f"eco-mem: {args.remember_source} is not trusted: {unread}", file=sys.stderr)
        elif args.remember_source:
            template_source.remember(root, args.remember_source)
        return 0
    # Nothing to do is answered here, before the upgrade machinery (and Copier) loads.
    current = template_source.already_newest(root, args)
    if current:
        print(current)
        return 0
    from ..install import upgrade

    return upgrade.run(root, args)
