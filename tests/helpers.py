"""Small helpers that keep each test scenario on one screen.

Everything here drives the real git and the real copier; nothing is mocked.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import shutil
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

import copier

PROJECT = Path(__file__).resolve().parent.parent
# What a tagged test template repository holds: Copier's checkout of it must have the
# operator (ops.py, eco_mem_ops/) that copier.yml's tasks and migrations run.
TEMPLATE_PARTS = ("copier.yml", "template", "extensions", "ops.py", "eco_mem_ops", "runtime")
ANSWERS = ".copier-answers.eco-mem.yml"
SKILL = ".agents/skills/eco-mem"
MEMORY = ".agents/memory"
# Where the protocol's numbers are written once, in a template checkout.
RUNTIME_PROTOCOL = "runtime/ecomem/protocol.py"
# The one runtime file a host holds, its name in the skill's scripts/, and where the
# template keeps it (built from runtime/ by eco_mem_ops/runtime_build.py).
HOST_RUNTIME = "eco_mem.pyz"
RUNTIME_FILE = "template/{{skill_path}}/eco-mem/scripts/eco_mem.pyz"
# ... and the drawers' INDEX contracts, which the template renders from it.
RUNTIME_CONTRACTS = "runtime/ecomem/store/contracts.py"


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return result.stdout


def init_repo(path: Path) -> Path:
    """A git repository with identity set and one empty commit."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    # What three `git config` runs would add, in one write: the suite makes thousands.
    with (path / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write("[user]\n\tname = Test\n\temail = test@example.invalid\n")
        config.write("[commit]\n\tgpgsign = false\n")
    git(path, "commit", "-q", "--allow-empty", "-m", "start")
    return path


def commit_all(repo: Path, message: str = "save") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)


def build_files(root: Path, files: dict[str, str | bytes]) -> None:
    """Write {relative path: content} under root, creating folders."""
    for relpath, content in files.items():
        target = root / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")


