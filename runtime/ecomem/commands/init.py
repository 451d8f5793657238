"""`init PATH`: a package store, the four drawers of one package of a monorepo."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "make a package store at PATH/<memory folder> (monorepos; one skill serves all)"
DESCRIPTION = """\
Make a store of memory for one package: PATH/<memory folder>/ with the four
drawers' INDEX files (the root's contracts), the working drawer's ignore rule,
a block in PATH/AGENTS.md that names the store and the repository's one skill,
the catalogs' merge attributes in the root .gitattributes, and everything it
wrote staged in git (stores are found from git's index), so a `git commit`
takes all of it; a host file that already held edits of yours is named
instead of staged. Memory commands run inside
PATH then act on that store; `find` reads it first, then the stores above it.
A second run changes nothing.
"""
EPILOG = (
    "exit codes: 0 done, 1 git would hide the store (track says what to add), 2 usage or I/O error"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", metavar="PATH", help="the package folder, e.g. packages/web")


# The host files init may change besides the store: the blocks, attributes and ignores.
HOST_FILES = ("AGENTS.md", "CLAUDE.md", ".gitattributes", ".gitignore")


def uncommitted(root: Path, paths: list[str]) -> set[str]:
    """Which of `paths` git reports as changed or untracked."""
    from ..git import git

    status = git(root, "status", "--porcelain", "--untracked-files=all", "--", *paths)
    return {line[3:].strip('"') for line in status.stdout.splitlines() if len(line) > 3}


def run(root: Path, args: argparse.Namespace) -> int:
    from ..errors import UsageError
    from ..git import git
    from ..hostfiles import blocks, packages
    from ..store import stores
    from . import track

    package = packages.package_folder(root, args.path)
    memory_dir = stores.memory_of(package)
    planned = packages.plan_package_block(root, memory_dir)  # refused before any write
    host_files = [*HOST_FILES, *(f"{package}/{name}" for name in HOST_FILES)]
    edited_before = uncommitted(root, host_files)
    created = packages.write_store(root, memory_dir)
    if created:
        done = git(root, "add", "--", *created)
        if done.returncode != 0:
            print(
                f"eco_mem.pyz init: git add failed: {done.stderr.strip()}; stage {memory_dir}/ by hand"
            )
        stores.forget()
    changed = created + packages.write_package_block(root, memory_dir, planned)
    try:
        changed += blocks.write_blocks(root)  # the root block says packages have stores now
    except blocks.BlockError as error:
        raise UsageError(str(error)) from None
    code = track.run(root, args)  # attributes for the new catalogs, and nothing hidden
    changed_now = uncommitted(root, host_files)
    ours = sorted(changed_now - edited_before)  # init's changes alone: staged with the store
    if ours and git(root, "add", "--", *ours).returncode != 0:
        print(f"eco_mem.pyz init: git add failed; stage {', '.join(ours)} by hand")
    yours = sorted(changed_now & edited_before)
    if yours:
        print(
            f"also changed, beside edits of yours (stage them with your commit): {', '.join(yours)}"
        )
    if changed:
        print(f"package store {memory_dir}/ ready: " + ", ".join(changed))
    else:
        print(f"package store {memory_dir}/ already in place")
    return code
