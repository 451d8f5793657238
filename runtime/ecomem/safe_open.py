"""The one way eco-mem opens a file to write it: inside the repository, a regular file.

A repository can commit a symlink anywhere, and an ordinary open() follows it: a link
at the lock's path, at a catalog's, at .gitattributes, would have a write land on some
other file of the machine. Every writer therefore names the repository root with the
path it writes, and gets the file only when:

- the place the bytes land, every link resolved, lies inside the repository and not
  under its `.git` folder (hooks live there);
- that place is a regular file or does not exist yet (a FIFO would block, a device
  never ends, a folder is not text);
- the path itself is not a link, for eco-mem's own files (memory, the lock). Host
  files (AGENTS.md, CLAUDE.md, .gitignore, .gitattributes) may be links to a file
  inside the repository, a layout many hosts use on purpose; they are written
  through, and the writer names the file that changed.

A file written in place (host files, the experiment's logs) must also have no other
hard link: a hard link is a second name for the same bytes, possibly outside the
repository, and a write in place would change both. Files replaced by rename
(memory, catalogs) are not written through, so another name of the old file keeps
the old bytes.

The check above reads paths; between it and the open, a folder on the way could be
swapped for a link. So where the system can (POSIX), the write does not open the path
again: it opens the repository root and then each folder down to the file's own, one
at a time, with O_NOFOLLOW and O_DIRECTORY, and creates, renames or deletes the file
by name in that last folder. A link swapped in anywhere on the way fails the open
instead of being followed. On Windows only the check before the open applies.
A refusal is UnsafeTarget, a UsageError: one line naming the file, exit 2, nothing
written.

No pathlib: git's merge driver writes its result through here.
"""

from __future__ import annotations

import errno
import os
import stat

from .errors import UsageError
from .path_rule import is_git_dir

NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block the open
CLOEXEC = getattr(os, "O_CLOEXEC", 0)
BINARY = getattr(os, "O_BINARY", 0)  # Windows: no newline translation below io
DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# Whether folders can be opened and named through descriptors (not on Windows).
BY_FOLDER = bool(NOFOLLOW and DIRECTORY) and {os.open, os.rename, os.unlink, os.mkdir} <= set(
    os.supports_dir_fd
)
TEMP_PREFIX = ".eco-mem-tmp-"
# Whether this process has changed a file yet: a report lost to a reader that left
# then no longer turns the exit status into an I/O error (see eco_mem.pyz).
changed = False


class UnsafeTarget(UsageError):
    """A write would leave the repository or land on something that is not a regular file."""


def _shown(root: str, path: str) -> str:
    """`path` as the user knows it: relative to the repository when it lies under it."""
    try:
        relative = os.path.relpath(path, root)
    except ValueError:  # Windows: another drive
        return path
    return path if relative.startswith("..") else relative.replace(os.sep, "/")


def target(root, path, follow: bool = False) -> str:
    """The real path a write to `path` changes, after every check above; UnsafeTarget if none.

    With `follow`, a link at `path` itself is written through when it stays inside the
    repository; without it, a link there is refused. Links in the folders above are
    always resolved and judged by where they lead.
    """
    root, path = os.fspath(root), os.fspath(path)
    shown = _shown(root, path)
    real_root = os.path.realpath(root)
    if os.path.islink(path):
        real = os.path.realpath(path)
        if not follow:
            raise UnsafeTarget(
                f"{shown} is a symlink (to {real}); eco-mem keeps its own files as regular"
                " files and never writes through a link there: delete the link (git rm it"
                " if it is committed), then run the command again"
            )
        if not _inside(real, real_root):
            raise UnsafeTarget(
                f"{shown} is a link leading out of the repository (to {real}); eco-mem writes"
                " only inside it: point the link at a file in the repository, or replace it"
                " with one, then run the command again"
            )
    else:
        real = check_folder(root, path)
    if _in_git(real, real_root):
        raise UnsafeTarget(f"{shown} leads into .git; eco-mem never writes there through a path")
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return real
    if not stat.S_ISREG(info.st_mode):
        raise UnsafeTarget(f"{shown} {_kind(info.st_mode)}; eco-mem writes only regular files")
    return real


def read_host_text(root, path) -> str | None:
    """A host file's text as the writers will change it: read where `target` says a
    write would land (never a link out of the repository), line ends kept; None when
    there is no file yet."""
    real = target(root, path, follow=True)
    if not os.path.exists(real):
        return None
    with open(real, encoding="utf-8", newline="") as handle:
        return handle.read()


