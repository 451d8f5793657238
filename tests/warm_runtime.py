"""Run a host's eco_mem.pyz as `python eco_mem.pyz ARGS` does, without paying for a new
interpreter and the runtime's imports on each of the suite's ~2,000 runs.

Each pytest worker starts one warm process (this file, run as a script). It imports
nothing but the standard library until the runtime of this working tree has been
unpacked into the user's cache (by the first real run); then it imports that tree's
`ecomem` package once and sets it aside. For each call it forks: the child takes the
caller's pipes as its standard streams, its folder, environment and argv, and runs the
runtime file's own entry (`__main__.py`, read from the file) as Python would. When the
entry puts that same tree on sys.path, unchanged since (every module file's inode,
size, mtime and ctime), the child uses the set-aside modules instead of importing them
again; any other tree, or a changed one, is imported as in a fresh process. A tampered
cache is thus read as the runtime itself would read it.

What a child shares with the warm process, and a fresh interpreter would not have:
the hash seed (set iteration order is the same in every child of a worker), the
interpreter's start-up settings, and every runtime module imported before the command
ran (a real run imports some only after it read the answers file, so a module that
took a settled value at import, as write_blocks' default argument once did, behaves
otherwise). So a call whose environment differs from the warm process's in anything
read at start-up (PYTHON*, locale, TZ, temp folder) runs in a real subprocess, as does
every call when ECO_MEM_TESTS_COLD=1 (the suite passes both ways) or where fork is
missing. Only the tests use this; hosts run the runtime file as it is.
"""

from __future__ import annotations

import contextlib
import json
import locale
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

# Read once at interpreter start-up (or cached on first use), so a call may be forked
# only when it asks for the same values as the warm process started with.
START_UP = re.compile(r"PYTHON.*|LANG|LANGUAGE|LC_.*|TZ|TMPDIR|TEMP|TMP")
LARGEST_REQUEST = 128 * 1024  # a seqpacket message; larger requests run cold
INTERPRETER_PATH: list[str] = []  # set by serve()


def start_up_settings(env: dict[str, str]) -> dict[str, str]:
    return {key: value for key, value in env.items() if START_UP.fullmatch(key)}


# --- the warm process ---------------------------------------------------------------


def _cache_tree(digest: str) -> str:
    """Where the runtime entry unpacks the file whose sha256 is `digest` (the entry's
    _cache_base: XDG_CACHE_HOME when absolute, else ~/.cache)."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "eco-mem", "runtime", digest)


def _file_state(path: str | None) -> tuple | None:
    try:
        info = os.stat(path) if path else None
    except OSError:
        return None
    return info and (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def _ecomem_modules() -> list[str]:
    return [name for name in sys.modules if name == "ecomem" or name.startswith("ecomem.")]


class SetAside:
    """The `ecomem` modules of one unpacked tree, imported once and kept out of
    sys.modules, with the state of every file they were read from."""

    def __init__(self, tree: str) -> None:
        import importlib

        self.tree, self.modules, self.files = tree, {}, {}
        if not os.path.isfile(os.path.join(tree, ".unpacked")):
            return
        kept = sys.path[:]
        sys.path[:] = [tree, *(entry for entry in kept if entry.startswith(sys.base_prefix))]
        others = {name: sys.modules.pop(name) for name in _ecomem_modules()}  # a test's own
        try:
            for name in self._names():
                try:
                    importlib.import_module(name)
                except Exception:  # a module that fails here is imported per call
                    continue
        finally:
            sys.path[:] = kept
        for name in _ecomem_modules():
            module = sys.modules.pop(name)
            spec = getattr(module, "__spec__", None)
            if spec is None or not (spec.origin or "").startswith(tree):
                continue
            self.modules[name] = module
            for path in (spec.origin, spec.cached):
                self.files[path] = _file_state(path)
        sys.modules.update(others)

    def __bool__(self) -> bool:
        return bool(self.modules)

    def _names(self) -> list[str]:
        names = []
        top = os.path.join(self.tree, "ecomem")
        for folder, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            package = os.path.relpath(folder, self.tree).replace(os.sep, ".")
            names += [
                package if file == "__init__.py" else f"{package}.{file[:-3]}"
                for file in sorted(files)
                if file.endswith(".py")
            ]
        return names

    def usable(self) -> bool:
        """Whether the entry chose this very tree and none of its files changed since."""
        if "ecomem" not in self.modules or self.tree not in sys.path:
            return False
        return all(_file_state(path) == state for path, state in self.files.items())


class _Given:
    """A loader that hands over a module already executed (import_module's result)."""

    def __init__(self, module) -> None:
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module) -> None:
        pass


