#!/usr/bin/env python3
"""eco-mem: the commands for this repository's agent memory. Stdlib only, Python 3.9+.

`eco_mem.py --help` lists every command (their table is ecomem/commands/__init__.py);
`eco_mem.py COMMAND --help` gives one command's options. Exit codes: 0 ok, 1 findings,
conflicts, or refused by a rule (nothing written), 2 usage or I/O error.
"""

import os
import stat
import sys

# Python puts the script's folder first on sys.path, so a host file such as
# scripts/argparse.py would shadow the standard library for every import below.
# Take that entry out (under -I, as the install's tasks run us, it is never there)
# and look for our package only after the standard library and site-packages.
_HERE = os.path.dirname(os.path.abspath(__file__))
_FIRST = sys.path[0] if sys.path else ""
if _FIRST and os.path.isdir(_FIRST) and os.path.samefile(_FIRST, _HERE):
    del sys.path[0]
sys.path.append(_HERE)

# A standard stream the caller closed (`>&-`) gets the null device in its place before
# anything opens a file: else the lock or an entry would take the free descriptor and
# receive output meant for that stream, ours or a git subprocess's.
for fd in (0, 1, 2):
    try:
        os.fstat(fd)
    except OSError:
        os.open(os.devnull, os.O_RDWR)  # takes the lowest free descriptor: this one

# The package sits beside this file. Cache its bytecode outside the host repo
# (no __pycache__ folders in the skill), yet keep the cache: compiling on every
# run would cost more than verify itself.
if sys.pycache_prefix is None:
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    sys.pycache_prefix = os.path.join(cache_home, "eco-mem", "pycache")
    # PYTHONDONTWRITEBYTECODE exists to keep __pycache__ out of source trees;
    # the prefix above already does that, so caching stays on.
    sys.dont_write_bytecode = False


def resolve_from_the_git_dir(args):
    """`resolve` finishes a merge that stopped, when the work tree holds what the incoming
    commits put there, this package among them. So it runs the copy of the merge code that
    `track` keeps in the git dir (`<common git dir>/eco-mem/resolve.py`), found here with
    the standard library alone, before any module of the work tree is imported: only this
    file runs from the tree. No copy is an error, never a reason to run the tree's."""
    import subprocess

    start = _HERE  # the script's folder as typed, links kept: its repository
    if args[:1] == ["--root"] and len(args) > 1:
        start, args = args[1], args[2:]
    top = os.path.abspath(start)
    while not os.path.lexists(os.path.join(top, ".git")) and os.path.dirname(top) != top:
        top = os.path.dirname(top)
    git_dir = os.path.join(top, ".git")
    if not os.path.isdir(git_dir):  # a linked worktree or a submodule: "gitdir: PATH"
        pointer = _small(git_dir)
        if not pointer.startswith("gitdir:"):
            print(f"eco_mem.py resolve: {start} is not inside a git work tree", file=sys.stderr)
            return 2
        git_dir = os.path.join(top, pointer[len("gitdir:") :].strip())
    common = os.path.join(git_dir, _small(os.path.join(git_dir, "commondir")))
    unsafe = _reachable_by_a_commit(top, common)
    if unsafe:
        print(f"eco_mem.py resolve: {unsafe}; nothing was merged", file=sys.stderr)
        return 2
    launcher = os.path.join(common, "eco-mem", "resolve.py")
    if not _is_plain(launcher, stat.S_ISREG):
        print(
            "eco_mem.py resolve: this clone keeps no copy of the merge code in its git dir;"
            " abort the merge, run `eco_mem.py track` on your own branch, then merge again",
            file=sys.stderr,
        )
        return 2
    # -I: no PYTHONPATH, user site or current folder; -S: no .pth files.
    return subprocess.call([sys.executable, "-I", "-S", launcher, *args], cwd=top)


def _reachable_by_a_commit(top, common):
    """Why `common/eco-mem` may hold what a commit put there, or "" when it cannot.

    git_home.py's safe_home, in this file's words: the shim imports nothing of the
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


if __name__ == "__main__" and sys.argv[1:2] == ["resolve"]:
    sys.exit(resolve_from_the_git_dir(sys.argv[2:]))

if __name__ == "__main__" and sys.argv[1:] == ["context"]:
    # A harness hook at session start (commands/context.py): no argument parser, and
    # never an error that could stop the session; ECO_MEM_DEBUG=1 shows what went wrong.
    try:
        from ecomem.commands.context import main as context

        sys.exit(context())
    except Exception:
        if os.environ.get("ECO_MEM_DEBUG"):
            import traceback

            traceback.print_exc()
        sys.exit(0)

from ecomem.boundary import Lossy, lossy_streams  # noqa: E402 - after the descriptors are set
from ecomem.cli import main  # noqa: E402

if __name__ == "__main__":
    lossy_streams()
    try:
        code = main()
        sys.stdout.flush()
        written = sys.modules.get("ecomem.safe_open")
        if Lossy.reader_left and not (written and written.changed):
            code = 2  # only read, and the reader of the report left: an I/O error
    except BrokenPipeError:
        # A pipe other than our own streams broke (those drop what their reader leaves;
        # see boundary.Lossy). Say nothing more (not even at exit, hence the dup2) and
        # report an I/O error, not a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 2
    sys.exit(code)
