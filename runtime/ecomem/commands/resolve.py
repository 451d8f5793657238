"""`resolve`: finish a merge, rebase, cherry-pick or stash pop that stopped on catalogs.

Git stops on an INDEX.md conflict whenever the merge driver did not run: a
fresh clone where no eco-mem command configured it, a tool that ignores
drivers. The three versions are still in git's index as stages 1 (base),
2 (ours) and 3 (theirs); this rebuilds each conflicted catalog from them with
the merge-catalog rules and stages the result. A file that still needs a
human keeps its conflict, with markers around the disputed rows only.

When a merge stops, the work tree holds what the incoming commits put there, the
skill's scripts among them. So `resolve` runs from the copy git's merge driver runs
(gitsetup/driver.py: `<common git dir>/eco-mem/resolve.py`), never from the work tree:
eco_mem.pyz hands `resolve` over to that copy before it imports this package, and a
clone without the copy gets one line saying to run `track`, not the tree's merge code.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .. import protocol
from ..errors import UsageError
from ..git import run_git

HELP = "finish a merge or rebase stopped on INDEX.md conflicts, row by row"
DESCRIPTION = """\
After `git merge`, `rebase`, `cherry-pick` or `stash pop` stopped on conflicts
in the drawer INDEX.md files, rebuild each from git's three stages with the
rules of merge-catalog, write it and `git add` it. Prints one line per file.
Then finish as git says (`git commit`, `git rebase --continue`, ...).
Whatever was hand-edited in a conflicted INDEX.md is replaced.
"""
EPILOG = """\
exit codes: 0 every conflicted catalog resolved and staged, 1 a row needs a
human (both versions printed; that file left conflicted, with markers),
2 nothing to resolve, not a git repository, or git failed
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def is_catalog(path: str) -> bool:
    """A drawer INDEX of the root's store or of a package store (`init PATH`)."""
    for drawer in protocol.DRAWERS:
        tail = f"{protocol.ROOT_MEMORY_DIR}/{drawer}/INDEX.md"
        if path == tail or path.endswith("/" + tail):
            return True
    return False


def unmerged(root: Path) -> dict[str, dict[int, str]]:
    """{path: {stage: blob id}} for every unmerged path."""
    try:
        code, output = run_git(root, "ls-files", "-u", "-z", "--full-name")
    except OSError as error:
        raise UsageError(f"git not found ({error})") from None
    if code != 0:
        raise UsageError(f"{root} is not inside a git work tree")
    stages: dict[str, dict[int, str]] = {}
    for record in output.decode("utf-8", "surrogateescape").split("\0"):
        if not record:
            continue
        info, _, path = record.partition("\t")
        _, blob, stage = info.split()
        stages.setdefault(path, {})[int(stage)] = blob
    return stages


def blob(root: Path, blob_id: str) -> bytes:
    if not blob_id or any(char not in "0123456789abcdef" for char in blob_id):
        raise UsageError(f"git listed {blob_id!r} as a blob id")  # never an option to git
    code, data = run_git(root, "cat-file", "blob", blob_id)
    if code != 0:
        raise UsageError(f"git cannot read blob {blob_id}")
    return data


def top_level(root: Path) -> Path:
    code, output = run_git(root, "rev-parse", "--show-toplevel")
    if code != 0:
        raise UsageError(f"{root} is not inside a git work tree")
    return Path(output.decode("utf-8", "surrogateescape").strip())


def run(root: Path, args: argparse.Namespace) -> int:
    """Reached only when the package is driven without eco_mem.pyz (which hands `resolve`
    to the copy first): hand over the same way, and never merge with this tree's code."""
    top = top_level(root)
    if _running_the_copy():
        return resolve(top)
    from ..gitsetup.driver import resolve_launcher

    launcher = resolve_launcher(top)
    if launcher is None:
        raise UsageError(
            "this clone keeps no copy of the merge code in its git dir; abort the merge,"
            " run `eco_mem.pyz track` on your own branch, then merge again"
        )
    import subprocess

    # -I: no PYTHONPATH, no user site, not the current folder; -S: no .pth files.
    return subprocess.call([sys.executable, "-I", "-S", os.fspath(launcher)], cwd=top)


def _running_the_copy() -> bool:
    """Whether this module is the git dir's copy (see gitsetup/driver.py), not the tree's."""
    here = Path(__file__).resolve().parents[2]  # the folder that holds `ecomem`
    return here.name.startswith("merge-driver-") and here.parent.name == "eco-mem"


def main(argv: list[str]) -> int:
    """The copy's entry: `resolve` in the repository of the current folder."""
    from ..boundary import guarded

    if argv in (["-h"], ["--help"]):
        print(f"usage: eco_mem.pyz resolve [--root ROOT]\n\n{DESCRIPTION}\n{EPILOG}", end="")
        return 0
    if argv:
        print("resolve takes no arguments; run it inside the repository", file=sys.stderr)
        return 2

    def run() -> int:
        top = top_level(Path.cwd())
        from ..store.answers import settle

        settle(top)
        return resolve(top)

    return guarded("eco_mem.pyz resolve", run)


def resolve(top: Path) -> int:
    from ..safe_open import replace
    from .merge_catalog import merge_bytes, over_caps

    stages = unmerged(top)
    catalogs = sorted(path for path in stages if is_catalog(path))
    others = sorted(path for path in stages if not is_catalog(path))
    if not catalogs:
        message = "no conflicted drawer INDEX.md to resolve"
        if others:
            message += f" ({len(others)} other conflicted file(s): those are yours to merge)"
        raise UsageError(message)
    needs_human = False
    for path in catalogs:
        versions = stages[path]
        if 2 not in versions or 3 not in versions:
            side = "ours" if 2 not in versions else "theirs"
            print(f"{path}: deleted on {side}, changed on the other side; decide by hand")
            needs_human = True
            continue
        base = blob(top, versions[1]) if 1 in versions else b""
        given = (base, blob(top, versions[2]), blob(top, versions[3]))
        why = over_caps(given)
        if why:
            print(f"{path}: {why}; decide by hand")
            needs_human = True
            continue
        merged, result = merge_bytes(*given)
        # A catalog is memory: a regular file in the repository, never a link (safe_open).
        replace(top, top / path, merged)
        if result.clean:
            code, _ = run_git(top, "add", "--", path)
            if code != 0:
                raise UsageError(f"git add {path} failed")
            print(f"{path}: merged row by row and staged")
            continue
        needs_human = True
        print(f"{path}: {_disputes(result)} need a human; the file keeps conflict markers")
        for identity, ours, theirs in result.conflicts:
            print(f"  {identity.partition(':')[2]}")
            print(f"    ours:   {ours if ours is not None else '(deleted)'}")
            print(f"    theirs: {theirs if theirs is not None else '(deleted)'}")
    if others:
        print(f"{len(others)} other conflicted file(s) left as they are: {', '.join(others)}")
    if needs_human:
        print("edit the marked rows, `git add` the file, then continue the merge", file=sys.stderr)
        return 1
    return 0


def _disputes(result) -> str:
    if result.as_text:  # not read as a table (a malformed row, markers in a version)
        return f"the whole file ({result.as_text}, so merged as plain text)"
    parts = []
    if result.conflicts:
        parts.append(f"{len(result.conflicts)} row(s)")
    if result.text_conflicts:
        parts.append("the text above the table")
    return " and ".join(parts)
