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

The fleet starts it only after the checks phase has ended (autofix.run): no
repository code is running while it exists, so none can ask it for a render.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterator

READY = "ready"


@contextlib.contextmanager
def started(env: dict[str, str]) -> Iterator[str]:
    """The address of a render process started with `env`, killed when the block ends."""
    with tempfile.TemporaryDirectory(prefix="eco-mem-renders.") as folder:  # mode 0700
        address = os.path.join(folder, "socket")
        with tempfile.TemporaryFile() as said:
            server = subprocess.Popen(
                # By path: the fleet may run from a checkout that -I would not import from.
                [sys.executable, "-I", os.path.abspath(__file__), address],
                env=env,
                cwd=folder,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=said,
                text=True,
            )
            try:
                assert server.stdout is not None
                if server.stdout.readline().strip() != READY:
                    server.wait()
                    said.seek(0)
                    last = said.read().decode("utf-8", "replace").strip().splitlines()
                    raise RuntimeError(f"copier: {(last or ['could not start'])[-1]}")
                yield address
            finally:
                server.kill()
                server.wait()


def render(address: str, argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    """`copier ARGV` in the current folder with `env`, as a fork of the render process at
    `address`: its exit status and stderr."""
    request = {"argv": argv, "env": env, "cwd": os.getcwd()}
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.connect(address)
        connection.sendall(json.dumps(request).encode("utf-8"))
        connection.shutdown(socket.SHUT_WR)
        answer = _read_all(connection)
    if not answer:  # the child died before it could answer (killed, out of memory)
        return 1, "the render's process ended without an answer"
    done = json.loads(answer)
    return done["code"], done["stderr"]


def _read_all(connection: socket.socket) -> bytes:
    chunks = []
    while True:
        chunk = connection.recv(1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def serve(address: str) -> None:
    """Import Copier, listen at `address`, and fork a child per request, forever."""
    import copier._cli  # noqa: F401  (the import every render's child inherits)

    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(64)
    print(READY, flush=True)
    while True:
        connection, _ = listener.accept()
        if os.fork() == 0:
            listener.close()
            _answer(connection)  # never returns
        connection.close()
        _reap()


def _reap() -> None:
    """Collect the children that have ended, without waiting for any."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass


def _answer(connection: socket.socket) -> None:
    """In the child: run the request's render and send its result; then exit."""
    code, stderr = 1, ""
    try:
        request = json.loads(_read_all(connection))
        code, stderr = _copier(request["argv"], request["env"], request["cwd"])
    except BaseException:
        stderr = traceback.format_exc()
    finally:
        with contextlib.suppress(OSError):
            connection.sendall(json.dumps({"code": code, "stderr": stderr}).encode("utf-8"))
        os._exit(0)


def _copier(argv: list[str], env: dict[str, str], cwd: str) -> tuple[int, str]:
    """Copier's command line, run as its own process would run it: with `env` only (plumbum
    copied the server's environment when Copier imported it), in `cwd`, with no stdin,
    stdout discarded and stderr kept."""
    from copier._cli import CopierApp
    from plumbum import local

    os.environ.clear()
    os.environ.update(env)
    local.env.clear()
    local.env.update(env)
    tempfile.tempdir = None  # read TMPDIR again, from `env`
    os.chdir(cwd)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    with tempfile.TemporaryFile() as said:
        os.dup2(said.fileno(), 2)
        try:
            _app, code = CopierApp.run(["copier", *argv], exit=False)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
        except Exception:
            traceback.print_exc()  # what Copier's script prints before it exits 1
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()  # sys.stderr writes to descriptor 2, now `said`
        said.seek(0)
        return code, said.read().decode("utf-8", "replace")


if __name__ == "__main__":
    serve(sys.argv[1])