def snapshot_template(repo: Path, tag: str, mutate: Callable[[Path], None] | None = None) -> Path:
    """Commit this working tree's template into `repo` and tag it.

    Called again on the same repo, it replaces the template with the current
    working tree (then `mutate` edits it) and adds a new tagged commit: this is
    how tests make a v2 of the template.
    """
    if not (repo / ".git").exists():
        init_repo(repo)
    for part in TEMPLATE_PARTS:
        target = repo / part
        if target.is_dir():
            shutil.rmtree(target)
        source = PROJECT / part
        if source.is_dir():
            shutil.copytree(
                source, target, symlinks=True, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(source, target)
    if mutate:
        mutate(repo)
    # The runtime file from the snapshot's own source, as `ops.py build-runtime` makes
    # it: tests run the current runtime/ (and a mutated one) before the committed file
    # is rebuilt; test_runtime_build.py is what makes a commit rebuild it.
    if (repo / "runtime").is_dir() and (repo / RUNTIME_FILE).parent.is_dir():
        from eco_mem_ops.runtime_build import write

        write(repo / RUNTIME_FILE, repo / "runtime")
    commit_all(repo, f"template {tag}")
    git(repo, "tag", tag)
    return repo


def template_from_history(repo: Path, commit: str) -> None:
    """Replace the template parts in `repo` with this repository's `commit` of them:
    a past release, replayed. Skips the test when the clone lacks that commit."""
    import io
    import tarfile

    import pytest

    present = subprocess.run(
        ["git", "-C", str(PROJECT), "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True
    )
    if present.returncode != 0:
        pytest.skip(f"commit {commit} is not in this clone (shallow?); fetch full history")
    parts = [
        part
        for part in TEMPLATE_PARTS
        if subprocess.run(
            ["git", "-C", str(PROJECT), "cat-file", "-e", f"{commit}:{part}"], capture_output=True
        ).returncode
        == 0
    ]
    archive = subprocess.run(
        ["git", "-C", str(PROJECT), "archive", "--format=tar", commit, *parts],
        capture_output=True,
        check=True,
    ).stdout
    for part in TEMPLATE_PARTS:
        target = repo / part
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(repo)


def copy_template(
    src: Path, dst: Path, vcs_ref: str | None = None, overwrite: bool = False, **data
) -> None:
    copier.run_copy(
        str(src),
        dst,
        data=data,
        defaults=True,
        unsafe=True,
        quiet=True,
        vcs_ref=vcs_ref,
        overwrite=overwrite,
    )


# Python's own warning filters when no -W option or PYTHONWARNINGS sets others: what a
# `copier` process starts with, where pytest's filters record warnings instead.
PYTHON_WARNING_FILTERS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)


@contextlib.contextmanager
def _output_into(out: BinaryIO, err: BinaryIO) -> Iterator[None]:
    """Descriptors 1 and 2, and sys.stdout and sys.stderr over them, written through into
    `out` and `err`: Copier's own lines and its tasks' (child processes inherit the
    descriptors) land in one file per stream, in the order they were written."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    os.dup2(out.fileno(), 1)
    os.dup2(err.fileno(), 2)
    try:
        # Unbuffered at both layers: each write reaches the descriptor at once.
        raw = functools.partial(open, mode="wb", buffering=0, closefd=False)
        text = functools.partial(io.TextIOWrapper, encoding="utf-8", write_through=True)
        with raw(1) as stdout, raw(2) as stderr, contextlib.ExitStack() as redirected:
            redirected.enter_context(contextlib.redirect_stdout(text(stdout)))
            redirected.enter_context(contextlib.redirect_stderr(text(stderr)))
            yield
    finally:
        for fd, kept in zip((1, 2), saved):
            os.dup2(kept, fd)
            os.close(kept)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def copier_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`copier ARGS` in `cwd`, run by Copier's command-line entry point in this process, as
    Copier's own test suite runs it: the `copier` script's parsing, messages, warnings,
    exit status and tasks' output, without a second Python importing Copier (about a
    second of CPU each). A test whose subject is the process itself (its PATH, its
    environment, the bytecode it writes) runs the script."""
    from eco_mem_fleet.render_forks import copier_command_line

    here = os.getcwd()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        with _output_into(out, err), warnings.catch_warnings():
            warnings.resetwarnings()
            for action, category, module in PYTHON_WARNING_FILTERS:
                warnings.filterwarnings(action, category=category, module=module, append=True)
            warnings.showwarning = _show_warning
            os.chdir(cwd)
            try:
                code = copier_command_line(list(args))
            finally:
                os.chdir(here)
        said = []
        for captured in (out, err):
            captured.seek(0)
            said.append(captured.read().decode("utf-8", "replace"))
    return subprocess.CompletedProcess(["copier", *args], code, *said)


def copy_of(render: Path, folder: Path) -> Path:
    """`folder/host`, a copy of the host at `render`, git dir and links included: a render
    is the same bytes at another path (tests/conftest.py makes one per worker)."""
    host = folder / "host"
    shutil.copytree(render, host, symlinks=True)
    return host


def built_once(dst: Path, first: Path, build: Callable[[Path], None]) -> None:
    """`dst`, an empty repository, as `build(dst)` leaves it. The first call builds it and
    keeps a copy at `first`; later calls with the same `first` copy that (git dir
    included): for tests whose subject is what follows the build."""
    if first.exists():
        shutil.rmtree(dst)
        shutil.copytree(first, dst, symlinks=True)
        return
    build(dst)
    shutil.copytree(dst, first, symlinks=True)


def update_project(dst: Path, vcs_ref: str | None = None, **data) -> None:
    copier.run_update(
        dst,
        data=data,
        defaults=True,
        unsafe=True,
        quiet=True,
        overwrite=True,
        answers_file=ANSWERS,
        vcs_ref=vcs_ref,
    )


def run_script(root: Path, *args: str, skill: str = SKILL) -> subprocess.CompletedProcess:
    """Run the rendered eco_mem.pyz as a user would, without a terminal (as in CI): as
    `python eco_mem.pyz ARGS` in ROOT, answered by warm_runtime.py."""
    from tests import warm_runtime

    return warm_runtime.run(str(host_script(root, skill)), list(args), cwd=str(root))


def host_script(root: Path, skill: str = SKILL) -> Path:
    """The runtime a host runs: its eco_mem.pyz, or a release's from before the runtime
    was one file (tests that install an old release first), its eco_mem.py."""
    runtime = root / skill / "scripts" / HOST_RUNTIME
    source = runtime.with_name("eco_mem.py")
    return source if not runtime.exists() and source.exists() else runtime


def runtime_module(root: Path, entry: str, skill: str = SKILL) -> str:
    """The text of `entry` (`ecomem/cli.py`, `__main__.py`) in the host's runtime file."""
    import zipfile

    with zipfile.ZipFile(root / skill / "scripts" / HOST_RUNTIME) as runtime:
        return runtime.read(entry).decode("utf-8")


def change_runtime_module(root: Path, entry: str, text: str, skill: str = SKILL) -> None:
    """Put `text` in place of `entry` (`ecomem/cli.py`, `__main__.py`) in the host's
    runtime file, as a commit that changed the runtime would (tests of what runs a
    branch's bytes)."""
    import io
    import zipfile

    path = root / skill / "scripts" / HOST_RUNTIME
    data = path.read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as old:
        entries = {name: old.read(name) for name in old.namelist()}
    entries[entry] = text.encode("utf-8")
    buffer = io.BytesIO()
    buffer.write(data[: data.index(b"\n") + 1])  # the shebang line
    with zipfile.ZipFile(buffer, "w") as new:
        for name, content in entries.items():
            new.writestr(name, content)
    path.write_bytes(buffer.getvalue())


def run_ops(
    root: Path, *args: str, checkout: Path = PROJECT, env: dict | None = None
) -> subprocess.CompletedProcess:
    """Run an operator command as the docs show it: `python3 -I CHECKOUT/ops.py COMMAND
    --root ROOT ARGS`, from this working tree's checkout unless another is given, in ROOT.
    `experiment plant` takes --root after its action; `experiment score` and --help none."""
    command, *rest = args
    root_option = ["--root", str(root)]
    if command.startswith("-"):
        argv = list(args)
    elif command == "experiment":
        action, *more = rest
        argv = [command, action, *(root_option if action == "plant" else []), *more]
    else:
        argv = [command, *root_option, *rest]
    return subprocess.run(
        [sys.executable, "-I", str(checkout / "ops.py"), *argv],
        cwd=root,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
    )


def work_tree_bytes(root: Path) -> dict[Path, bytes]:
    """Every file outside .git, byte for byte: to prove a command changed nothing."""
    return {
        path: path.read_bytes()
        for path in root.rglob("*")
        if ".git" not in path.parts and path.is_file()
    }


def replace_in(path: Path, old: str, new: str) -> None:
    """Edit a file in place, failing loudly if `old` is not there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not found in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


TRACEBACK_START = "Traceback (most recent call last):"


def assert_no_traceback(result: subprocess.CompletedProcess) -> None:
    """A failing command speaks in one line: no Python traceback reaches the user."""
    output = ""
    for stream in (result.stdout, result.stderr):
        if isinstance(stream, bytes):
            stream = stream.decode("utf-8", "replace")
        output += stream or ""
    # Python starts a traceback at the beginning of a line; the bare phrase can appear
    # elsewhere (a diff of upgrade.py, which looks for it in Copier's output).
    started = [line for line in output.splitlines() if line.startswith(TRACEBACK_START)]
    assert not started, output


def assert_exit(result: subprocess.CompletedProcess, code: int) -> subprocess.CompletedProcess:
    """`result` ended with `code`, and said so without a traceback."""
    assert result.returncode == code, (result.stdout, result.stderr)
    assert_no_traceback(result)
    return result
