"""Shared fixtures: a template repository built from this working tree, and
destination repositories, all real git in temp dirs."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import settings

from tests.helpers import (
    PROJECT,
    commit_all,
    copy_of,
    copy_template,
    git,
    init_repo,
    snapshot_template,
)

# Hypothesis profiles for properties whose every example is a real `copier update`
# (about two seconds each): a few examples on a laptop, more in CI (CI=true, which
# .ci/run sets), within CI's time budget. HYPOTHESIS_PROFILE=thorough asks for many.
# Each property pins its known breakers with @example, run under every profile; CI's 15
# drawn examples made test_update_property the longest single test of the suite (over
# five minutes of one worker on two busy cores), so CI draws 10.
# Cheap properties pin their own max_examples and are not bound to these.
settings.register_profile("dev", max_examples=8)
settings.register_profile("ci", max_examples=10)
settings.register_profile("thorough", max_examples=200)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") == "true" else "dev")
)


# Where the run's temporary files go when the machine has memory to spare: a tmpfs.
# Every test writes real repositories, clones and renders, and on a disk filesystem the
# kernel's journal and discards of those files cost about a fifth of the suite's CPU
# (docs/development.md). A full run holds about 0.4 GiB there at its peak: pyproject.toml
# removes each passing test's folder as it ends.
RAM_TEMP = Path("/dev/shm")
RAM_TEMP_NEEDS = 1 << 30  # bytes free


def use_ram_for_temporary_files() -> None:
    """Point TMPDIR, and with it pytest's base folder, at RAM_TEMP, unless the person
    running the tests set TMPDIR or it lacks room. The workers inherit it."""
    if os.environ.get("TMPDIR") or not RAM_TEMP.is_dir():
        return
    try:
        free = shutil.disk_usage(RAM_TEMP).free
    except OSError:
        return
    if free >= RAM_TEMP_NEEDS and os.access(RAM_TEMP, os.W_OK):
        point_tmpdir_at(str(RAM_TEMP))


def point_tmpdir_at(folder: str | None) -> None:
    """TMPDIR as `folder` (unset for None), for this process and those it starts."""
    if folder is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = folder
    tempfile.tempdir = None  # gettempdir() keeps what it read first (pytest's capture)


@pytest.fixture(scope="session", autouse=True)
def _temporary_files_in_the_run(tmp_path_factory: pytest.TempPathFactory):
    """Every temporary file of this worker and of the processes its tests start (Copier's
    clones, the fleet's logs and checkouts) goes under the run's base folder, which
    pytest removes when every test passes and keeps when one fails."""
    folder = tmp_path_factory.getbasetemp() / "tmp"
    folder.mkdir(exist_ok=True)
    before = os.environ.get("TMPDIR")
    point_tmpdir_at(str(folder))
    yield
    point_tmpdir_at(before)


def pytest_configure(config: pytest.Config) -> None:
    if config.option.basetemp is None:  # an explicit --basetemp says where files go
        use_ram_for_temporary_files()
    config.addinivalue_line(
        "markers",
        "start_early(seconds): the module takes a minute or more on one worker (about"
        " `seconds` in a full run); the workers get it before the short ones, longest first,"
        " so it is not the one still running when they are done",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The order xdist hands modules out in (addopts turns its own reordering off):
    start_early modules first, the longest of them first, then the modules with the most
    tests, as xdist would. Most long modules have few tests (one fixture runs a whole
    fleet), so a count alone hands them out last, to run alone at the end.
    A module stays in one piece: its tests keep their order and stay together."""
    tests_in = Counter(item.nodeid.split("::")[0] for item in items)

    def order(item: pytest.Item) -> tuple:
        early = item.get_closest_marker("start_early")
        seconds = early.kwargs.get("seconds", 60) if early else 0
        return (early is None, -seconds, -tests_in[item.nodeid.split("::")[0]])

    items.sort(key=order)


@pytest.fixture(scope="session")
def template_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This working tree committed into its own repo and tagged v0.0.1."""
    return snapshot_template(tmp_path_factory.mktemp("template"), tag="v0.0.1")


@pytest.fixture
def dst(tmp_path: Path) -> Path:
    """An empty host repository with one commit."""
    return init_repo(tmp_path / "host")


@pytest.fixture(scope="session")
def default_render(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The one default render each worker makes (not committed). Never touched: the
    fixtures below copy it, git dir included, for tests whose subject is what follows
    the install; a copy is the render, byte for byte, at another path."""
    host = init_repo(tmp_path_factory.mktemp("default-render") / "host")
    copy_template(template_repo, host)
    return host


@pytest.fixture(scope="session")
def rendered(default_render: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A default render, shared by tests that only read it."""
    return copy_of(default_render, tmp_path_factory.mktemp("rendered"))


@pytest.fixture(scope="session")
def _committed_render(default_render: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    host = copy_of(default_render, tmp_path_factory.mktemp("committed-render"))
    commit_all(host, "install eco-mem")
    return host


@pytest.fixture(scope="module")
def pristine(_committed_render: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A default render, committed. Tests never touch it; they get `host`, a copy.
    Each module gets its own copy of one render per worker (git dir included), not a
    render of its own: some forty modules start from it, and their subject is what
    follows the install."""
    host = copy_of(_committed_render, tmp_path_factory.mktemp("pristine"))
    # The copies' inodes and times are new: refresh the index as the install's commit
    # left it, so the first `git status` in a test does not rewrite .git/index.
    git(host, "update-index", "-q", "--refresh")
    return host


@pytest.fixture
def host(pristine: Path, tmp_path: Path) -> Path:
    """A fresh copy of `pristine` (a module may override `pristine` to add files)."""
    return copy_of(pristine, tmp_path)


@pytest.fixture
def fresh_render(default_render: Path, tmp_path: Path) -> Path:
    """`tmp_path/host` as `copy_template(template_repo, init_repo(tmp_path / "host"))`
    leaves it (a default render, not committed), copied from one such render, git dir
    included: for tests whose subject is what comes after the copy, not the copy."""
    return copy_of(default_render, tmp_path)


@pytest.fixture(scope="session")
def ecomem(rendered: Path):
    """The runtime's `ecomem` package from runtime/ source (the file a host gets is built
    from it), importable for unit tests of its rules; answers from a default render."""
    scripts = str(PROJECT / "runtime")
    sys.path.insert(0, scripts)
    sys.dont_write_bytecode = True
    import ecomem
    from ecomem.store.answers import settle

    settle(rendered)  # as every command does first
    yield ecomem
    sys.path.remove(scripts)


__all__ = ["git"]
