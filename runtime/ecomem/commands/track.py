"""`track`: keep git from ignoring the skill and the memory (a block in .gitignore)."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from ..errors import UsageError

HELP = "make sure git tracks the skill and every memory entry"
DESCRIPTION = """\
Ask git which files of the skill and the memory drawers (including entries
not written yet) its ignore rules would hide, and re-include them in a marked
block at the end of the root .gitignore. The host's own lines are never
changed; the block goes away once nothing needs it; desks stay ignored.
Outside a git work tree there is nothing to do.
"""
EPILOG = """\
exit codes: 0 nothing hidden now, 1 a nested .gitignore hides files (the
lines to add are printed), 2 usage or I/O error.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(root: Path, args: argparse.Namespace) -> int:
    from ..gitsetup import attributes, track
    from ..gitsetup.markers import BlockError

    try:
        # .gitattributes first: track keeps it out of the host's ignore rules too.
        merges = attributes.write_attributes(root)
        rules, changed = track.track(root)
    except track.NotAWorkTree:
        print("not a git work tree; nothing to keep tracked")
        return 0
    except track.TrackError as error:
        if isinstance(error, track.NestedRules):  # the root block is written: finish the rest
            with contextlib.suppress(OSError):  # if not, the run after the nested lines does
                attributes.ensure_driver(root)
        print(f"eco_mem.pyz track: {error}", file=sys.stderr)
        return 1
    except BlockError as error:
        raise UsageError(str(error)) from None
    try:
        configured = attributes.ensure_driver(root)
    except OSError as error:
        raise UsageError(f"cannot set the catalog merge driver: {error}") from None
    # Quiet when nothing changed: copy, update and upgrade each run it, and a
    # line repeated three times tells the user nothing.
    if merges:
        print(f"{attributes.ATTRIBUTES}: eco-mem block refreshed (catalogs merge row by row)")
    if configured:
        print(f"git config: merge.{attributes.DRIVER}.driver set for this clone")
    if changed and rules:
        print(f"{track.GITIGNORE}: {len(rules)} re-include rule(s) keep eco-mem in git")
    elif changed:
        print(f"{track.GITIGNORE}: eco-mem block removed; git hides nothing of ours any more")
    return 0
