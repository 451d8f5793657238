"""The fleet's render process (eco_mem_fleet/render_forks.py): real Copier, forked per
render, on a small template whose Jinja extension writes down what its render saw:
the environment (os.environ and plumbum's copy, which Copier's git calls use), the
folder it ran in, and whether an earlier render had already imported it."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from eco_mem_fleet import render_forks
from eco_mem_fleet.clean_env import clean_environment
from tests.helpers import commit_all, init_repo

EXTENSION = """\
import json, os, sys
from jinja2.ext import Extension
from plumbum import local

SEEN = {
    "environ": sorted(os.environ),
    "plumbum": sorted(dict(local.env)),
    "home": os.environ.get("HOME"),
    "cwd": os.getcwd(),
    "imported_before": "seen_marker" in sys.modules,
}
sys.modules["seen_marker"] = sys  # what a later render in the same process would find


class Seen(Extension):
    def __init__(self, environment):
        super().__init__(environment)
        environment.globals["seen"] = json.dumps(SEEN)
"""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = init_repo(tmp_path_factory.mktemp("render-forks") / "template")
    (repo / "copier.yml").write_text(
        "_jinja_extensions: [copier_template_extensions.TemplateExtensionLoader, ext.py:Seen]\n"
        "_templates_suffix: .jinja\n"
        "_subdirectory: template\nname:\n  type: str\n  default: x\n",
        encoding="utf-8",
    )
    (repo / "ext.py").write_text(EXTENSION, encoding="utf-8")
    (repo / "template").mkdir()
    (repo / "template" / "seen.json.jinja").write_text("{{ seen }}\n", encoding="utf-8")
    commit_all(repo, "template")
    return repo


@pytest.fixture(scope="module")
def renderer(tmp_path_factory: pytest.TempPathFactory):
    home = tmp_path_factory.mktemp("render-home")
    env = {**clean_environment(str(home)), "ONLY_THE_SERVER_HAS_THIS": "1"}
    with render_forks.started(env) as address:
        yield address


def render_into(
    renderer: str | None, template: Path, folder: Path, env: dict[str, str], timeout: float = 120
):
    folder.mkdir()
    before = os.getcwd()
    os.chdir(folder)
    try:
        argv = ["copy", "--trust", "--defaults", "--quiet", str(template), str(folder)]
        return render_forks.render(renderer, argv, env, timeout)
    finally:
        os.chdir(before)


def small_template(folder: Path, copier_yml: str, **files: str) -> Path:
    """A committed template repository at `folder`: copier.yml and `files` by name."""
    repo = init_repo(folder)
    (repo / "copier.yml").write_text(copier_yml, encoding="utf-8")
    for name, text in files.items():
        (repo / name).write_text(text, encoding="utf-8")
    commit_all(repo, "template")
    return repo


def task_template(folder: Path, task: str) -> Path:
    return small_template(folder, f'_tasks: ["{task}"]\n')


def test_each_render_sees_its_own_environment_and_folder_and_none_of_an_earlier_one(
    renderer: str, template: Path, tmp_path: Path
) -> None:
    seen = []
    for name in ("first", "second"):
        home = tmp_path / f"home-{name}"
        home.mkdir()
        env = {**clean_environment(str(home)), f"ONLY_{name.upper()}": "1"}
        code, stderr = render_into(renderer, template, tmp_path / name, env)
        assert code == 0, stderr
        seen.append(json.loads((tmp_path / name / "seen.json").read_text(encoding="utf-8")))
    for name, saw in zip(("first", "second"), seen):
        own = f"ONLY_{name.upper()}"
        # The request's environment, in os.environ and in plumbum's copy alike.
        assert own in saw["environ"] and own in saw["plumbum"]
        assert "ONLY_THE_SERVER_HAS_THIS" not in saw["environ"] + saw["plumbum"]
        assert saw["home"] == str(tmp_path / f"home-{name}")
        assert saw["imported_before"] is False  # the first render's import ended with it
    assert "ONLY_FIRST" not in seen[1]["environ"] + seen[1]["plumbum"]
    assert seen[0]["cwd"] == str(tmp_path / "first") and seen[1]["cwd"] == str(tmp_path / "second")


def test_a_failing_render_gives_copier_s_status_and_its_one_line(
    renderer: str, tmp_path: Path
) -> None:
    newer = small_template(tmp_path / "newer", '_min_copier_version: "99.0.0"\n')
    env = clean_environment(str(tmp_path))
    code, stderr = render_into(renderer, newer, tmp_path / "dst", env)
    assert code == 1
    assert "99.0.0" in stderr.strip().splitlines()[-1], stderr  # the line a row carries
    assert "Traceback" not in stderr


def test_where_no_render_process_can_start_each_render_is_a_process_of_its_own(
    template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A socket's path has room for about 100 bytes: under a deeper temporary folder the
    # process cannot listen, and the run renders as it did before there was one.
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    monkeypatch.setattr("tempfile.tempdir", str(deep))
    env = clean_environment(str(tmp_path))
    with render_forks.started(env) as address:
        assert address is None
        code, stderr = render_into(address, template, tmp_path / "alone", env)
    assert code == 0, stderr
    assert json.loads((tmp_path / "alone" / "seen.json").read_text(encoding="utf-8"))[
        "home"
    ] == str(tmp_path)
    assert os.listdir(deep) == []


@pytest.mark.parametrize("workers", [0, 2], ids=["alone", "with-j-2-workers"])
def test_the_render_process_ends_when_the_fleet_does(tmp_path: Path, workers: int) -> None:
    # A fleet killed outright runs no cleanup. all-repos' -j workers, forked after the
    # process started, hold its stdin's other end and can outlive the fleet: the process
    # also watches for a new parent.
    fleet = subprocess.Popen(
        [sys.executable, "-c", KILLED_FLEET, str(tmp_path), str(workers)],
        stdout=subprocess.PIPE,
        text=True,
    )
    # Line by line: the workers hold the pipe open after the fleet is gone.
    address = fleet.stdout.readline().strip()
    pids = fleet.stdout.readline().split() if workers else []
    try:
        assert fleet.wait() == -signal.SIGKILL and len(pids) == workers
        for _ in range(200):  # until its listener is gone; a live one takes the connection
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
                if probe.connect_ex(address) != 0:
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the render process outlived the fleet")
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
        shutil.rmtree(Path(address).parent, ignore_errors=True)  # no cleanup ran


# Starts the render process, then (like all-repos' -j) a pool of workers, prints the
# address and the workers' pids, and is killed.
KILLED_FLEET = """
import multiprocessing, os, signal, sys
from concurrent.futures import ProcessPoolExecutor
from eco_mem_fleet import render_forks
from eco_mem_fleet.clean_env import clean_environment

