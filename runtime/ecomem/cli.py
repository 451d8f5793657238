"""The eco_mem.pyz command line: the command table's parsers, each command run behind
the one error boundary (boundary.py).

eco_mem.pyz beside the package is a shim, because a script run by path is compiled
from source on every run, while a module's bytecode is cached.
"""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

from . import commands, protocol
from .boundary import guarded
from .errors import EXIT_USAGE

DESCRIPTION = "eco-mem maintenance commands. Stdlib only, Python 3.9+."
EPILOG = "Exit codes: 0 ok, 1 findings, conflicts or refused, 2 usage or I/O error."


def terminal_width() -> int:
    """What argparse asks shutil for (COLUMNS, else the terminal, else 80), minus its margin."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


def parser_class():
    """argparse.ArgumentParser whose help is sized without importing shutil.

    argparse builds a help formatter for every argument it adds, and the formatter
    imports shutil (with bz2, lzma and fnmatch) to read the terminal width: about 3 ms
    on each verify, which runs on every commit. Subparsers are made of this class too.
    Made on first use: a command line a command reads itself (`quick_args`) never
    imports argparse.
    """
    import argparse

    class Parser(argparse.ArgumentParser):
        def __init__(self, *args, formatter_class=argparse.HelpFormatter, **kwargs) -> None:
            def sized(prog: str) -> argparse.HelpFormatter:
                return formatter_class(prog, width=terminal_width())

            super().__init__(*args, formatter_class=sized, **kwargs)

    return Parser


def repo_root(given: str | None) -> Path:
    """The folder to act on: --root, else the repository this script is installed in
    (root.py finds it from the script's path as typed, never through resolved links)."""
    if given:
        return Path(given)
    from .root import installed_root

    return Path(installed_root())


def say_root_when_unclear(root: Path, command: str) -> None:
    """Name the repository when the working folder does not make it plain: run from
    another repository, the script acts on its own; run from a folder inside it, the
    paths printed are the repository's (find alone prints them from here)."""
    from .root import _within

    try:
        here, real_root = os.path.realpath(os.getcwd()), os.path.realpath(root)
    except OSError:
        return
    if not _within(here, real_root):
        print(f"eco_mem.pyz: acting on the repository at {root}", file=sys.stderr)
    elif here != real_root and command not in PATHS_FROM_HERE:
        print(f"eco_mem.pyz: paths are relative to the repository root, {root}", file=sys.stderr)


# Commands that print paths relative to the working folder themselves.
PATHS_FROM_HERE = ("find", "context")


def build_parser(argv, prog="eco_mem.pyz", description=DESCRIPTION, epilog=EPILOG, table=commands):
    """The parser of `table`'s commands (TABLE, load), ops.py's too. Only the named
    command's parser is built (verify runs on every commit); all of them for --help or a typo."""
    import argparse

    parser = parser_class()(prog=prog, description=description, epilog=epilog)
    parsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    wanted = argv[0] if argv and argv[0] in table.TABLE else None
    for name in table.TABLE:
        if wanted not in (None, name):
            continue
        module = table.load(name)
        sub = parsers.add_parser(
            name,
            help=module.HELP,
            description=getattr(module, "DESCRIPTION", None),
            epilog=getattr(module, "EPILOG", None),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        if getattr(module, "ROOTED", True):
            commands.add_root(sub)
            if table is commands and name in MEMORY_COMMANDS:
                commands.add_store(sub)
        module.add_arguments(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = quick_args(argv)
    try:
        args = args or build_parser(argv).parse_args(argv)
    except SystemExit as stop:  # argparse exits 2 on usage errors, 0 on --help
        return int(stop.code or 0)
    given = getattr(args, "root", None)
    root = repo_root(given)
    if not root.is_dir():
        print(f"eco_mem.pyz: {root} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    if not given:
        say_root_when_unclear(root, args.command)
    # Every module the command needs is loaded by now, and lives until exit: the
    # collector need not walk them again on each collection (nor at exit). That
    # walking cost verify about 4% of its run at full caps.
    gc.freeze()
    return run(args.command, root, args)


def quick_args(argv: list[str]):
    """The parsed command line of a command that reads its own plain command lines
    (`quick_args` in its module: verify, on every commit), else None for argparse.
    Importing argparse and building its parser cost verify about 5% of its run; the
    command's reader takes only spellings argparse reads the same way, and declines the
    rest (--help, abbreviations, errors), so argparse still answers those."""
    if not argv or argv[0] not in commands.TABLE:
        return None
    reader = getattr(commands.load(argv[0]), "quick_args", None)
    return reader(argv[1:]) if reader is not None else None


def run(name: str, root: Path, args) -> int:
    """Run one command behind the error boundary (boundary.py)."""
    # `experiment plant` names its sub-command too; `new episodic --action TEXT` also
    # sets `action`, and that is an episode's text, not a name to print.
    action = getattr(args, "action", None) if name == "experiment" else None
    say = f"eco_mem.pyz {name} {action}" if action else f"eco_mem.pyz {name}"

    def command() -> int:
        from .store.answers import settle

        settle(root)
        if name in MEMORY_COMMANDS:
            use_store(root, getattr(args, "store", None))
            if name != "find":  # a reader merges nothing: the line would only cost it bytes
                _merge_driver(root)
        return commands.load(name).run(root, args)

    return guarded(say, command)


MEMORY_COMMANDS = ("find", "new", "revise", "confirm", "forget", "end-task")


def use_store(root: Path, given: str | None) -> None:
    """Point the memory command at `--store PATH`, else at the closest store (store/stores.py)."""
    from .store import stores

    stores.use(stores.given_store(root, given) if given else stores.closest(root))


def _merge_driver(root: Path) -> None:
    """Say when this clone lacks the catalog merge driver; never write it. A memory
    command runs whatever tree it finds (a branch's among them), and a driver copy it
    wrote would carry that tree's code into every later merge: only `track` (run by
    the install and `upgrade`) writes the copy, on purpose."""
    from .gitsetup.driver import missing

    try:
        if missing(root):
            print(
                "eco_mem.pyz: this clone has no catalog merge driver (catalogs merge as plain"
                f" text); run `python3 {protocol.SKILL_DIR}/scripts/eco_mem.pyz track` to set it",
                file=sys.stderr,
            )
    except OSError:  # an unreadable config: git will say so itself
        pass