class _UseSetAside:
    """First on sys.meta_path in a child: at the first `import ecomem`, after the entry
    has chosen its tree, put the set-aside modules in place if that tree is theirs."""

    def __init__(self, aside: SetAside) -> None:
        self.aside = aside

    def find_spec(self, name, path=None, target=None):
        if name != "ecomem":
            return None
        sys.meta_path.remove(self)
        if not self.aside.usable():
            return None
        from importlib.machinery import ModuleSpec

        package = self.aside.modules["ecomem"]
        sys.modules.update((n, m) for n, m in self.aside.modules.items() if n != "ecomem")
        spec = ModuleSpec("ecomem", _Given(package), origin=package.__spec__.origin)
        spec.submodule_search_locations = list(package.__path__)
        return spec


def _std_stream(fd: int, template, *, write: bool):
    """A standard stream as CPython makes one for a pipe (pylifecycle.c create_stdio):
    buffered, newline "\\n", closefd False; stderr line-buffered since Python 3.9."""
    import io

    raw = io.FileIO(fd, "w" if write else "r", closefd=False)
    buffer = io.BufferedWriter(raw) if write else io.BufferedReader(raw)
    return io.TextIOWrapper(
        buffer,
        encoding=template.encoding,
        errors=template.errors,
        newline="\n",
        line_buffering=fd == 2,
    )


def _exit_code(stop: SystemExit) -> int:
    """What the interpreter exits with for `stop` (Py_HandleSystemExit)."""
    code = stop.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def _close_all_but_the_streams() -> None:
    """What subprocess's close_fds does for a real child: only 0, 1 and 2 stay open."""
    for name in os.listdir("/proc/self/fd") if os.path.isdir("/proc/self/fd") else ():
        if int(name) > 2:
            with contextlib.suppress(OSError):  # the listing's own descriptor, gone
                os.close(int(name))


def _run_child(request: dict, aside: SetAside | None, streams: tuple) -> int:
    import runpy

    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    sys.argv = [request["script"], *request["args"]]
    sys.path[:] = INTERPRETER_PATH  # runpy puts the runtime file first, as `python FILE` does
    sys.stdin = sys.__stdin__ = _std_stream(0, streams[0], write=False)
    sys.stdout = sys.__stdout__ = _std_stream(1, streams[1], write=True)
    sys.stderr = sys.__stderr__ = _std_stream(2, streams[2], write=True)
    if aside is not None:
        sys.meta_path.insert(0, _UseSetAside(aside))
    try:
        runpy.run_path(request["script"], run_name="__main__")
        code = 0
    except SystemExit as stop:
        code = _exit_code(stop)
    except BaseException:  # as the interpreter does: a traceback, exit 1
        sys.excepthook(*sys.exc_info())
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # the interpreter's exit status for a failed flush
            code = 120
    return code


def _serve_one(control: socket.socket, request: dict, fds: list[int], aside) -> None:
    """Fork a manager that forks the child, sends its pid, waits for it and sends its
    wait status: the warm process itself never waits, so calls run side by side."""
    reply, stdin, stdout, stderr = fds
    if os.fork() != 0:
        return
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the manager waits for its child
        templates = (sys.__stdin__, sys.__stdout__, sys.__stderr__)
        child = os.fork()
        if child == 0:
            code = 1
            try:
                for fd, target in ((stdin, 0), (stdout, 1), (stderr, 2)):
                    os.dup2(fd, target)
                _close_all_but_the_streams()
                code = _run_child(request, aside, templates)
            finally:
                os._exit(code & 0xFF)
        for fd in (stdin, stdout, stderr):
            os.close(fd)
        control.close()
        answer = socket.socket(fileno=reply)
        answer.sendall(f"{child}\n".encode())
        _, status = os.waitpid(child, 0)
        answer.sendall(f"{status}\n".encode())
    finally:
        os._exit(0)


def serve(control_fd: int, digest: str) -> None:
    """The warm process: one request per seqpacket message on `control_fd` (a JSON
    request, and the reply socket and three stream descriptors passed with it); stdin
    is a lifeline, and its end (the worker gone) ends this process too."""
    import select

    # This process was started as `python FILE` too: past its own folder, its sys.path is
    # the one a `python eco_mem.pyz` starts with.
    global INTERPRETER_PATH
    INTERPRETER_PATH = sys.path[1:]
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # managers are reaped by the kernel
    control = socket.socket(fileno=control_fd)
    tree, aside = _cache_tree(digest), None
    while True:
        ready, _, _ = select.select([control, sys.stdin], [], [])
        if sys.stdin in ready:
            return
        message, fds, _, _ = socket.recv_fds(control, LARGEST_REQUEST, 4)
        if not message:
            return
        if aside is None and os.path.isdir(tree):
            aside = SetAside(tree) or None  # none set aside (not unpacked yet): try again
        try:
            _serve_one(control, json.loads(message), fds, aside)
        finally:
            for fd in fds:
                os.close(fd)