def _inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "is a folder"
    if stat.S_ISFIFO(mode):
        return "is a FIFO"
    if stat.S_ISLNK(mode):
        return "is a link that does not resolve (a loop)"
    return "is not a regular file (a device or socket)"


def open_fd(root, path, flags: int, follow: bool = False, mode: int = 0o666) -> int:
    """os.open of the file a write to `path` changes (see `target`), checked once more
    through the open descriptor: a regular file with no other hard link. `flags` are
    O_WRONLY or O_RDWR plus extras, never O_TRUNC: a file is truncated only once it is
    known to be regular."""
    real = target(root, path, follow)
    shown = _shown(os.fspath(root), os.fspath(path))
    folder, name = os.path.split(real)
    folder_fd = _open_folder(root, folder, shown)
    flags |= os.O_CREAT | NOFOLLOW | NONBLOCK | CLOEXEC | BINARY
    try:
        if folder_fd is None:
            fd = os.open(real, flags, mode)
        else:
            fd = os.open(name, flags, mode, dir_fd=folder_fd)
    except OSError as error:
        # ELOOP: a link was put in its place since the check; ENXIO: a FIFO nobody reads.
        if error.errno in (errno.ELOOP, errno.ENXIO):
            raise UnsafeTarget(f"{shown} became a link or a FIFO while being opened") from None
        raise
    finally:
        if folder_fd is not None:
            os.close(folder_fd)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise UnsafeTarget(f"{shown} {_kind(info.st_mode)}; eco-mem writes only regular files")
    if info.st_nlink > 1:
        os.close(fd)
        raise UnsafeTarget(
            f"{shown} has {info.st_nlink - 1} other hard link(s), which may lie outside the"
            " repository; eco-mem never writes through one: replace it with a copy"
            f" (cp {shown} x && mv x {shown}), then run the command again"
        )
    return fd


def _open_folder(root, folder: str, shown: str) -> int | None:
    """A descriptor of the real folder `folder` (inside the repository `root`), reached
    from the root one folder at a time without following a link; None where the system
    cannot open folders that way (then the path is opened as checked)."""
    if not BY_FOLDER:
        return None
    real_root = os.path.realpath(os.fspath(root))
    relative = os.path.relpath(folder, real_root)
    fd = os.open(real_root, os.O_RDONLY | DIRECTORY | CLOEXEC)
    try:
        for part in [] if relative == os.curdir else relative.split(os.sep):
            try:
                inner = os.open(part, os.O_RDONLY | DIRECTORY | NOFOLLOW | CLOEXEC, dir_fd=fd)
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise UnsafeTarget(
                        f"{shown}: the folder {part} on its path became a link or a file while"
                        " being opened; eco-mem writes only inside the repository"
                    ) from None
                raise
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_write(root, path, follow: bool = False, binary: bool = False, newline: str | None = ""):
    """The file a write to `path` changes, emptied and open for writing (text: UTF-8,
    line ends written as given unless `newline` says otherwise)."""
    global changed
    fd = open_fd(root, path, os.O_WRONLY, follow)
    try:
        os.ftruncate(fd, 0)
        changed = True
        if binary:
            return os.fdopen(fd, "wb")
        return os.fdopen(fd, "w", encoding="utf-8", newline=newline)
    except BaseException:
        os.close(fd)
        raise


def write_text(root, path, text: str, follow: bool = False, newline: str | None = "") -> None:
    """Write `text` over the file a write to `path` changes, in place (mode, owner and
    hard links kept): for host files."""
    with open_write(root, path, follow, newline=newline) as handle:
        handle.write(text)


def write_bytes(root, path, data: bytes, follow: bool = False) -> None:
    with open_write(root, path, follow, binary=True) as handle:
        handle.write(data)


