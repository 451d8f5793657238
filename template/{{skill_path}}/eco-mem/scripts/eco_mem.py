#!/usr/bin/env python3
"""eco-mem maintenance commands. Stdlib only, Python 3.9+.

  verify    check the memory store: catalogs vs files, caps, fields, write gate
  blocks    write or refresh the eco-mem blocks in AGENTS.md and CLAUDE.md
  upgrade   run `copier update` for eco-mem and refuse to report success over conflicts
  catalog-migrate   (run by copier migrations) carry catalog rows across a header change
  restore-indexes   (run by copier migrations) put back drawer INDEX files a team deleted

Exit codes: 0 ok, 1 findings (verify) or conflicts (upgrade), 2 usage or I/O error.
Run `eco_mem.py COMMAND --help` for each command's options.
"""

from __future__ import annotations

import os
import sys

# The package sits beside this file. Cache its bytecode outside the host repo
# (no __pycache__ folders in the skill), yet keep the cache: compiling on every
# run would cost more than verify itself.
if sys.pycache_prefix is None:
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    sys.pycache_prefix = os.path.join(cache_home, "eco-mem", "pycache")
    # PYTHONDONTWRITEBYTECODE exists to keep __pycache__ out of source trees;
    # the prefix above already does that, so caching stays on.
    sys.dont_write_bytecode = False

import argparse
from pathlib import Path

from ecomem import protocol

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def repo_root(given: str | None) -> Path:
    """The folder to act on: --root, else the repository this script is installed in."""
    if given:
        return Path(given)
    # <root>/<skill_dir>/scripts/eco_mem.py: climb out of the skill folder.
    here = Path(__file__).resolve().parent.parent
    depth = len(Path(protocol.SKILL_DIR).parts)
    return here.parents[depth - 1] if depth else here


VERIFY_DESCRIPTION = """\
Check the eco-mem store: structure, catalog rows against files, caps,
semantic provenance, episode lessons, procedural pointers, and the write
gate's mechanical rules (secret-shaped values, chat transcripts, text that
tries to instruct the agent). Nothing outside the memory folder is read.
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
                 "severity": "error"|"warning", "message": str}]}
  line is 1-based, 0 when the finding is about a whole file.
"""

UPGRADE_DESCRIPTION = """\
Run `copier update --trust -a ANSWERS_FILE` for eco-mem, then check the
result: unmerged paths, conflict markers and .rej files are listed with what
to do, and the command exits 1. Refuses to start on a dirty git tree.
Arguments after `--` go to copier unchanged (e.g. -- --vcs-ref v1.2.0).

exit codes: 0 updated cleanly, 1 conflicts to resolve, 2 refused or failed.
"""


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print findings as JSON (schema below)")
    parser.add_argument(
        "--staged",
        action="store_true",
        help="also check what is staged in git: desk rows, rewritten episodes",
    )
    parser.add_argument("--strict", action="store_true", help="warnings count as findings too")
    parser.add_argument(
        "--today", metavar="YYYY-MM-DD", help="date to judge expiry by (default: today)"
    )


def add_upgrade_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "copier_args", nargs=argparse.REMAINDER, help="extra arguments for copier, after --"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="eco_mem.py",
        description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 ok, 1 findings or conflicts, 2 usage or I/O error.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    # Every command acts on one repository; they share how it is named.
    rooted = argparse.ArgumentParser(add_help=False)
    rooted.add_argument("--root", help="repository root (default: the repo holding this script)")
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
    add_upgrade_arguments(
        commands.add_parser(
            "upgrade",
            parents=[rooted],
            help="copier update with a conflict check",
            description=UPGRADE_DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    )
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
    # After every update, so a plain `copier update` (Renovate's) restores as `upgrade` does.
    commands.add_parser(
        "restore-indexes",
        parents=[rooted],
        help="put back drawer INDEX files a team deleted (run by copier after an update)",
        description=(
            "Copier keeps a deleted template file deleted. A drawer without INDEX.md is"
            " broken, so this renders the version the answers file records into a scratch"
            " folder and copies back each missing drawer INDEX.md. Exit 0 or 2."
        ),
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
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
        from ecomem import blocks

        try:
            changed = blocks.write_blocks(root)
        except (blocks.BlockError, OSError) as error:
            print(f"eco_mem.py blocks: {error}", file=sys.stderr)
            return EXIT_USAGE
        print("updated: " + ", ".join(changed) if changed else "blocks already current")
        return EXIT_OK
    if args.command == "catalog-migrate":
        import subprocess

        from ecomem import migrate

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
    if args.command == "restore-indexes":
        from ecomem import upgrade

        memory = root / protocol.MEMORY_DIR
        if all((memory / drawer / "INDEX.md").exists() for drawer in protocol.DRAWERS):
            return EXIT_OK  # the usual case: nothing to render, copier not needed
        copier = upgrade.copier_command()
        answers_file = root / protocol.ANSWERS_FILE
        if copier is None or not answers_file.is_file():
            print("eco_mem.py restore-indexes: needs copier and the answers file", file=sys.stderr)
            return EXIT_USAGE
        answers = upgrade.read_answers(answers_file)
        for path in upgrade.restore_missing_indexes(root, copier, answers):
            print(f"restored {path} from the template")
        return EXIT_OK
    if args.command == "verify":
        from ecomem import verify

        return verify.run(root, args)
    from ecomem import upgrade

    return upgrade.run(root, args)


if __name__ == "__main__":
    sys.exit(main())
