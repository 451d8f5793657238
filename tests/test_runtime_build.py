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
import time
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
    archive = rendered / SKILL / "scripts" / HOST_RUNTIME
    # The `.seen-` record is written only for a file changed two seconds ago or more
    # (_eco_mem_unpack._record_seen): a render younger than that, as when this test
    # runs first on an idle machine, is waited out rather than left to the order.
    young = 2.05 - (time.time_ns() - archive.stat().st_ctime_ns) / 1e9
    time.sleep(max(0.0, young))
    assert mem(rendered, "verify", env=env).returncode == 0
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    home = cache / "eco-mem" / "runtime"
    # The tree, and the record of the file it came from: no temporary folder left.
    record, tree = sorted(home.iterdir())
    assert record.name.startswith(".seen-") and tree.name == digest
    assert record.read_text().split()[-1] == digest
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


# The cache is trusted only as the entry left it. A planted tree prints this when it runs;
# in `ecomem/__init__.py`, the first module every command imports.
PLANTED = "import sys\nsys.stderr.write('PLANTED CODE RAN\\n')\n"


def _release_digest(host: Path) -> str:
    return hashlib.sha256((host / SKILL / "scripts" / HOST_RUNTIME).read_bytes()).hexdigest()


def _planted_tree(folder: Path, host: Path) -> Path:
    """The release's modules unpacked into `folder`, with PLANTED in its `ecomem`."""
    with zipfile.ZipFile(host / SKILL / "scripts" / HOST_RUNTIME) as runtime:
        runtime.extractall(folder)
    init = folder / "ecomem" / "__init__.py"
    init.write_text(init.read_text() + PLANTED)
    return folder


def _cache_env(tmp_path: Path, cache: Path | str) -> dict:
    # HOME too: a cache home the entry ignores must not send it to the real ~/.cache.
    return {"XDG_CACHE_HOME": str(cache), "HOME": str(tmp_path / "home")}


def test_a_relative_cache_home_is_ignored_so_a_committed_tree_never_runs(
    host: Path, tmp_path: Path
) -> None:
    """The XDG spec says to ignore a relative XDG_CACHE_HOME; taken as is, it is a folder
    of the work tree, and a commit could hold the tree that runs."""
    committed = host / "rel" / "eco-mem" / "runtime" / _release_digest(host)
    _planted_tree(committed, host)
    commit_all(host, "a tree where a relative cache home would lead")
    done = mem(host, "find", "anything", env=_cache_env(tmp_path, "rel"))
    assert done.returncode in (0, 1) and "PLANTED" not in done.stderr, done.stderr
    assert (tmp_path / "home" / ".cache" / "eco-mem" / "runtime").is_dir()  # used instead


def test_a_file_changed_in_the_cache_is_never_run(rendered: Path, tmp_path: Path) -> None:
    """What one run's code writes into the release's unpacked tree (a module changed, its
    mode and times put back) does not run in later runs: the tree is unpacked anew."""
    env = _cache_env(tmp_path, tmp_path / "cache")
    assert mem(rendered, "find", "anything", env=env).returncode in (0, 1)
    tree = tmp_path / "cache" / "eco-mem" / "runtime" / _release_digest(rendered)
    init = tree / "ecomem" / "__init__.py"
    before = init.stat()
    init.chmod(0o600)
    init.write_text(init.read_text() + PLANTED)
    init.chmod(stat.S_IMODE(before.st_mode))
    os.utime(init, ns=(before.st_atime_ns, before.st_mtime_ns))
    done = mem(rendered, "find", "anything", env=env)
    assert done.returncode in (0, 1) and "PLANTED" not in done.stderr, done.stderr
    assert "PLANTED" not in init.read_text()  # the genuine module is back
    added = tree / "ecomem" / "__pycache__" / "extra.pyc"  # a file added, nothing changed
    tree.joinpath("ecomem", "__pycache__").chmod(0o700)
    added.write_bytes(b"")
    tree.joinpath("ecomem", "__pycache__").chmod(0o500)
    assert mem(rendered, "find", "anything", env=env).returncode in (0, 1)
    assert not added.exists()


