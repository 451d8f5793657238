"""`upgrade` and `uninstall`: they run from the operator's copy of eco-mem, never from here.

This repository keeps only what agents, CI and git run. A command line or a habit that
still names an old command gets the one command that replaces it (exit 2, nothing
written); the options it used to take are accepted and ignored, so that line is all
it prints.
"""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "moved out of the repository: prints the command that replaces it"
# What the two commands took when they ran here (either command's, both accepted).
OLD_OPTIONS = (("-r", "--vcs-ref"), ("-d", "--data"), ("--template",), ("--releases",))
OLD_OPTIONS += (("--remember-source",), ("--memory",))
OLD_FLAGS = (("-l", "--defaults"), ("--dry-run",), ("--json",))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    for names in OLD_OPTIONS:
        parser.add_argument(*names, action="append", help=argparse.SUPPRESS)
    for names in OLD_FLAGS:
        parser.add_argument(*names, action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def replacement(command: str) -> str:
    # `ops.py upgrade` for upgrade too, never a plain `copier update --trust`: that runs
    # the template `_src_path` names, which a branch can change, and ops.py runs only
    # the one this clone recorded (tests/test_answers_as_data.py).
    return f"python3 <eco-mem release checkout>/ops.py {command} --root ."


def run(root: Path, args: argparse.Namespace) -> int:
    from ..errors import UsageError

    raise UsageError(
        f"moved out of this repository; run `{replacement(args.command)}` instead"
        " (docs/updating.md)"
    )
