"""`catalog-migrate`: carry catalog rows across a release that reshapes a catalog."""

from __future__ import annotations

import argparse
from pathlib import Path

from ecomem.errors import UsageError

HELP = "carry catalog rows across a release that reshapes a catalog (run by copier)"
DESCRIPTION = """\
Used by the template's _migrations when a release changes a catalog header:
--stage before lifts the rows out (into .git) so copier merges nothing there;
--stage after puts them back under the new header, cells matched by column name,
and moves every package store's rows the same way (Copier never renders those).
"""
EPILOG = "exit codes: 0 done, 2 usage or I/O error"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stage", choices=("before", "after"), required=True)
    parser.add_argument(
        "--rename",
        action="append",
        default=[],
        metavar="DRAWER:OLD=NEW",
        help="a column renamed by the release (repeatable)",
    )


def run(root: Path, args: argparse.Namespace) -> int:
    from ..install import migrate

    try:
        renames = migrate.parse_renames(args.rename)
        if args.stage == "before":
            print(f"catalog rows set aside: {migrate.stash(root)}")
        else:
            print(f"catalog rows restored: {migrate.restore(root, renames)}")
            moved = migrate.reshape_packages(root, renames)
            if moved:
                print(f"package catalog rows moved to the new header: {moved}")
    except ValueError as error:
        raise UsageError(str(error)) from None
    return 0
