"""`restore-indexes`: put back drawer INDEX files a team deleted (a copier after-migration).

It runs after every update, so a plain `copier update` (Renovate's) restores as
`upgrade` does.
"""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "put back drawer INDEX files a team deleted (run by copier after an update)"
DESCRIPTION = """\
Copier keeps a deleted template file deleted. A drawer without INDEX.md is
broken, so this renders the version the answers file records into a scratch
folder and copies back each missing drawer INDEX.md. It also removes desk rows
from the working INDEX: desks are listed by their files. It renders only the
template this clone trusts (as `upgrade` does); an answers file naming another
is refused before Copier starts.
"""
EPILOG = "exit codes: 0 done, 2 copier or the answers file missing, or I/O error"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--source-in-use",
        default="",
        metavar="SRC",
        help="the template Copier is running now (copier.yml's after-migration passes it);"
        " otherwise only the template this clone trusts is rendered",
    )


def run(root: Path, args: argparse.Namespace) -> int:
    from ..install import upgrade

    return upgrade.restore_command(root, args.source_in_use)
