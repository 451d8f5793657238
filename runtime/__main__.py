"""eco-mem: the commands for this repository's agent memory. Stdlib only, Python 3.9+.

This is the entry of `eco_mem.pyz`, the one runtime file a host holds (built from the
template repository's runtime/ by `ops.py build-runtime`). `eco_mem.pyz --help` lists
every command (their table is ecomem/commands/__init__.py); `eco_mem.pyz COMMAND
--help` gives one command's options. Exit codes: 0 ok, 1 findings, conflicts, or
refused by a rule (nothing written), 2 usage or I/O error.
"""

import os
import stat
import sys

# The archive this file was loaded from (or runtime/, run from the source).
ARCHIVE = os.path.dirname(os.path.abspath(__file__))


def _cache_base():
    """The user's cache folder, or None: XDG_CACHE_HOME only when absolute (the XDG spec
    says to ignore a relative one; taken as is, it would put the cache in the working
    folder, where a commit could hold the tree that runs)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return base if os.path.isabs(base) else None


CACHE_BASE = _cache_base()
CACHE = ("eco-mem", "runtime")  # the folders under CACHE_BASE that hold the unpacked trees
# In each tree: every entry's path, mode, size, mtime and ctime as it was frozen. No call
# sets a ctime back, so a file rewritten in place no longer matches, its mtime restored.
MANIFEST = ".unpacked"


# A standard stream the caller closed (`>&-`) gets the null device in its place before
# anything opens a file: else the lock or an entry would take the free descriptor and
# receive output meant for that stream, ours or a git subprocess's.
for fd in (0, 1, 2):
    try:
        os.fstat(fd)
    except OSError:
        os.open(os.devnull, os.O_RDWR)  # takes the lowest free descriptor: this one


def _sha256(data):
    """hashlib's sha256 without hashlib: it loads OpenSSL, which costs more than hashing."""
    try:
        from _sha2 import sha256  # Python 3.12+
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:
            from hashlib import sha256
    return sha256(data).hexdigest()


