"""The runtime file's first run: unpack `eco_mem.pyz` into the user's cache, compile
it and freeze it, so that every later run imports bytecode (zipimport keeps none).

Imported by the entry (__main__.py) from the runtime file itself, only when no frozen
tree of this file is recorded yet: a second call compiles none of this, and a run that
only hashes the file and records it imports no more than os, sys and time. The checks a
tree must pass to run (_frozen, _state) are the entry's own, so both agree on them.
"""

import os
import sys
import time

_entry = sys.modules["__main__"]
_frozen = _entry._frozen
_state = _entry._state
_own_folder = _entry._own_folder
MANIFEST = _entry.MANIFEST


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


def _same_file(now, seen):
    return _entry._identity(now) == _entry._identity(seen)


def _record_seen(runtime, seen, digest):
    """Write the `.seen-` record the entry reads (_entry._seen): by temporary file and
    rename, read-only. A record that cannot be written only costs the next run a hash.

    Only for a file whose ctime is at least two seconds old (as git's index treats a file
    changed within its own timestamp): a later rewrite of the same inode then has a later
    ctime, even where the kernel's clock moves in ticks or the filesystem keeps whole or
    even seconds."""
    if time.time_ns() - seen.st_ctime_ns < 2_000_000_000:  # or a ctime in the future
        return
    name = _entry._seen_name(runtime, seen)
    temp = os.path.join(runtime, f".recording-{os.getpid()}")
    try:
        handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(f"{_entry._identity(seen)} {digest}\n")
        os.chmod(temp, 0o400)
        os.replace(temp, name)
    except OSError:
        pass


def unpacked(archive, runtime, seen):
    """The folder `runtime/<sha256 of the archive>/` the package runs from, unpacked there
    once, compiled and frozen (built in a temporary sibling, then renamed; a process that
    loses the race to another removes its own), or None when the archive itself must run.
    zipimport compiles every module on every run and keeps no bytecode; unpacked, the
    bytecode lies beside the modules, in that same folder, never in the host.

    `runtime` is the entry's checked cache folder and `seen` the archive's os.stat. Once
    the tree is frozen, the entry records which file it was unpacked from (its `.seen-`
    record), so later runs find the tree without hashing the archive again. A tree that
    is damaged or tampered with is unpacked anew when it is the user's own."""
    try:
        with open(archive, "rb") as handle:
            data = handle.read()
            unchanged = _same_file(os.fstat(handle.fileno()), seen)
    except OSError:
        return None
    digest = _sha256(data)
    folder = os.path.join(runtime, digest)
    if not _frozen(folder):
        folder = _unpack(data, runtime, folder)
    if folder and unchanged:
        _record_seen(runtime, seen, digest)
        _entry.SEEN[_entry._identity(seen)] = digest
    return folder


def _unpack(data, runtime, folder):
    """Unpack `data` into `folder` (see unpacked); the folder, or None."""
    import io  # only here: a run that finds the tree frozen imports none of these
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
