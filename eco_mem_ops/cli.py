"""The ops.py command line: the operator's command table (commands/__init__.py) with the
runtime's conventions: --help, exit 0 ok / 1 findings or conflicts / 2 usage or I/O
error, and a failure said in one line, never a traceback (ecomem/boundary.py).

The host's answers (its skill and memory folders, Claude Code, ...) reach the runtime
through one call, `ecomem.store.answers.settle(root)`, made as soon as the host is known and
before any other ecomem module is imported: some of them read those answers at import.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PROG = "ops.py"
DESCRIPTION = (
    "eco-mem's operator commands, run from a checkout of a release, never from a host."
    " Stdlib only, Python 3.9+."
)
EPILOG = (
    "Exit codes: 0 ok, 1 findings, conflicts or refused, 2 usage or I/O error."
    " `A --then B` runs command A, then B unless A failed (copier.yml's tasks do)."
)
HELP_WORDS = ("-h", "--help")


def given_root(argv: list[str]) -> str:
    """The host named by --root (`--root X` or `--root=X`), else the current folder:
    what settle needs before argparse (and the command modules) can load."""
    for at, word in enumerate(argv):
        if word == "--":
            break
        if word == "--root" and at + 1 < len(argv):
            return argv[at + 1]
        if word.startswith("--root="):
            return word[len("--root=") :]
    return "."


def settle(root: Path) -> str:
    """Load the host's answers into the release's runtime; why it could not, or ""."""
    from ecomem.store.answers import settle as settle_answers

    try:
        settle_answers(root)
    except (OSError, UnicodeError, ValueError) as error:
        return str(error) or type(error).__name__
    except Exception as error:  # the runtime's own CommandError, whatever its module
        if type(error).__name__ in ("UsageError", "CommandError", "Refused"):
            return str(error)
        raise
    return ""


def build_parser(argv: list[str]):
    from ecomem import cli

    from . import commands

    # Only the named command's module loads: an up-to-date `upgrade` answers before any
    # of the upgrade machinery does.
    return cli.build_parser(argv, PROG, DESCRIPTION, EPILOG, commands)


# Between two commands of one ops.py run: copier.yml's tasks chain theirs, so each copy
# and update starts one Python, not three. Not an option of any command.
THEN = "--then"


def main(argv: list[str] | None = None) -> int:
    """Run the command in `argv`, or each of a chain of them in turn until one fails."""
    argv = sys.argv[1:] if argv is None else argv
    # Past `--` a word is an argument (upgrade hands those to Copier), never a link.
    before_dashes = argv[: argv.index("--")] if "--" in argv else argv
    if THEN in before_dashes:
        at = argv.index(THEN)
        return main(argv[:at]) or main(argv[at + 1 :])
    return main_one(argv)


def main_one(argv: list[str]) -> int:
    from . import runtime

    try:
        runtime.use_release_runtime()
    except ImportError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    # Absolute, as the fleet passes it: some commands hand it to `git -C` beside paths
    # under it (copier.yml's tasks say `--root .`).
    root = Path(os.path.abspath(given_root(argv)))
    asks_help = not argv or any(word in HELP_WORDS for word in argv)
    from .commands import HOSTLESS

    if not asks_help and argv[0] not in HOSTLESS:
        # Named as the boundary names a command's failures: one line, `ops.py COMMAND: ...`.
        say = f"{PROG} {argv[0]}" if not argv[0].startswith("-") else PROG
        if not root.is_dir():
            print(f"{say}: {root} is not a directory", file=sys.stderr)
            return 2
        unsettled = settle(root)
        if unsettled:
            print(f"{say}: {unsettled}", file=sys.stderr)
            return 2
    try:
        args = build_parser(argv).parse_args(argv)
    except SystemExit as stop:  # argparse exits 2 on usage errors, 0 on --help
        return int(stop.code or 0)
    return run(args.command, root, args)


def run(name: str, root: Path, args) -> int:
    """One command behind the runtime's error boundary, which names it in every line."""
    from ecomem.boundary import guarded

    from . import commands

    action = getattr(args, "action", None) if name == "experiment" else None
    say = f"{PROG} {name} {action}" if action else f"{PROG} {name}"
    return guarded(say, lambda: commands.load(name).run(root, args))