def test_no_module_outside_the_release_runs_in_its_place(rendered: Path, tmp_path: Path) -> None:
    """A folder a repository fills can stand on sys.path (PYTHONPATH, the current folder
    through an empty PYTHONPATH entry, an editable install's `.pth`) and hold modules named
    like the runtime's own or like standard ones. The runtime imports only the standard
    library and its own file: none of them runs, neither on a first call (the unpacking)
    nor a later one, nor in `resolve`'s handover (security review of the cache record)."""
    elsewhere = tmp_path / "elsewhere"
    for name in ("_eco_mem_resolve.py", "_eco_mem_unpack.py", "ecomem/__init__.py"):
        build_files(elsewhere, {name: PLANTED})
    build_files(elsewhere, {"tempfile.py": PLANTED, "zipfile.py": PLANTED})
    env = {**_cache_env(tmp_path, tmp_path / "cache"), "PYTHONPATH": f"{elsewhere}{os.pathsep}"}
    for args in (("find", "anything"), ("find", "anything"), ("verify",), ("resolve",)):
        done = mem(rendered, *args, env=env)
        assert "PLANTED" not in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr, (args, done.stderr)
    build_files(rendered, {"_eco_mem_resolve.py": PLANTED, "_eco_mem_unpack.py": PLANTED})
    done = mem(rendered, "resolve", env={**env, "PYTHONPATH": os.pathsep})  # "" = the cwd
    assert "PLANTED" not in done.stderr, done.stderr


def test_a_linked_or_shared_cache_folder_is_not_followed(rendered: Path, tmp_path: Path) -> None:
    """A link anywhere from the cache's `eco-mem` down, or a folder others may write,
    is never run from; the archive runs instead, and the link is left as it was."""
    planted = _planted_tree(tmp_path / "elsewhere", rendered)
    runtime = tmp_path / "cache" / "eco-mem" / "runtime"
    runtime.mkdir(parents=True)
    (runtime / _release_digest(rendered)).symlink_to(planted)
    env = _cache_env(tmp_path, tmp_path / "cache")
    done = mem(rendered, "find", "anything", env=env)
    assert done.returncode in (0, 1) and "PLANTED" not in done.stderr, done.stderr
    assert (runtime / _release_digest(rendered)).is_symlink()
    linked_home = tmp_path / "linked"
    linked_home.mkdir()
    (linked_home / "eco-mem").symlink_to(runtime.parent, target_is_directory=True)
    done = mem(rendered, "find", "anything", env=_cache_env(tmp_path, linked_home))
    assert "PLANTED" not in done.stderr, done.stderr
    (runtime / _release_digest(rendered)).unlink()
    shutil.copytree(planted, runtime / _release_digest(rendered))
    (runtime / _release_digest(rendered)).chmod(0o777)  # a folder anyone could have filled
    done = mem(rendered, "find", "anything", env=env)
    assert "PLANTED" not in done.stderr, done.stderr


def test_track_copies_the_git_dir_modules_from_the_archive_not_the_cache(
    host: Path, tmp_path: Path
) -> None:
    """Even a cache tree planted whole and consistent (code that ran as the user can
    build one: SECURITY.md's limit) never reaches the copy the hook and merge driver run."""
    env = _cache_env(tmp_path, tmp_path / "cache")
    other = tmp_path / "other"
    shutil.copytree(host, other, symlinks=True)
    module = "ecomem/commands/context.py"
    change_runtime_module(other, module, runtime_module(other, module) + "# PLANTED\n")
    assert mem(other, "find", "anything", env=env).returncode in (0, 1)
    runtime = tmp_path / "cache" / "eco-mem" / "runtime"
    genuine = runtime / _release_digest(host)
    if genuine.exists():
        shutil.rmtree(genuine)
    (runtime / _release_digest(other)).rename(genuine)  # frozen, and under the release's name
    done = mem(host, "track", env=env)
    assert done.returncode == 0, done.stderr
    copies = list((host / ".git" / "eco-mem").glob("merge-driver-*"))
    assert len(copies) == 1
    assert (copies[0] / module).read_text() == runtime_module(host, module)


def test_a_missing_or_garbled_runtime_record_is_an_error(host: Path) -> None:
    """Else a branch that changes the runtime file and deletes its record passes verify."""
    record = host / SKILL / "scripts" / f"{HOST_RUNTIME}.sha256"
    for text in (None, "not-a-hash\n", f"{'0' * 63}  {HOST_RUNTIME}\n", ""):
        if text is None:
            record.unlink()
        else:
            record.write_text(text)
        verify = run_script(host, "verify")
        assert verify.returncode == 1, verify.stdout + verify.stderr
        assert f"{SKILL}/scripts/{HOST_RUNTIME}: error [runtime.hash]" in verify.stdout
