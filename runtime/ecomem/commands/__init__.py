"""The commands of eco_mem.pyz, one module each: its arguments and how it runs.

A command module defines HELP (one line for `eco_mem.pyz --help`), optionally
DESCRIPTION and EPILOG (its own --help), `add_arguments(parser)` and
`run(root, args) -> int`. It raises errors.UsageError or errors.Refused to stop;
cli.py is the only place that prints a failure. ROOTED = False means the module
adds `--root` itself (commands whose options live on sub-commands).

The names on the left are a stable contract: hooks, CI and the fleet call them, so a
command is never renamed. What only an operator runs (install, upgrade, uninstall,
migrations, the experiment kit) is eco_mem_ops/ in the template repository, run as
`ops.py` from a checkout of a release; `upgrade` and `uninstall` stay here only to
name their replacement (moved.py).
"""

from __future__ import annotations

TABLE = {
    # Reading and changing memory (SKILL.md teaches these).
    "find": "find",
    "new": "new",
    "revise": "revise",
    "confirm": "confirm",
    "forget": "forget",
    "end-task": "end_task",
    "adopt": "adopt",
    # What a harness hook prints at session start (docs/harnesses.md).
    "context": "context",
    # Checking it.
    "verify": "verify",
    "review": "review",
    # Keeping the install right in the host.
    "track": "track",
    "init": "init",
    # Merging parallel branches (docs/teamwork.md).
    "merge-catalog": "merge_catalog",
    "resolve": "resolve",
    # Run by the operator from a release checkout (ops.py); here they say so.
    "upgrade": "moved",
    "uninstall": "moved",
}


def add_root(parser) -> None:
    """Every command acts on one repository; they all name it the same way."""
    parser.add_argument("--root", help="repository root (default: the repo holding this script)")


def add_store(parser) -> None:
    """A memory command acts on one store: the closest to the working folder, or this."""
    parser.add_argument(
        "--store",
        metavar="PATH",
        help="the package (or its memory folder) whose store to use; default: the"
        " closest store to the working folder, else the root's",
    )


def load(name: str):
    """The module of command `name`, imported only now: each command loads what it uses."""
    # __import__, not importlib: importing importlib costs verify about 1.5 ms.
    return __import__(f"{__name__}.{TABLE[name]}", fromlist=["run"])
