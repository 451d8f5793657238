"""The one way to ask git: in the background, to the end, or by reading .git itself.

verify asks in the background so its own rules run meanwhile; commands that wait on
git anyway use `git`/`output`; which work tree and config this is (`git_dirs`) is read
from the files git keeps in .git, with no git spawned.

verify runs on every commit. Asked one after the other, its two git questions
(which desks are tracked, which paths are ignored) cost more than every rule
together. Started first, git answers on the other core while the rules run.
On POSIX git is spawned with os.posix_spawn, which also spares the import of
subprocess; elsewhere subprocess does the same job.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (it loads re)
if TYPE_CHECKING:
    # Annotations only: `context` (a session hook) asks git without paying for pathlib.
    from pathlib import Path

# The most one git call is fed (callers split longer input): a bound on memory, not the
# pipe's buffer, since GitCall reads git's answer while it writes. At 16 KiB, 200 package
# stores on 3.8 KB paths took 918 `git check-ignore` processes to track, now 14.
MAX_INPUT = 1 << 20
_PROGRAM: list = []  # git's path, once found
# program()'s rule for a shell command line we write for others to run (the merge
# driver in .git/config, Claude Code's SessionStart hook): put first, it keeps only
# PATH's absolute folders, in builtins, so no program it names (git, python3, mv) is
# found in the folder it runs in, where a branch can commit one. -f: an entry holding
# `*` is not a pattern.
SHELL_ABSOLUTE_PATH = (
    'set -f; a=; IFS=:; for e in $PATH; do case "$e" in /*) a="$a${a:+:}$e";; esac; done;'
    " unset IFS; set +f; PATH=$a;"
)


def program() -> str:
    """git's path, from PATH's absolute folders only. An empty or `.` entry names the
    working folder, the repository's root, where a commit can put a file called `git`;
    every git the runtime starts is this one. OSError when there is none."""
    if not _PROGRAM:
        names = ("git.exe", "git") if os.name == "nt" else ("git",)
        for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
            if os.path.isabs(folder):
                for name in names:
                    path = os.path.join(folder, name)
                    if os.path.isfile(path) and os.access(path, os.X_OK):
                        _PROGRAM.append(path)
                        return path
        raise FileNotFoundError("git was not found on PATH")
    return _PROGRAM[0]


class GitCall:
    """One `git -C ROOT ARGS…` started now, fed `given` on stdin; `result()` waits for it."""

    def __init__(self, root: Path, *args: str, given: bytes = b"") -> None:
        if len(given) > MAX_INPUT:
            raise ValueError(f"git input over {MAX_INPUT} bytes; split it")
        command = [program(), "-C", str(root), *args]
        self._process = None
        if not hasattr(os, "posix_spawnp"):  # pragma: no cover - Windows
            import subprocess

            self._process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
            self._given = given
            return
        # os.pipe() ends are close-on-exec; dup2 hands git plain stdin and stdout.
        out_reader, out_writer = os.pipe()
        in_reader, in_writer = os.pipe()
        actions = [
            (os.POSIX_SPAWN_DUP2, in_reader, 0),
            (os.POSIX_SPAWN_DUP2, out_writer, 1),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ]
        try:
            self._pid = os.posix_spawn(command[0], command, os.environ, file_actions=actions)
        except OSError:
            os.close(out_reader)
            os.close(in_writer)
            raise
        finally:
            os.close(out_writer)
            os.close(in_reader)
        self._reader, self._writer, self._unsent = out_reader, in_writer, memoryview(given)
        os.set_blocking(in_writer, False)
        self._send()  # what the pipe takes now; result() sends the rest as git reads it

    def _send(self) -> None:
        """Write what git's stdin takes now; close it once all is sent or git stops reading."""
        try:
            while self._unsent:
                self._unsent = self._unsent[os.write(self._writer, self._unsent) :]
        except BlockingIOError:
            return
        except BrokenPipeError:
            pass
        os.close(self._writer)
        self._writer = -1

    def result(self) -> tuple[int, bytes]:
        """(exit code, everything git printed on stdout)."""
        if self._process is not None:  # pragma: no cover - Windows
            output, _ = self._process.communicate(self._given)
            return self._process.returncode, output
        chunks = []
        if self._writer >= 0:  # input is left: written whole first, it and git's answer
            import select  # would fill both pipes, each side waiting on the other

            while self._writer >= 0:
                readable, _, _ = select.select([self._reader], [self._writer], [])
                if readable:
                    chunks.append(os.read(self._reader, 65536))
                    if not chunks[-1]:  # git is done before reading all it was given
                        self._unsent = self._unsent[:0]
                self._send()
        while True:
            chunk = os.read(self._reader, 65536)
            if not chunk:
                break
            chunks.append(chunk)
        os.close(self._reader)
        _, status = os.waitpid(self._pid, 0)
        return os.waitstatus_to_exitcode(status), b"".join(chunks)


def run_git(root: Path, *args: str) -> tuple[int, bytes]:
    """Ask git and wait for the answer; OSError when git cannot be started."""
    return GitCall(root, *args).result()


def git(root: Path, *args: str, env: dict | None = None):
    """Run `git -C ROOT ARGS…` to the end, text in and out; the caller reads returncode.
    For commands that wait on git anyway: subprocess is imported here, not by verify."""
    import subprocess

    return subprocess.run(
        [program(), "-C", str(root), *args], capture_output=True, text=True, env=env, check=False
    )


def output(root: Path, *args: str, env: dict | None = None) -> str:
    """git's answer, stripped; OSError naming the git command when it fails."""
    done = git(root, *args, env=env)
    if done.returncode != 0:
        raise OSError(f"git {' '.join(args)}: {done.stderr.strip() or done.returncode}")
    return done.stdout.strip()


def read_small(path: Path) -> str:
    """A small file git keeps in .git (HEAD, a `gitdir:` pointer), stripped; "" if unreadable."""
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read(4096).strip()
    except (OSError, UnicodeDecodeError):
        return ""


def git_dir_names(root: str) -> tuple[str, str] | None:
    """(this work tree's git dir, the repository's common dir), or None outside git.

    Read from the files git keeps, with no git process: `.git` is the git dir, or a
    worktree's or submodule's `gitdir: PATH` pointer to it, and `commondir` there
    names the common dir. In str form for the digest, which never imports pathlib."""
    dot = os.path.join(root, ".git")
    if os.path.isdir(dot):
        git_dir = dot
    else:
        pointer = read_small(dot)
        if not pointer.startswith("gitdir:"):
            return None
        git_dir = os.path.realpath(os.path.join(root, pointer[len("gitdir:") :].strip()))
    common = read_small(os.path.join(git_dir, "commondir"))
    return git_dir, os.path.realpath(os.path.join(git_dir, common)) if common else git_dir


def git_dirs(root: Path) -> tuple[Path, Path] | None:
    """`git_dir_names` as Paths."""
    dirs = git_dir_names(str(root))
    return None if dirs is None else (type(root)(dirs[0]), type(root)(dirs[1]))