with render_forks.started(clean_environment(sys.argv[1])) as address:
    print(address)
    if int(sys.argv[2]):
        pool = ProcessPoolExecutor(int(sys.argv[2]))
        pool.submit(int).result()
        print(*(child.pid for child in multiprocessing.active_children()))
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_the_clean_environment_keeps_locale_categories_and_no_other_lc_name(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("LC_TIME", "C")
    monkeypatch.setenv("LC_DEPLOY_TOKEN", "ghp_not_for_renders")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not_for_renders")
    kept = clean_environment(str(tmp_path))
    assert kept["LC_ALL"] == "C.UTF-8" and kept["LC_TIME"] == "C"
    assert "ghp_not_for_renders" not in kept.values()
    assert kept["HOME"] == str(tmp_path)


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "alone"])
def test_a_render_past_its_timeout_is_stopped_with_everything_it_started(
    renderer: str, tmp_path: Path, forked: bool
) -> None:
    slow = task_template(tmp_path / "slow", "touch started && sleep 8 && touch late")
    env = clean_environment(str(tmp_path))
    code, said = render_into(renderer if forked else None, slow, tmp_path / "dst", env, 5)
    assert code == render_forks.TIMED_OUT and "timed out" in said, said
    assert (tmp_path / "dst" / "started").exists(), "the task never ran: nothing was stopped"
    time.sleep(5)  # past when the task would have finished, had the timeout spared it
    assert not (tmp_path / "dst" / "late").exists()


DODGER = """\
import signal, time
from jinja2.ext import Extension

signal.alarm(0)  # the render's own code cannot call its timer off
time.sleep(20)


class Dodger(Extension):
    pass
"""


def test_a_render_cannot_call_off_its_timeout(renderer: str, tmp_path: Path) -> None:
    loader = "copier_template_extensions.TemplateExtensionLoader"
    dodger = small_template(
        tmp_path / "dodger", f"_jinja_extensions: [{loader}, ext.py:Dodger]\n", **{"ext.py": DODGER}
    )
    env = clean_environment(str(tmp_path))
    code, said = render_into(renderer, dodger, tmp_path / "dst", env, timeout=3)
    assert code == render_forks.TIMED_OUT, said


@pytest.mark.parametrize("forked", [True, False], ids=["forked", "alone"])
def test_what_a_finished_render_left_running_is_stopped(
    renderer: str, tmp_path: Path, forked: bool
) -> None:
    task = "(sleep 3 && touch late) > /dev/null 2>&1 &"
    lingering = task_template(tmp_path / "lingering", task)
    env = clean_environment(str(tmp_path))
    code, said = render_into(renderer if forked else None, lingering, tmp_path / "dst", env)
    assert code == 0, said
    time.sleep(4)  # past when the background work would have written its file
    assert not (tmp_path / "dst" / "late").exists()
