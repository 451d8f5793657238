"""The one error boundary: whatever a command ends in, the user reads one line per problem.

cli.run puts every command behind it. It lives apart from cli.py, and imports
only os, sys and errors, so that git's merge driver (`merge-catalog`, a new
process for every conflicted catalog) can use it without argparse or pathlib.
"""

from __future__ import annotations

import errno
import os
import sys

from .errors import EXIT_USAGE, CommandError, Refused

# Set to see the traceback of an unexpected failure instead of its one-line summary.
DEBUG_VARIABLE = "ECO_MEM_DEBUG"


def guarded(say: str, action) -> int:
    """Run `action()` (a command, returning its exit code); `say` starts each line
    printed for a failure (`eco_mem.pyz verify`)."""
    try:
        return action()
    except Refused as refusal:
        for finding in refusal.findings:
            where = f"{finding.path}:{finding.line}" if finding.line else finding.path
            print(f"{say}: refused [{finding.rule}] {where}: {finding.message}", file=sys.stderr)
        if not refusal.findings:
            print(f"{say}: {refusal}", file=sys.stderr)
        return refusal.exit_code
    except CommandError as error:
        print(f"{say}: {error}", file=sys.stderr)
        return error.exit_code
    except BrokenPipeError:
        raise  # not from our streams (Lossy drops those): the shim says it in its exit code
    except KeyboardInterrupt:
        print(f"{say}: interrupted", file=sys.stderr)
        return 130
    except (OSError, UnicodeError) as error:
        print(f"{say}: {describe(error)}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:
        if os.environ.get(DEBUG_VARIABLE):
            raise
        from .protocol import ANSWERS_FILE

        where = error.__traceback__
        while where.tb_next is not None:
            where = where.tb_next
        place = f"{os.path.basename(where.tb_frame.f_code.co_filename)}:{where.tb_lineno}"
        print(
            f"{say}: internal error ({type(error).__name__} at {place}: {error}). This is a bug"
            f" in eco-mem: please report it, with this line, where the template came from"
            f" (_src_path in {ANSWERS_FILE}); {DEBUG_VARIABLE}=1 shows the traceback",
            file=sys.stderr,
        )
        return EXIT_USAGE


class Lossy:
    """sys.stdout or sys.stderr, minus the failure of a reader that left (`… | head`)
    or of a stream closed by the caller.

    What the reader no longer takes is dropped, and the command goes on to its end: a
    write it was making still lands whole. A command that changed files exits as it
    would have, so the status says what it changed; one that only reads exits 2, as
    its report (the reason it ran) never arrived. A closed stream is /dev/null.
    Everything else is the stream's own.
    """

    # Set once a reader left (EPIPE): the shim's exit status then says so, unless
    # the command changed files, whose status must say what it changed.
    reader_left = False

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as error:
            self._drop(error)
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as error:
            self._drop(error)

    def _drop(self, error: OSError) -> None:
        # Only a reader that left (EPIPE) or a stream that cannot be written at all
        # (EBADF: closed, or open for reading only); a full disk is still an I/O error.
        if error.errno not in (errno.EPIPE, errno.EBADF):
            raise error
        if error.errno == errno.EPIPE:
            Lossy.reader_left = True
        # What is still buffered, and all that follows, goes to the null device, so
        # not even the interpreter's last flush at exit complains.
        try:
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())
            os.close(null)
        except (OSError, ValueError):
            pass

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def lossy_streams() -> None:
    """Make stdout and stderr Lossy; one closed before start (`>&-`, left None by Python)
    becomes the null device, the descriptor the shim already gave it."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            stream = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as we do
        if not isinstance(stream, Lossy):
            setattr(sys, name, Lossy(stream))


def describe(error: Exception) -> str:
    """An I/O or text error as a reader wants it: what failed, and on which file."""
    if isinstance(error, OSError) and error.strerror:
        path = f": {error.filename}" if error.filename else ""
        return f"{error.strerror}{path}"
    return str(error)
