"""Upgrade eco-mem in every cloned repository whose answers record an older version.

    python -m eco_mem_fleet.upgrade -C all-repos.json --template SRC [--vcs-ref REF]
        [--report FILE] [--diff | --log FILE] [--dry-run] [-j N] [--limit N | --repos ...]
        [--host-checks [--host-checks-may-download]]

The template's release tags are fetched once into a snapshot, and the run
renders nothing else: the target is the release --vcs-ref names, else the
newest, pinned by commit for the whole run, and a repository whose `_commit`
names no release is refused in its own row. A repository whose answers name another template, or a
path outside it, is refused (failed, nothing pushed). In each other one
`ops.py upgrade` does the work (conflict check, INDEX restore, blocks),
so the fleet gives exactly its guarantees; it runs from the fleet's own
checkout of --template at the target, never the repository's scripts. A repository left with conflicts
is not pushed; its conflicted files are listed; nor is one whose own
pre-commit hooks fail on the result (host_checks.py). Output as for install: one
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
from eco_mem_fleet.own_scripts import fleet_release, refusal, unreleased
from eco_mem_fleet.releases import Releases
from eco_mem_fleet.report import Outcome
from eco_mem_fleet.versions import UNREADABLE, is_older, read_answers, template_source, unreadable


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m eco_mem_fleet.upgrade",
        description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 every repository fine, 1 a failure or conflict, 2 usage error.",
    )
    autofix_lib.add_fixer_args(parser)
    parser.add_argument(
        "--template",
        required=True,
        help="the fleet's eco-mem template (git URL or path): the only one it runs",
    )
    parser.add_argument("--vcs-ref", help="template tag to upgrade to (default: the newest tag)")
    autofix.add_output_args(parser)
    return parser


def behind(template: str, target: str, releases: Releases):
    """A `select` for autofix.run: leave alone repos that lack eco-mem or are current,
    and fail those the fleet refuses to act on (another template, paths outside, an
    answers file it cannot read): one repository fails, the run goes on."""

    def select(path: str, name: str) -> Outcome | None:
        try:
            answers = read_answers(Path(path))
        except UNREADABLE as error:
            return Outcome(name, "upgrade", "?", target, "failed", message=unreadable(error))
        if answers is None:
            return Outcome(name, "upgrade", result="skipped", message="eco-mem not installed")
        installed = str(answers.get("_commit", "?"))
        refused = refusal(Path(path), answers, template) or unreleased(answers, releases)
        if refused:
            return Outcome(name, "upgrade", installed, target, "failed", message=refused)
        if is_older(installed, target):
            return None
        return Outcome(
            name, "upgrade", installed, target, "skipped", message=f"already at {installed}"
        )

    return select


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    template = template_source(args.template)
    with fleet_release("upgrade", template, args.vcs_ref) as pinned:
        if pinned is None:
            return 2
        releases, ref = pinned
        return autofix.run(
            args,
            action="upgrade",
            fixer=upgrade_one,
            select=behind(template, ref, releases),
            msg=f"Upgrade eco-mem to {ref}",
            branch_name="eco-mem-upgrade",
            argv=argv,
            options={"template": template, "vcs_ref": ref, "ref": ref, "releases": releases},
        )


if __name__ == "__main__":
    sys.exit(main())
