"""Copier imported once per fleet run, each repository's render a fork of that process.

Run as a process of its own, every repository's `copier copy` spent about a second
importing Copier before it rendered anything. `started` starts one process per run,
with the clean environment of clean_env.py (the token stays behind): it imports
Copier, then waits on a socket in a folder only this user can enter. Each request
is one render: the process forks, and the child takes the request's environment,
working folder and arguments, runs Copier's command line, and answers with its exit
status and what it wrote on stderr. What a render imports (the template's Jinja
extensions), sets or opens ends with its child; the next render is a fork of the
same process, which has run no template code.

A process of the operator's user can reach that socket, so the fleet starts one
only where no repository code runs: never in the checks phase of --host-checks,
which runs each render as a process of its own (`render_alone`), as does a run on a
system without fork or where the process cannot start. The process ends when the
fleet's end of its stdin closes or the fleet is no longer its parent, however the
fleet ended; a render past its timeout is killed with every process it started.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator

READY = "ready"
START_SECONDS = 60.0  # for the process to import Copier and listen
TIMED_OUT = 124  # the exit status `timeout` gives a command it stopped, as own_scripts
LOOK_SECONDS = 1.0  # how often the process checks that the fleet is still there
READ_SECONDS = 60  # for a request to arrive whole


@contextlib.contextmanager
def started(env: dict[str, str]) -> Iterator[str | None]:
    """The address of a render process started with `env`, stopped when the block ends
    (its stdin closed, then SIGTERM, then SIGKILL); None where none can run (no fork, or
    it did not start): then use `render_alone`."""
    if not (hasattr(os, "fork") and hasattr(socket, "AF_UNIX")):
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="eco-mem-renders.") as folder:  # mode 0700
        address = os.path.join(folder, "socket")
        server = subprocess.Popen(
            # By path: the fleet may run from a checkout that -I would not import from.
            [sys.executable, "-I", os.path.abspath(__file__), address],
            env=env,
            cwd=folder,
            stdin=subprocess.PIPE,  # its lifeline: at EOF it exits
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            yield address if _ready(server) else None
        finally:
            assert server.stdin is not None
            server.stdin.close()  # at EOF it stops the renders still running, and exits
            try:
                server.wait(timeout=START_SECONDS)
            except subprocess.TimeoutExpired:
                server.terminate()  # it stops its renders on SIGTERM too
                try:
                    server.wait(timeout=START_SECONDS)
                except subprocess.TimeoutExpired:
                    server.kill()
                    server.wait()


def _ready(server: subprocess.Popen) -> bool:
    assert server.stdout is not None
    readable, _, _ = select.select([server.stdout], [], [], START_SECONDS)
    return bool(readable) and server.stdout.readline().decode().strip() == READY


def render(
    address: str | None, argv: list[str], env: dict[str, str], timeout: float
) -> tuple[int, str]:
    """`copier ARGV` in the current folder with `env`: its exit status and stderr. A fork
    of the render process at `address`, or `render_alone` for None. Past `timeout`
    seconds it is stopped, and the status is TIMED_OUT."""
    if address is None:
        return render_alone(argv, env, timeout)
    request = {"argv": argv, "env": env, "cwd": os.getcwd(), "timeout": timeout}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        try:
            connection.connect(address)
            connection.sendall(json.dumps(request).encode("utf-8"))
            connection.shutdown(socket.SHUT_WR)
        except OSError:  # the process is gone, and nothing of this render ran
            return render_alone(argv, env, timeout)
        # A backstop: the render's own timer kills it before this one ends.
        connection.settimeout(timeout + READ_SECONDS + LOOK_SECONDS)
        try:
            answer = _read_all(connection)
        except OSError:
            answer = b""
    try:
        done = json.loads(answer)
        return int(done["code"]), str(done["stderr"])
    except (ValueError, KeyError, TypeError):  # no answer: stopped at its timeout, or killed
        said = f"ended without an answer (timed out after {timeout:g} s?)"
        return TIMED_OUT, f"copier {argv[0]} {said}"


def render_alone(argv: list[str], env: dict[str, str], timeout: float) -> tuple[int, str]:
    """`copier ARGV` as a Python of its own: -I, because all-repos runs this in the
    clone, and `-m` would otherwise put its folder (a committed copier.py) on sys.path."""
    command = [sys.executable, "-I", "-m", "copier", *argv]
    process = subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own, killed whole at the timeout
    )
    try:
        _, stderr = process.communicate(timeout=timeout)
    except BaseException as error:  # the timeout, or Ctrl-C: its session never sees that
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        if not isinstance(error, subprocess.TimeoutExpired):
            raise
        return TIMED_OUT, f"copier {argv[0]} timed out after {timeout:g} s"
    with contextlib.suppress(ProcessLookupError):  # what it left running, if anything
        os.killpg(process.pid, signal.SIGKILL)
    return process.returncode, stderr


def _read_all(connection: socket.socket) -> bytes:
    chunks = []
    while True:
        chunk = connection.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def serve(address: str) -> None:
    """Import Copier, listen at `address`, and fork a child per request until stdin ends."""
    import copier._cli  # noqa: F401  (the import every render's child inherits)

    fleet = os.getppid()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # through the `finally` below
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)
    print(READY, flush=True)
    # Gone when stdin ends, or when this process has another parent: all-repos' -j workers,
    # forked after it started, hold the pipe's other end too and may outlive the fleet.
    # Each render is a process group of its own (`_answer`), stopped on the way out: Ctrl-C
    # reaches this process, in the fleet's group, and not them.
    renders: set[int] = set()
    try:
        while os.getppid() == fleet:
            readable, _, _ = select.select([listener, sys.stdin], [], [], LOOK_SECONDS)
            if sys.stdin in readable and not os.read(sys.stdin.fileno(), 1):
                return
            if listener in readable:
                connection, _ = listener.accept()
                child = _fork_for(connection)
                if child == 0:
                    listener.close()
                    _answer(connection)  # never returns
                if child > 0:
                    renders.add(child)
                connection.close()
            renders -= _ended()
    finally:
        for child in renders - _ended():
            with contextlib.suppress(OSError):
                os.killpg(child, signal.SIGKILL)


def _fork_for(connection: socket.socket) -> int:
    """os.fork(), the child made a process group of its own by both sides (whichever runs
    first); -1, with that repository answered, when the system refuses."""
    try:
        child = os.fork()
    except OSError as error:
        _send(connection, 1, f"the render process could not fork: {error}")
        return -1
    with contextlib.suppress(OSError):  # the child may have done it, or ended, already
        os.setpgid(child if child else 0, 0)
    return child


def _ended() -> set[int]:
    """The children that have ended, collected without waiting for any."""
    ended = set()
    with contextlib.suppress(ChildProcessError):
        while True:
            pid, _ = os.waitpid(-1, os.WNOHANG)
            if not pid:
                break
            ended.add(pid)
    return ended


def _answer(connection: socket.socket) -> None:
    """In the child: read the request, render it in a process of its own, send the result,
    exit. This process only waits, so its timer fires whatever the render's code does; at
    the timeout it kills its whole group (the render, Copier's git and tasks, itself),
    and the fleet gets no answer."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the process's own handler is not ours
    signal.signal(signal.SIGALRM, lambda *_: os.killpg(0, signal.SIGKILL))
    code, stderr = 1, ""
    try:
        signal.alarm(READ_SECONDS)
        request = json.loads(_read_all(connection))
        signal.alarm(max(1, math.ceil(request["timeout"])))
        code, stderr = _rendered(request)
    except BaseException:
        stderr = traceback.format_exc()
    finally:
        signal.alarm(0)
        _send(connection, code, stderr)
        os.killpg(0, signal.SIGKILL)  # this process, and what the render left running


def _rendered(request: dict) -> tuple[int, str]:
    """Copier run on `request` in a child of this process, which waits for it."""
    with tempfile.TemporaryFile() as result:
        renderer = os.fork()
        if renderer == 0:
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            code, stderr = 1, ""
            try:
                code, stderr = _copier(request["argv"], request["env"], request["cwd"])
            except BaseException:
                stderr = traceback.format_exc()
            finally:
                os.write(result.fileno(), json.dumps([code, stderr]).encode("utf-8"))
                os._exit(0)
        os.waitpid(renderer, 0)
        result.seek(0)
        code, stderr = json.loads(result.read() or b'[1, "the render ended without a word"]')
        return code, stderr


def _send(connection: socket.socket, code: int, stderr: str) -> None:
    with contextlib.suppress(OSError):
        connection.sendall(json.dumps({"code": code, "stderr": stderr}).encode("utf-8"))


def copier_command_line(argv: list[str]) -> int:
    """Copier's command line on `argv` in this process, with the exit status its `copier`
    script would give: Copier's own for what it reports, 1 and a traceback on stderr for
    anything else."""
    from copier._cli import CopierApp

    try:
        _app, code = CopierApp.run(["copier", *argv], exit=False)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else int(stop.code is not None)
    except Exception:
        traceback.print_exc()
        code = 1
    return code


def _copier(argv: list[str], env: dict[str, str], cwd: str) -> tuple[int, str]:
    """Copier's command line, run as its own process would run it: with `env` only (plumbum
    copied the server's environment when Copier imported it), in `cwd`, with no stdin,
    stdout discarded and stderr kept."""
    from plumbum import local

    os.environ.clear()
    os.environ.update(env)
    local.env.clear()
    local.env.update(env)
    tempfile.tempdir = None  # read TMPDIR again, from `env`
    time.tzset()  # and TZ
    os.chdir(cwd)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    with tempfile.TemporaryFile() as said:
        os.dup2(said.fileno(), 2)  # sys.stderr writes to descriptor 2, now `said`
        code = copier_command_line(argv)
        sys.stdout.flush()
        sys.stderr.flush()
        said.seek(0)
        return code, said.read().decode("utf-8", "replace")


if __name__ == "__main__":
    serve(sys.argv[1])