def unpacked(archive, base):
    """The folder the archive's package runs from: `base/eco-mem/runtime/<sha256 of the
    archive>/`, unpacked there once, compiled and frozen (built in a temporary sibling,
    then renamed; a process that loses the race to another removes its own). zipimport
    compiles every module on every run and keeps no bytecode; unpacked, the bytecode
    lies beside the modules, in that same folder, never in the host.

    Every run trusts the folder only as its own unpacking left it (_frozen): no link from
    `eco-mem` down, every folder the user's and closed to others, no entry writable, and
    the tree exactly its manifest. Else the folder is unpacked anew (when it is the
    user's own) or the archive itself runs, only slower. None when that is so."""
    if base is None or not hasattr(os, "getuid"):
        return None
    try:
        os.makedirs(base, 0o700, exist_ok=True)
    except OSError:
        return None
    if not _safe_base(base):
        return None
    try:
        with open(archive, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    runtime = base
    for name in CACHE:
        runtime = os.path.join(runtime, name)
        try:
            os.makedirs(runtime, 0o700, exist_ok=True)
        except OSError:
            return None
        if not _own_folder(runtime, 0o022):
            return None
    folder = os.path.join(runtime, _sha256(data))
    if _frozen(folder):
        return folder
    import io  # only to unpack: a second call pays for none of these
    import tempfile
    import zipfile

    if os.path.lexists(folder) and not _own_folder(folder, 0):
        return None  # a link or another's: never followed, never removed
    building = None
    try:
        # Damaged or tampered with: set aside. Checked again, as a process racing this
        # one may have just renamed a whole tree into place, which others already run.
        if os.path.lexists(folder):
            if _frozen(folder):
                return folder
            aside = tempfile.mkdtemp(prefix=".discarded-", dir=runtime)
            try:
                os.rename(folder, os.path.join(aside, "tree"))
            finally:
                _discard(aside)
        building = tempfile.mkdtemp(prefix=".unpacking-", dir=runtime)
        with zipfile.ZipFile(io.BytesIO(data)) as packed:
            packed.extractall(building)
        _compile_and_freeze(building, folder)
        try:
            os.rename(building, folder)
            building = None
        except OSError:  # another process unpacked it first: use theirs
            pass
    except (OSError, zipfile.BadZipFile, SyntaxError, ValueError):
        return None
    finally:
        if building:
            _discard(building)
    return folder if _frozen(folder) else None


def _safe_base(base):
    """Whether no other user can swap the folders under `base` (the user's cache folder,
    which may itself be a link): it is the user's or root's, and closed to others unless
    sticky (as /tmp is: others cannot then rename what is ours)."""
    try:
        info = os.stat(base)
    except OSError:
        return False
    closed = not info.st_mode & 0o022 or info.st_mode & stat.S_ISVTX
    return stat.S_ISDIR(info.st_mode) and info.st_uid in (0, os.getuid()) and bool(closed)


def _own_folder(path, forbidden):
    """Whether `path` itself is a folder (not a link), the user's, with no `forbidden` bit."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & forbidden
    )


def _state(info):
    """What the manifest keeps of one entry's lstat: its kind and mode (a link, or a
    write bit, differs), size, mtime and ctime."""
    return f"{info.st_mode:o} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns}"


def _frozen(folder):
    """Whether `folder` is a tree this entry unpacked and froze, unchanged since: a real
    folder of the user's that nobody can write, whose every entry is as its manifest
    lists it, and whose top holds nothing else. A file added or removed below changes
    its folder's mtime and ctime; one rewritten in place, or opened to writing, its own
    ctime. One lstat per entry: no file is read but the manifest."""
    if not _own_folder(folder, 0o222):
        return False
    try:
        with open(os.path.join(folder, MANIFEST), encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        top = {MANIFEST}
        for line in lines:
            name, _, recorded = line.partition("\t")
            info = os.lstat(os.path.join(folder, name))
            if info.st_uid != os.getuid() or _state(info) != recorded:
                return False
            top.add(name.partition("/")[0])
        return bool(lines) and sorted(os.listdir(folder)) == sorted(top)
    except (OSError, UnicodeDecodeError):
        return False


def _compile_and_freeze(building, folder):
    """Compile every module beside its source (as `folder`'s, for tracebacks), then take
    every write bit away and record the manifest: from here on the tree only runs."""
    import py_compile

    tag = sys.implementation.cache_tag
    for inner, _, files in os.walk(building):
        for name in files:
            if tag and name.endswith(".py"):
                source = os.path.join(inner, name)
                shown = os.path.join(folder, os.path.relpath(source, building))
                cache = os.path.join(inner, "__pycache__", f"{name[:-3]}.{tag}.pyc")
                py_compile.compile(source, cache, shown, doraise=True)
    for inner, subfolders, files in os.walk(building, topdown=False):
        for name in files:
            os.chmod(os.path.join(inner, name), 0o400)
        for name in subfolders:
            os.chmod(os.path.join(inner, name), 0o500)
    lines = []
    for inner, subfolders, files in os.walk(building):
        for name in subfolders + files:
            path = os.path.join(inner, name)
            relative = os.path.relpath(path, building).replace(os.sep, "/")
            lines.append(f"{relative}\t{_state(os.lstat(path))}\n")
    manifest = os.path.join(building, MANIFEST)
    with open(manifest, "w", encoding="utf-8") as handle:
        handle.write("".join(lines))
    os.chmod(manifest, 0o400)
    os.chmod(building, 0o500)


def _discard(path):
    """Remove a tree of ours that is read-only: its folders opened to the user first
    (os.walk descends into no link)."""
    import shutil

    for inner, _, _ in os.walk(path):
        try:
            os.chmod(inner, 0o700)
        except OSError:
            break  # not ours to open: rmtree removes what it can
    shutil.rmtree(path, ignore_errors=True)


def _runtime_path():
    """Where `ecomem` is imported from, put on sys.path after the standard library.

    Python puts the archive first on sys.path; take it out, so our package never stands
    before the standard library (a file in it, or run from the source a host file, could
    shadow a stdlib module for every import below). Then the unpacked folder, whose
    bytecode was compiled when it was unpacked (PYTHONDONTWRITEBYTECODE keeps caches out
    of source trees; this folder is a cache), or the archive itself when that cannot be
    had."""
    first = sys.path[0] if sys.path else ""
    if first and os.path.abspath(first) == ARCHIVE:
        del sys.path[0]
    where = ARCHIVE
    if os.path.isfile(ARCHIVE):
        where = unpacked(ARCHIVE, CACHE_BASE) or ARCHIVE
    sys.path.append(where)


def resolve_from_the_git_dir(args):
    """`resolve` finishes a merge that stopped, when the work tree holds what the incoming
    commits put there, this package among them. So it runs the copy of the merge code that
    `track` keeps in the git dir (`<common git dir>/eco-mem/resolve.py`), found here with
    the standard library alone, before any module of the work tree is imported: only this
    file runs from the tree. No copy is an error, never a reason to run the tree's."""
    import subprocess

    start = os.path.dirname(ARCHIVE)  # the runtime's folder as typed, links kept: its repository
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


if __name__ == "__main__" and sys.argv[1:2] == ["resolve"]:
    sys.exit(resolve_from_the_git_dir(sys.argv[2:]))

_runtime_path()  # after the handover above: `resolve` never imports the tree's package

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
