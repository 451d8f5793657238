"""`eco_mem.pyz resolve`'s handover to the merge code the clone keeps in its git dir.

Imported by the entry (__main__.py) from the runtime file itself, for `resolve` only,
before anything else of the package: a stopped merge may have put a branch's package
in the work tree, and only the file the user ran, never the unpacked cache, is read.
"""

import os
import stat
import sys


def resolve_from_the_git_dir(archive, args):
    """`resolve` finishes a merge that stopped, when the work tree holds what the incoming
    commits put there, this package among them. So it runs the copy of the merge code that
    `track` keeps in the git dir (`<common git dir>/eco-mem/resolve.py`), found here with
    the standard library alone, before any module of the work tree is imported: only the
    runtime file runs from the tree. No copy is an error, never a reason to run the tree's."""
    import subprocess

    start = os.path.dirname(archive)  # the runtime's folder as typed, links kept: its repository
    if args[:1] == ["--root"] and len(args) > 1:
        start, args = args[1], args[2:]
    top = os.path.abspath(start)
    while not os.path.lexists(os.path.join(top, ".git")) and os.path.dirname(top) != top:
        top = os.path.dirname(top)
    git_dir = os.path.join(top, ".git")
    if not os.path.isdir(git_dir):  # a linked worktree or a submodule: "gitdir: PATH"
        pointer = _small(git_dir)
        if not pointer.startswith("gitdir:"):
            print(f"eco_mem.pyz resolve: {start} is not inside a git work tree", file=sys.stderr)
            return 2
        git_dir = os.path.join(top, pointer[len("gitdir:") :].strip())
    common = os.path.join(git_dir, _small(os.path.join(git_dir, "commondir")))
    unsafe = _reachable_by_a_commit(top, common)
    if unsafe:
        print(f"eco_mem.pyz resolve: {unsafe}; nothing was merged", file=sys.stderr)
        return 2
    launcher = os.path.join(common, "eco-mem", "resolve.py")
    if not _is_plain(launcher, stat.S_ISREG):
        print(
            "eco_mem.pyz resolve: this clone keeps no copy of the merge code in its git dir;"
            " abort the merge, run `eco_mem.pyz track` on your own branch, then merge again",
            file=sys.stderr,
        )
        return 2
    # -I: no PYTHONPATH, user site or current folder; -S: no .pth files.
    return subprocess.call([sys.executable, "-I", "-S", launcher, *args], cwd=top)


def _reachable_by_a_commit(top, common):
    """Why `common/eco-mem` may hold what a commit put there, or "" when it cannot.

    git_home.py's safe_home, in this file's words: the entry imports nothing of the
    work tree before the handover. The common git dir must lie outside the work tree
    or in its own `.git` folder (not a link), and `eco-mem` in it be a folder, not a
    link: a committed `.claude/skills -> ../.git` once rendered `.git/eco-mem` as a
    link into the tracked skill, where a branch writes the `resolve.py` run here."""
    real_top = os.path.realpath(top)
    inside = os.path.relpath(os.path.realpath(common), real_top).split(os.sep)
    if inside[0] != os.pardir and not (
        inside[0] == ".git" and _is_plain(os.path.join(top, ".git"), stat.S_ISDIR)
    ):
        return f"the git dir of {top} lies inside its work tree, not in .git"
    home = os.path.join(common, "eco-mem")
    if os.path.lexists(home) and not _is_plain(home, stat.S_ISDIR):
        return f"{home} is a link or not a folder (a link into .git rendered it?); delete it"
    return ""


def _is_plain(path, kind):
    """Whether `path` itself (never a link) exists and is of `kind` (stat.S_ISDIR, S_ISREG)."""
    try:
        return kind(os.lstat(path).st_mode)
    except OSError:
        return False


def _small(path):
    """A small file git keeps (a `gitdir:` pointer, `commondir`), stripped; "" if unreadable."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(4096).strip()
    except (OSError, UnicodeDecodeError):
        return ""
