"""The eco_mem.py command line: one parser, and each command imported only when named.

eco_mem.py beside the package is a shim, because a script run by path is compiled
from source on every run, while a module's bytecode is cached.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import protocol
from .commands import memory as memcli

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
DESCRIPTION = "eco-mem maintenance commands. Stdlib only, Python 3.9+."


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


class Parser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose help is sized without importing shutil.

    argparse builds a help formatter for every argument it adds, and the formatter
    imports shutil (with bz2, lzma and fnmatch) to read the terminal width: about 3 ms
    on each verify, which runs on every commit. Subparsers are made of this class too.
    """

    def __init__(self, *args, formatter_class=argparse.HelpFormatter, **kwargs) -> None:
        def sized(prog: str) -> argparse.HelpFormatter:
            return formatter_class(prog, width=terminal_width())

        super().__init__(*args, formatter_class=sized, **kwargs)


def repo_root(given: str | None) -> Path:
    """The folder to act on: --root, else the repository this script is installed in."""
    if given:
        return Path(given)
    # <root>/<skill_dir>/scripts/ecomem/cli.py: climb out of the skill folder.
    here = Path(__file__).resolve().parents[2]
    depth = len(Path(protocol.SKILL_DIR).parts)
    return here.parents[depth - 1] if depth else here


VERIFY_DESCRIPTION = """\
Check the eco-mem store: structure, catalog rows against files, caps,
semantic provenance, episode lessons, procedural pointers, and the write
gate's mechanical rules (secret-shaped values, card numbers, IBANs and SSNs,
chat transcripts, text that tries to instruct the agent). Nothing outside the
memory folder is read.
"""

VERIFY_EPILOG = """\
exit codes:
  0  no errors (warnings may be printed; --strict makes them count)
  1  at least one finding that counts
  2  usage or I/O error

--json prints one object:
  {"version": 1, "root": str, "memory": str, "ok": bool,
   "counts": {"error": int, "warning": int},
   "findings": [{"path": str, "line": int, "rule": str,
                 "severity": "error"|"warning", "message": str}],
   "notes": [str]}   # rules that could not run here, and why
  line is 1-based, 0 when the finding is about a whole file.
"""

UPGRADE_DESCRIPTION = """\
Run `copier update --trust -a ANSWERS_FILE` for eco-mem, then check the
result: unmerged paths, conflict markers and .rej files are listed with what
to do, and the command exits 1. Deleted drawer INDEX files are restored and
the AGENTS.md, CLAUDE.md and .gitignore blocks refreshed. Refuses to start on
a dirty git tree, when the template cannot be reached, or when --vcs-ref
names nothing. Without a terminal the recorded answers are used.
Arguments after `--` go to copier unchanged.

exit codes: 0 updated cleanly, 1 conflicts to resolve, 2 refused or failed.
"""


TRACK_DESCRIPTION = """\
Ask git which files of the skill and the memory drawers (including entries
not written yet) its ignore rules would hide, and re-include them in a marked
block at the end of the root .gitignore. The host's own lines are never
changed; the block goes away once nothing needs it; desks stay ignored.
Outside a git work tree there is nothing to do.

exit codes: 0 nothing hidden now, 1 a nested .gitignore hides files (the
lines to add are printed), 2 usage or I/O error.
"""


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print findings as JSON (schema below)")
    parser.add_argument(
        "--staged",
        action="store_true",
        help="also check what is staged in git: desk rows, desks, rewritten episodes",
    )
    parser.add_argument("--strict", action="store_true", help="warnings count as findings too")
    parser.add_argument(
        "--default-branch",
        metavar="NAME",
        help="the branch desks never reach (default: origin/HEAD, else main or master)",
    )
    parser.add_argument(
        "--today", metavar="YYYY-MM-DD", help="date to judge expiry by (default: today)"
    )


def add_upgrade_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-r", "--vcs-ref", metavar="REF", help="template tag or commit (default: the newest tag)"
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
        help="the template's new home (URL or path) when _src_path can no longer be reached;"
        " recorded in the answers file and committed",
    )
    parser.add_argument(
        "copier_args", nargs=argparse.REMAINDER, help="anything after -- goes to copier unchanged"
    )


