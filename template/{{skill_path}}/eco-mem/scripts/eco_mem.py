#!/usr/bin/env python3
"""eco-mem maintenance commands. Stdlib only, Python 3.9+.

  verify    check the memory store: catalogs vs files, caps, fields, write gate
  blocks    write or refresh the eco-mem blocks in AGENTS.md and CLAUDE.md
  upgrade   run `copier update` for eco-mem and refuse to report success over conflicts

Exit codes: 0 ok, 1 findings (verify) or conflicts (upgrade), 2 usage or I/O error.
Run `eco_mem.py COMMAND --help` for each command's options.
"""

from __future__ import annotations

import sys

# The package sits beside this file; keep imports from leaving __pycache__
# folders in the host's skill directory.
sys.dont_write_bytecode = True

import argparse  # noqa: E402
from pathlib import Path  # noqa: E402

from ecomem import blocks, upgrade, verify  # noqa: E402

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def repo_root(given: str | None) -> Path:
    """The folder to act on: --root, else the repository this script is installed in."""
    if given:
        return Path(given)
    # <root>/<skill_dir>/scripts/eco_mem.py: climb out of the skill folder.
    from ecomem import protocol

    here = Path(__file__).resolve().parent.parent
    depth = len(Path(protocol.SKILL_DIR).parts)
    return here.parents[depth - 1] if depth else here


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="eco_mem.py",
        description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 ok, 1 findings or conflicts, 2 usage or I/O error.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    verify.add_arguments(
        commands.add_parser(
            "verify",
            help="check the memory store",
            description=verify.DESCRIPTION,
            epilog=verify.EPILOG,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    )
    blocks_parser = commands.add_parser(
        "blocks",
        help="write or refresh the AGENTS.md / CLAUDE.md blocks",
        description=(
            "Append or replace the eco-mem block in AGENTS.md (and the @AGENTS.md import"
            " in CLAUDE.md when Claude Code support is on). Text outside the markers is"
            " never changed; malformed markers leave every file untouched. Exit 0 or 2."
        ),
    )
    blocks_parser.add_argument("--root", help="repository root (default: this script's repo)")
    upgrade.add_arguments(
        commands.add_parser(
            "upgrade",
            help="copier update with a conflict check",
            description=upgrade.DESCRIPTION,
        )
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
    if args.command == "blocks":
        try:
            changed = blocks.write_blocks(root)
        except (blocks.BlockError, OSError) as error:
            print(f"eco_mem.py blocks: {error}", file=sys.stderr)
            return EXIT_USAGE
        print("updated: " + ", ".join(changed) if changed else "blocks already current")
        return EXIT_OK
    if args.command == "verify":
        return verify.run(root, args)
    return upgrade.run(root, args)


if __name__ == "__main__":
    sys.exit(main())
