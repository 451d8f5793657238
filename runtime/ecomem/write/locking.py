"""One writer at a time: an advisory lock on a file in this work tree's git dir (git_home.py).

The operating system drops the lock when its holder exits, even on `kill -9`, so a crashed
command never leaves a stale lock behind for a human to delete; an O_EXCL lock file would.
The lock file is a regular file of its own or nothing: a link, a hard link or anything
else at its path stops every write with one line, before a byte is written. It lives
in the git dir, where no commit can put one.
"""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from pathlib import Path

from ..errors import UsageError
from ..git_home import LOCK, ensure_state_dir, open_state_file

TIMEOUT_SECONDS = 20.0
TIMEOUT_VARIABLE = "ECO_MEM_LOCK_TIMEOUT"  # seconds; for hosts whose hooks hold the lock long

try:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

except ImportError:  # Windows: lock the file's first byte instead
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True


class LockTimeout(UsageError):
    """Another writer held the lock for the whole wait (exit 2, naming its pid)."""


@contextmanager
def store_lock(root: Path, memory: Path, timeout: float | None = None):
    """Hold the write lock of the work tree `root` (all its stores, `memory` among them)
    for the `with` block, waiting up to `timeout` seconds."""
    if timeout is None:
        try:
            timeout = float(os.environ.get(TIMEOUT_VARIABLE) or TIMEOUT_SECONDS)
        except ValueError:
            timeout = TIMEOUT_SECONDS
    path = ensure_state_dir(root) / LOCK
    fd = open_state_file(path, os.O_RDWR)
    try:
        deadline = time.monotonic() + timeout
        # Jitter the polls so waiting writers do not wake in lockstep.
        pause = 0.01 + (os.getpid() % 7) / 1000
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                os.lseek(fd, 0, os.SEEK_SET)
                said = os.read(fd, 32).decode("ascii", "replace").split()
                holder = said[0] if said and said[0].isdigit() else "unknown"
                raise LockTimeout(
                    f"memory is locked by another eco_mem.pyz (pid {holder}) through {path};"
                    f" waited {timeout:.0f}s ({TIMEOUT_VARIABLE} sets how long), retry when"
                    " it finishes"
                )
            time.sleep(pause)
            pause = min(pause * 1.5, 0.1)
        # The holder's pid, for the message another writer may have to show.
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        yield path
    finally:
        os.close(fd)  # closing drops the lock
