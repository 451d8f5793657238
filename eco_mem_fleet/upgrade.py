"""Upgrade eco-mem in every cloned repository whose answers record an older version.

    python -m eco_mem_fleet.upgrade -C all-repos.json [--vcs-ref REF] [--report FILE]
        [--diff | --log FILE] [--dry-run] [-j N] [--repos ...]

The target is --vcs-ref, else the newest version tag of the template each
repository records in `_src_path`. Inside each repository the rendered
`eco_mem.py upgrade` does the work (conflict check, INDEX restore, blocks),
so the fleet gives exactly its guarantees. A repository left with conflicts
is not pushed; its conflicted files are listed. Output as for install: one
line per repository and the summary, diffs in the log or with --diff. Exit 0
when no repository failed or conflicted, else 1.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from all_repos import autofix_lib

from eco_mem_fleet import autofix
from eco_mem_fleet.fixes import upgrade_one
from eco_mem_fleet.report import Outcome
from eco_mem_fleet.versions import is_older, newest_tag, read_answers


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m eco_mem_fleet.upgrade",
        description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 every repository fine, 1 a failure or conflict, 2 usage error.",
    )
    autofix_lib.add_fixer_args(parser)
    parser.add_argument("--vcs-ref", help="template tag to upgrade to (default: the newest tag)")
    autofix.add_output_args(parser)
    return parser


def behind(vcs_ref: str | None, newest: dict[str, str]):
    """A `select` for autofix.run: leave alone repos that lack eco-mem or are current.

    Fills `newest` (template source -> newest tag) for the workers and the commit message.
    """

    def select(path: str, name: str) -> Outcome | None:
        answers = read_answers(Path(path))
        if answers is None:
            return Outcome(name, "upgrade", result="skipped", message="eco-mem not installed")
        installed = str(answers.get("_commit", "?"))
        source = str(answers.get("_src_path"))
        target = vcs_ref or newest_tag(source)
        if target and not vcs_ref:
            newest[source] = target
        if target is None or is_older(installed, target):
            return None  # the worker reports a missing tag as a failure
        return Outcome(
            name, "upgrade", installed, target, "skipped", message=f"already at {installed}"
        )

    return select


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    newest: dict[str, str] = {}

    def message() -> str:  # known once the repositories have been looked at
        targets = [args.vcs_ref] if args.vcs_ref else sorted(set(newest.values()))
        return f"Upgrade eco-mem to {', '.join(targets) or 'the newest release'}"

    return autofix.run(
        args,
        action="upgrade",
        fixer=upgrade_one,
        select=behind(args.vcs_ref, newest),
        msg=message,
        branch_name="eco-mem-upgrade",
        options={"vcs_ref": args.vcs_ref, "newest": newest},
    )


if __name__ == "__main__":
    sys.exit(main())