# --- the caller's side ----------------------------------------------------------------


class _Warm:
    """This worker's warm process, started on first use; None where it cannot run."""

    def __init__(self) -> None:
        from eco_mem_ops.runtime_build import build, digest

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.env = start_up_settings(dict(os.environ))
        self.process = subprocess.Popen(
            [sys.executable, __file__, str(theirs.fileno()), digest(build())],
            stdin=subprocess.PIPE,
            pass_fds=[theirs.fileno()],
        )
        theirs.close()
        self.control, self.lock = ours, threading.Lock()

    def send(self, request: bytes, fds: list[int]) -> None:
        with self.lock:
            socket.send_fds(self.control, [request], fds)


_warm: list = []


def _warm_process() -> _Warm | None:
    if not _warm:
        usable = hasattr(os, "fork") and hasattr(socket, "send_fds")
        cold = os.environ.get("ECO_MEM_TESTS_COLD") == "1"
        _warm.append(_Warm() if usable and not cold else None)
    return _warm[0]


def run(
    script: str,
    args: list[str],
    *,
    cwd: str,
    input: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess:
    """`subprocess.run([sys.executable, script, *args], cwd=cwd, input=input,
    capture_output=True, text=True, env=env, timeout=timeout)`, stdin the null device
    when `input` is None, answered by a fork of the warm process where it can be."""
    env = dict(os.environ if env is None else env)
    argv = [sys.executable, script, *args]
    warm = _warm_process() if script.endswith(".pyz") else None
    if warm is not None and start_up_settings(env) == warm.env:
        request = {"script": script, "args": args, "cwd": cwd, "env": env}
        answered = _forked(warm, json.dumps(request).encode(), argv, input, timeout)
        if answered is not None:
            return answered
    return subprocess.run(
        argv,
        cwd=cwd,
        input=input,
        stdin=subprocess.DEVNULL if input is None else None,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def _forked(
    warm: _Warm, request: bytes, argv: list[str], input: str | None, timeout: float | None
) -> subprocess.CompletedProcess | None:
    """The call answered by a child of the warm process; None when it cannot take it
    (a request too large for one message, or the warm process gone)."""
    if len(request) > LARGEST_REQUEST:
        return None
    ours, theirs = socket.socketpair()
    if input is None:
        stdin_r, stdin_w = os.open(os.devnull, os.O_RDONLY), None
    else:
        stdin_r, stdin_w = os.pipe()
    stdout_r, stdout_w = os.pipe()
    stderr_r, stderr_w = os.pipe()
    try:
        warm.send(request, [theirs.fileno(), stdin_r, stdout_w, stderr_w])
        sent = True
    except OSError:
        sent = False
    finally:
        for fd in (stdin_r, stdout_w, stderr_w):
            os.close(fd)
        theirs.close()
    reply = ours.makefile("r", encoding="ascii")
    pid = reply.readline() if sent else ""
    if not pid:
        for fd in (stdin_w, stdout_r, stderr_r):
            if fd is not None:
                os.close(fd)
        reply.close()
        ours.close()
        return None
    # subprocess.run's text mode: the locale's encoding, strict, newlines translated.
    encoding = locale.getpreferredencoding(False)
    out, err = bytearray(), bytearray()

    def feed() -> None:
        try:
            with open(stdin_w, "wb") as pipe:
                pipe.write(input.encode(encoding))
        except BrokenPipeError:
            pass  # the child stopped reading, as subprocess.run allows

    def drain(fd: int, into: bytearray) -> None:
        with open(fd, "rb") as pipe:
            while chunk := pipe.read1(65536):
                into += chunk

    threads = [
        threading.Thread(target=drain, args=(stdout_r, out)),
        threading.Thread(target=drain, args=(stderr_r, err)),
    ]
    if stdin_w is not None:
        threads.append(threading.Thread(target=feed))
    for thread in threads:
        thread.start()
    deadline = None if timeout is None else time.monotonic() + timeout
    timed_out = False
    for thread in threads:
        thread.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        if thread.is_alive() and not timed_out:
            timed_out = True
            os.kill(int(pid), signal.SIGKILL)
        thread.join()
    status = int(reply.readline())
    reply.close()
    ours.close()
    if timed_out:
        raise subprocess.TimeoutExpired(argv, timeout, bytes(out), bytes(err))

    def text(raw: bytearray) -> str:
        return raw.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")

    return subprocess.CompletedProcess(
        argv, os.waitstatus_to_exitcode(status), text(out), text(err)
    )


if __name__ == "__main__":
    serve(int(sys.argv[1]), sys.argv[2])
