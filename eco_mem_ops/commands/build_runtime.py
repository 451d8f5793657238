"""`build-runtime`: rebuild the runtime file hosts get (eco_mem_ops/runtime_build.py)."""

from __future__ import annotations

import argparse
import sys

HELP = "rebuild scripts/eco_mem.pyz from runtime/ in this checkout and print its sha256"
DESCRIPTION = """\
Build the zip application Copier copies into every host, from this checkout's
runtime/ source, into template/{{skill_path}}/eco-mem/scripts/eco_mem.pyz, and
print its sha256. The build is reproducible: the same source gives the same bytes
on any machine. --check writes nothing and says whether the committed file is
that build.
"""
EPILOG = "exit codes: 0 built (or up to date), 1 --check found it stale, 2 I/O error"
ROOTED = False  # it acts on this checkout, never on a host


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--check", action="store_true", help="compare the committed file with a fresh build"
    )


def run(root, args: argparse.Namespace) -> int:
    from .. import runtime_build

    if args.check:
        problem = runtime_build.stale()
        if problem:
            print(problem, file=sys.stderr)
            return 1
        print(runtime_build.digest(runtime_build.ARTIFACT.read_bytes()))
        return 0
    print(runtime_build.write())
    return 0
