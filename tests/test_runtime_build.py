"""The runtime file a host holds: one reproducible build of runtime/, run from a cache.

eco_mem_ops/runtime_build.py builds it; runtime/__main__.py is its entry, which unpacks
the archive once per sha256 into the user's cache and runs from there.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

from eco_mem_ops import runtime_build
from tests.helpers import (
    HOST_RUNTIME,
    PROJECT,
    SKILL,
    build_files,
    change_runtime_module,
    commit_all,
    git,
    run_script,
    runtime_module,
)
from tests.memory_helpers import fact, mem


def test_the_committed_runtime_file_is_a_build_of_its_source() -> None:
    # A change to runtime/ must come with the rebuilt file: hosts get the file, not the source.
    assert runtime_build.stale() == "", "rebuild it: python3 ops.py build-runtime, then commit"


def test_the_build_depends_on_the_source_alone(tmp_path: Path) -> None:
    """Same source, same bytes: file times, modes, walk order and what tools leave beside
    the modules (caches, bytecode, CRLF checkouts) change nothing."""
    source = tmp_path / "runtime"
    shutil.copytree(runtime_build.SOURCE, source, ignore=shutil.ignore_patterns("__pycache__"))
    expected = runtime_build.build()
    for path in source.rglob("*.py"):
        os.utime(path, (1, 1))
        path.chmod(0o600)
    (source / "ecomem" / "__pycache__").mkdir()
    (source / "ecomem" / "__pycache__" / "cli.cpython-311.pyc").write_bytes(b"\0")
    (source / ".ruff_cache").mkdir()
    (source / ".ruff_cache" / "CACHEDIR.TAG").write_text("x")
    errors = source / "ecomem" / "errors.py"
    errors.write_bytes(errors.read_bytes().replace(b"\n", b"\r\n"))
    assert runtime_build.build(source) == expected
    names = zipfile.ZipFile(runtime_build.ARTIFACT).namelist()
    assert names == sorted(names) and all(name.endswith(".py") for name in names)
    assert runtime_build.ARTIFACT.read_bytes().startswith(b"#!/usr/bin/env python3\n")


def test_a_stale_runtime_file_is_named_with_the_command_that_rebuilds_it(tmp_path: Path) -> None:
    source = tmp_path / "runtime"
    shutil.copytree(runtime_build.SOURCE, source, ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "eco_mem.pyz"
    runtime_build.write(target, source)
    assert runtime_build.stale(target, source) == ""
    with (source / "ecomem" / "errors.py").open("a") as module:
        module.write("# changed\n")
    assert "python3 ops.py build-runtime" in runtime_build.stale(target, source)


def test_ops_check_exits_1_on_a_stale_file_and_prints_the_hash_when_current() -> None:
    ops = [sys.executable, "-I", str(PROJECT / "ops.py"), "build-runtime", "--check"]
    done = subprocess.run(ops, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == hashlib.sha256(runtime_build.ARTIFACT.read_bytes()).hexdigest()


def test_the_host_records_the_runtime_file_hash_in_sha256sum_format(rendered: Path) -> None:
    scripts = rendered / SKILL / "scripts"
    record = (scripts / f"{HOST_RUNTIME}.sha256").read_text()
    digest = hashlib.sha256((scripts / HOST_RUNTIME).read_bytes()).hexdigest()
    assert record == f"{digest}  {HOST_RUNTIME}\n"
    if shutil.which("sha256sum"):
        check = subprocess.run(["sha256sum", "-c", f"{HOST_RUNTIME}.sha256"], cwd=scripts)
        assert check.returncode == 0


def test_a_render_holds_no_python_file_of_ours(rendered: Path) -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=rendered, capture_output=True, text=True, check=True
    )
    assert tracked.stdout == ""
    assert not list((rendered / SKILL).rglob("*.py"))


def test_memory_commands_run_from_the_file_in_a_fresh_clone(host: Path, tmp_path: Path) -> None:
    """No install, no network: the clone's file and the standard library."""
    assert fact(host, "The build runs offline").returncode == 0
    commit_all(host, "a fact")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(host), str(clone))
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    found = mem(clone, "find", "offline", env=env)
    assert found.returncode == 0 and "build-runs-offline" in found.stdout, found.stderr
    assert mem(clone, "verify", env=env).returncode == 0
    assert not list(clone.rglob("__pycache__"))


def test_the_runtime_unpacks_once_per_hash_and_keeps_its_bytecode_there(
    rendered: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    env = {"XDG_CACHE_HOME": str(cache)}
    assert mem(rendered, "verify", env=env).returncode == 0
    digest = hashlib.sha256((rendered / SKILL / "scripts" / HOST_RUNTIME).read_bytes()).hexdigest()
    home = cache / "eco-mem" / "runtime"
    assert [path.name for path in home.iterdir()] == [digest]  # no temp folder left
    compiled = list((home / digest).rglob("*.pyc"))
    assert compiled
    before = {path: path.stat().st_mtime_ns for path in compiled}
    assert mem(rendered, "verify", env=env).returncode == 0
    assert {path: path.stat().st_mtime_ns for path in compiled} == before  # reused


def test_a_cache_that_cannot_be_written_still_runs_from_the_archive(
    rendered: Path, tmp_path: Path
) -> None:
    blocked = tmp_path / "cache"
    blocked.write_text("a file where the cache folder would go")
    env = {"XDG_CACHE_HOME": str(blocked)}
    assert mem(rendered, "verify", env=env).returncode == 0
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        done = mem(rendered, "find", "anything", env={"XDG_CACHE_HOME": str(readonly)})
        assert done.returncode in (0, 1), done.stderr
        assert "Traceback" not in done.stderr
    finally:
        readonly.chmod(stat.S_IRWXU)


def test_verify_names_a_runtime_file_that_is_not_its_releases(host: Path) -> None:
    """Any change to the bytes, in whatever module: the hash covers the whole file."""
    assert run_script(host, "verify").returncode == 0
    patched = runtime_module(host, "ecomem/errors.py") + "# a local patch\n"
    change_runtime_module(host, "ecomem/errors.py", patched)
    verify = run_script(host, "verify")
    assert verify.returncode == 1, verify.stdout + verify.stderr
    assert f"{SKILL}/scripts/{HOST_RUNTIME}: error [runtime.hash]" in verify.stdout


def test_verify_names_python_source_in_the_skill_folder(host: Path) -> None:
    """The old source tree left behind, or a module a branch added beside the runtime."""
    build_files(host, {f"{SKILL}/scripts/ecomem/cli.py": "print('old')\n"})
    verify = run_script(host, "verify")
    assert verify.returncode == 1, verify.stdout + verify.stderr
    assert f"{SKILL}/scripts/ecomem/cli.py: error [runtime.source]" in verify.stdout