def replace(root, path, data, follow: bool = False) -> str:
    """Replace `path` by a temp file and rename, so readers see the old file or the new one.

    `data` is bytes, or text written as UTF-8 with LF. The temp file is created beside
    the target, exclusively and without following links, in the folder opened from the
    root (see `_open_folder`); returns the path written.
    """
    global changed
    real = target(root, path, follow)
    if isinstance(data, str):
        data = data.encode("utf-8")
    folder, name = os.path.split(real)
    folder_fd = _open_folder(root, folder, _shown(os.fspath(root), os.fspath(path)))
    temp_name = f"{TEMP_PREFIX}{os.getpid()}-{name}"
    # With a folder descriptor every name is taken in that folder; without, as a path.
    temp, final = (
        (temp_name, name) if folder_fd is not None else (os.path.join(folder, temp_name), real)
    )
    at = {} if folder_fd is None else {"dir_fd": folder_fd}
    moves = {} if folder_fd is None else {"src_dir_fd": folder_fd, "dst_dir_fd": folder_fd}
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | CLOEXEC | BINARY
    try:
        try:
            fd = os.open(temp, flags, 0o666, **at)
        except FileExistsError:  # left by a killed writer with our pid, or committed
            os.unlink(temp, **at)
            fd = os.open(temp, flags, 0o666, **at)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, final, **moves)
            changed = True
        except BaseException:
            try:  # noqa: SIM105 - contextlib costs the merge driver an import
                os.unlink(temp, **at)
            except FileNotFoundError:
                pass
            raise
        if folder_fd is None:
            sync_folder(folder)
        else:
            _fsync(folder_fd)
    finally:
        if folder_fd is not None:
            os.close(folder_fd)
    return real


def _fsync(fd: int) -> None:
    try:  # noqa: SIM105 - not every platform can; contextlib costs the driver an import
        os.fsync(fd)
    except OSError:
        pass


def sync_folder(folder) -> None:
    """Flush a folder, so a rename in it survives a crash; not every platform can."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        _fsync(fd)
    finally:
        os.close(fd)


def check_folder(root, path) -> str:
    """`path` with its folder's links resolved (the name itself kept, a link or not),
    or UnsafeTarget when that folder lies outside the repository."""
    root, path = os.fspath(root), os.fspath(path)
    folder, name = os.path.split(path)
    real = os.path.join(os.path.realpath(folder or os.curdir), name)
    real_root = os.path.realpath(root)
    if not _inside(real, real_root):
        raise UnsafeTarget(
            f"{_shown(root, path)}: a folder on its path is a link leading out of the"
            f" repository (to {os.path.dirname(real)}); eco-mem writes only inside it"
        )
    if _in_git(real, real_root):  # a delete or a rename must not reach hooks either
        raise UnsafeTarget(
            f"{_shown(root, path)} leads into .git; eco-mem never writes there through a path"
        )
    return real


def _in_git(real: str, real_root: str) -> bool:
    """Whether `real` (inside `real_root`) lies under a `.git` folder, at any depth."""
    if real == real_root:
        return False
    return any(is_git_dir(part) for part in real[len(real_root) :].lstrip(os.sep).split(os.sep))


def remove(root, path) -> bool:
    """Delete `path` itself (a link is removed, never followed), when its folder lies
    inside the repository. True if something was there to delete."""
    real = check_folder(root, path)
    global changed
    if not os.path.lexists(real):
        return False
    folder, name = os.path.split(real)
    folder_fd = _open_folder(root, folder, _shown(os.fspath(root), os.fspath(path)))
    try:
        if folder_fd is None:
            os.unlink(real)
        else:
            os.unlink(name, dir_fd=folder_fd)
    finally:
        if folder_fd is not None:
            os.close(folder_fd)
    changed = True
    return True


def make_folders(root, folder) -> None:
    """os.makedirs for a folder that must end up inside the repository and under no
    `.git` folder (hooks live there): the rule `target` applies to a file, judged on
    the real path before any folder is made, so a refused write leaves nothing behind."""
    root, folder = os.fspath(root), os.fspath(folder)
    real, real_root = os.path.realpath(folder), os.path.realpath(root)
    if not _inside(real, real_root):
        raise UnsafeTarget(
            f"{_shown(root, folder)} is, or goes through, a link leading out of the repository"
            f" (to {real}); eco-mem writes only inside it"
        )
    if _in_git(real, real_root):
        raise UnsafeTarget(
            f"{_shown(root, folder)} leads into .git (to {real}); eco-mem never writes there"
            " through a path"
        )
    try:
        os.makedirs(real, exist_ok=True)  # the folders judged, not the path again
    except OSError as error:
        raise UnsafeTarget(
            f"cannot make the folder {_shown(root, folder)}: {error.strerror} (a file or a"
            " symlink loop where a folder goes?)"
        ) from None
