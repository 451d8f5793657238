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


# A standard stream the caller closed (`>&-`) gets the null device in its place before
# anything opens a file: else the lock or an entry would take the free descriptor and
# receive output meant for that stream, ours or a git subprocess's.
for fd in (0, 1, 2):
    try:
        os.fstat(fd)
    except OSError:
        os.open(os.devnull, os.O_RDWR)  # takes the lowest free descriptor: this one


def _standard_library(path):
    """The entries of `path` (sys.path) that hold the standard library: absolute folders
    under the interpreter's own prefixes, no site-packages or dist-packages among them.

    The runtime imports nothing else. Everything else on sys.path is a folder a repository
    can fill: the current folder, PYTHONPATH, an editable install's project root added by a
    `.pth` file. A module there named like ours (`ecomem`, `_eco_mem_unpack`) or like a
    standard one would run in place of the release's code."""
    prefixes = {
        os.path.join(os.path.abspath(p), "") for p in (sys.base_prefix, sys.base_exec_prefix)
    }
    kept = []
    for entry in path:
        parts = entry.split(os.sep)
        if not os.path.isabs(entry) or "site-packages" in parts or "dist-packages" in parts:
            continue
        if any(os.path.join(entry, "").startswith(prefix) for prefix in prefixes):
            kept.append(entry)
    return kept


# Python put the runtime file (or, run from the source, runtime/) first on sys.path; our
# package is found after the standard library instead, and nothing else is.
sys.path[:] = [*_standard_library(sys.path), ARCHIVE]


def _from_the_archive(name):
    """One of the archive's own top-level modules (_eco_mem_resolve, _eco_mem_unpack),
    loaded from the archive by its path, never a module of that name found elsewhere."""
    from importlib.machinery import PathFinder
    from importlib.util import module_from_spec

    spec = PathFinder.find_spec(name, [ARCHIVE])
    if spec is None:
        raise ImportError(f"{ARCHIVE} holds no {name}", name=name)
    if not hasattr(spec.loader, "exec_module"):  # Python 3.9's zipimporter
        return spec.loader.load_module(name)
    module = sys.modules[name] = module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__" and sys.argv[1:2] == ["resolve"]:
    handover = _from_the_archive("_eco_mem_resolve")
    sys.exit(handover.resolve_from_the_git_dir(ARCHIVE, sys.argv[2:]))


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


def _cache_folder(base):
    """`base/eco-mem/runtime`, made if need be, or None where it cannot be trusted: the
    base the user's or root's and closed to others (or sticky), each folder below it a
    real folder (no link) of the user's that nobody else can write."""
    if base is None or not hasattr(os, "getuid"):
        return None
    try:
        os.makedirs(base, 0o700, exist_ok=True)
    except OSError:
        return None
    if not _safe_base(base):
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
    return runtime


def _opened_stat(path):
    """os.stat of `path` through an open descriptor: on NFS, opening refreshes what a
    plain stat may take from a cache up to a minute old."""
    handle = os.open(path, os.O_RDONLY)
    try:
        return os.fstat(handle)
    finally:
        os.close(handle)


def _identity(info):
    """The runtime file as os.stat sees it: a file rewritten, replaced or checked out anew
    has another inode or ctime (no call sets a ctime back)."""
    return f"{info.st_dev}-{info.st_ino} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns}"


def _seen_name(runtime, info):
    return os.path.join(runtime, f".seen-{info.st_dev}-{info.st_ino}")


def _seen(runtime, info):
    """The sha256 an earlier run hashed this very file to (its `.seen-` record in the
    cache), or "": then it is hashed again."""
    try:
        with open(_seen_name(runtime, info), encoding="utf-8") as handle:
            identity, _, digest = handle.read(200).strip().rpartition(" ")
    except (OSError, UnicodeDecodeError):
        return ""
    named = len(digest) == 64 and not digest.strip("0123456789abcdef")
    return digest if named and identity == _identity(info) else ""


# The runtime file's identity (_identity) and sha256, once it was hashed or found by
# its `.seen-` record: verify's runtime.hash check reads it (known_digest) instead of
# hashing the same 0.7 MB again.
SEEN = {}


def known_digest(path):
    """The sha256 of the runtime file at `path` when it is the very file this run was
    started from, unchanged since, and its hash is known; else ""."""
    try:
        if not os.path.samefile(path, ARCHIVE):
            return ""
        return SEEN.get(_identity(_opened_stat(path)), "")
    except OSError:
        return ""


def _runtime_folder():
    """The frozen tree of this runtime file in the user's cache, unpacked by the first
    run (_eco_mem_unpack), or None: then the file itself runs, only slower. A later run
    finds the tree by the file's `.seen-` record and checks it (_frozen), no more."""
    if not os.path.isfile(ARCHIVE):
        return None  # run from the source: runtime/ itself
    runtime = _cache_folder(CACHE_BASE)
    if runtime is None:
        return None
    try:
        info = _opened_stat(ARCHIVE)
    except OSError:
        return None
    digest = _seen(runtime, info)
    if digest and _frozen(os.path.join(runtime, digest)):
        SEEN[_identity(info)] = digest
        return os.path.join(runtime, digest)
    return _from_the_archive("_eco_mem_unpack").unpacked(ARCHIVE, runtime, info)


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


# Our package runs from the unpacked tree, whose bytecode was compiled when it was
# unpacked (PYTHONDONTWRITEBYTECODE keeps caches out of source trees; this is a cache).
_tree = _runtime_folder()
if _tree:
    sys.path[sys.path.index(ARCHIVE)] = _tree

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