COMMANDS = (
    "verify",
    "blocks",
    "track",
    "upgrade",
    "catalog-migrate",
    "experiment",
    "restore-indexes",
    *memcli.COMMANDS,
)


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    parser = Parser(
        prog="eco_mem.py",
        description=DESCRIPTION,
        epilog="Exit codes: 0 ok, 1 findings, conflicts or refused, 2 usage or I/O error.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    # Every command acts on one repository; they share how it is named.
    rooted = Parser(add_help=False)
    rooted.add_argument("--root", help="repository root (default: the repo holding this script)")
    # verify runs on every commit: build only the parser of the command named,
    # and all of them for --help or a typo (argparse then lists every choice).
    named = argv if argv is not None else sys.argv[1:]
    wanted = named[0] if named and named[0] in COMMANDS else None

    def builds(name: str) -> bool:
        return wanted in (None, name)

    if builds("verify"):
        add_verify_arguments(
            commands.add_parser(
                "verify",
                parents=[rooted],
                help="check the memory store",
                description=VERIFY_DESCRIPTION,
                epilog=VERIFY_EPILOG,
                formatter_class=argparse.RawDescriptionHelpFormatter,
            )
        )
    if builds("blocks"):
        commands.add_parser(
            "blocks",
            parents=[rooted],
            help="write or refresh the AGENTS.md / CLAUDE.md blocks",
            description=(
                "Append or replace the eco-mem block in AGENTS.md (and the @AGENTS.md import"
                " in CLAUDE.md when Claude Code support is on; with it off, the block and the"
                " .claude/skills/eco-mem link go). Text outside the markers is never changed;"
                " malformed markers leave every file untouched. Exit 0 or 2."
            ),
        )
    if builds("track"):
        commands.add_parser(
            "track",
            parents=[rooted],
            help="make sure git tracks the skill and every memory entry",
            description=TRACK_DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    if builds("upgrade"):
        add_upgrade_arguments(
            commands.add_parser(
                "upgrade",
                parents=[rooted],
                help="copier update with a conflict check",
                description=UPGRADE_DESCRIPTION,
                formatter_class=argparse.RawDescriptionHelpFormatter,
            )
        )
    if builds("catalog-migrate"):
        migrate_parser = commands.add_parser(
            "catalog-migrate",
            parents=[rooted],
            help="carry catalog rows across a release that reshapes a catalog (run by copier)",
            description=(
                "Used by the template's _migrations when a release changes a catalog header:"
                " --stage before lifts the rows out (into .git) so copier merges nothing there;"
                " --stage after puts them back under the new header, cells matched by column"
                " name. Exit 0 or 2."
            ),
        )
        migrate_parser.add_argument("--stage", choices=("before", "after"), required=True)
        migrate_parser.add_argument(
            "--rename",
            action="append",
            default=[],
            metavar="DRAWER:OLD=NEW",
            help="a column renamed by the release (repeatable)",
        )
    if builds("experiment"):
        from .commands import (
            experiment as experiment_cli,  # the agent-experiment kit keeps its parser to itself
        )

        experiment_cli.add_parser(commands, rooted)

    # Memory commands: full options only when one of them runs (see memcli.add_summaries).
    if wanted in memcli.COMMANDS:
        memcli.add_parsers(commands, rooted)
    elif wanted is None:
        memcli.add_summaries(commands)
    if builds("restore-indexes"):
        # After every update, so a plain `copier update` (Renovate's) restores as `upgrade` does.
        commands.add_parser(
            "restore-indexes",
            parents=[rooted],
            help="put back drawer INDEX files a team deleted (run by copier after an update)",
            description=(
                "Copier keeps a deleted template file deleted. A drawer without INDEX.md is"
                " broken, so this renders the version the answers file records into a scratch"
                " folder and copies back each missing drawer INDEX.md. It also removes desk"
                " rows from the working INDEX (desks are listed by their files). Exit 0 or 2."
            ),
        )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # argparse exits 2 on usage errors, 0 on --help
        return int(stop.code or 0)
    root = repo_root(args.root)
    if not root.is_dir():
        print(f"eco_mem.py: {root} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    # Import per command: `blocks` runs inside `copier copy` and must not
    # depend on the verify rules, and each command loads only what it uses.
    if args.command == "blocks":
        from .install import blocks

        try:
            changed = blocks.write_blocks(root)
        except (blocks.BlockError, OSError) as error:
            print(f"eco_mem.py blocks: {error}", file=sys.stderr)
            return EXIT_USAGE
        print("updated: " + ", ".join(changed) if changed else "blocks already current")
        return EXIT_OK
    if args.command == "track":
        return run_track(root)
    if args.command == "catalog-migrate":
        import subprocess

        from .install import migrate

        try:
            renames = migrate.parse_renames(args.rename)
            if args.stage == "before":
                print(f"catalog rows set aside: {migrate.stash(root)}")
            else:
                print(f"catalog rows restored: {migrate.restore(root, renames)}")
        except (ValueError, OSError, subprocess.CalledProcessError) as error:
            print(f"eco_mem.py catalog-migrate: {error}", file=sys.stderr)
            return EXIT_USAGE
        return EXIT_OK
    if args.command == "experiment":
        from .commands import experiment as experiment_cli

        return experiment_cli.run(root, args)
    if args.command in memcli.COMMANDS:
        return memcli.run(root, args)
    if args.command == "restore-indexes":
        from .install import upgrade

        return upgrade.restore_command(root)
    if args.command == "verify":
        from .commands import verify

        return verify.run(root, args)
    from .install import upgrade

    return upgrade.run(root, args)


def run_track(root: Path) -> int:
    from .install import track as tracking
    from .install.markers import BlockError

    try:
        rules, changed = tracking.track(root)
    except tracking.NotAWorkTree:
        print("not a git work tree; nothing to keep tracked")
        return EXIT_OK
    except tracking.TrackError as error:
        print(f"eco_mem.py track: {error}", file=sys.stderr)
        return EXIT_FINDINGS
    except (BlockError, OSError, UnicodeDecodeError) as error:
        print(f"eco_mem.py track: {error}", file=sys.stderr)
        return EXIT_USAGE
    # Quiet when nothing changed: copy, update and upgrade each run it, and a
    # line repeated three times tells the user nothing.
    if changed and rules:
        print(f"{tracking.GITIGNORE}: {len(rules)} re-include rule(s) keep eco-mem in git")
    elif changed:
        print(f"{tracking.GITIGNORE}: eco-mem block removed; git hides nothing of ours any more")
    return EXIT_OK
