"""The fleet's own copy of eco-mem's scripts, and the checks before it acts on a repository.

A repository's `<skill>/eco-mem/scripts/` is data a commit can change; the
fleet runs with the organisation's token in its environment, so it never
executes that copy, never imports from it and never builds a path to run
from it. Instead it checks out the release the run pinned (its commit, from
the snapshot of release tags fetched once for the run, releases.py) into a
temporary folder (`git archive`), once per run, and runs from there: the operator's `ops.py`
(blocks, track, upgrade) and the runtime's `eco_mem.pyz` (verify, review), both
under `python -I` with `--root` pointing at the clone. The runtime reads the
repository's answers itself (`store.answers.settle`), so one checkout serves every
repository. Checkouts and scripts run in processes of their own with the clean
environment of clean_env.py: the token stays behind.

Before anything runs, `refusal` turns down a repository whose answers name
another template than the fleet's, a path that leaves the repository or
enters `.git`, a ref that would read as an option, or a value the template
computes (`skill_dir`, `verify_command`, ...): Copier takes such a value as
given when it arrives as data, so only the questions in QUESTIONS ever reach
a render or the runtime.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from eco_mem_fleet import render_forks
from eco_mem_fleet.clean_env import clean_environment
from eco_mem_fleet.releases import Releases, pinned_releases
from eco_mem_fleet.versions import ANSWERS_FILE, DEFAULT_SKILL_PATH
from eco_mem_ops.runtime import use_release_runtime

DEFAULT_MEMORY_PATH = ".agents/memory"
SHORTCUTS = {"gh:": "https://github.com/", "gl:": "https://gitlab.com/"}
# The template's own path rule and its list of questions (tests/test_fleet_answers.py
# holds it to copier.yml), from the operator's reader of answers beside this package:
# the fleet refuses what Copier and the operator would, and passes back only answers
# to those questions. use_release_runtime puts this checkout's runtime on sys.path.
use_release_runtime()
from ecomem.path_rule import is_git_dir, path_rule_problem  # noqa: E402

from eco_mem_ops.install.answers import QUESTIONS  # noqa: E402

# Tags, branch names and commit hashes; never anything git could read as an option.
SAFE_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+/-]*")


def same_source(recorded: object, configured: str) -> bool:
    """Whether an answers file's `_src_path` names the fleet's template (gh:/gl: expanded,
    a local path compared by where it leads)."""
    if not isinstance(recorded, str) or not recorded or recorded.startswith("-"):
        return False

    def where(source: str) -> str:
        for short, long in SHORTCUTS.items():
            if source.startswith(short):
                return long + source[len(short) :]
        if os.path.isabs(source):
            return os.path.realpath(source)
        return source

    return where(recorded) == where(configured)


def leaves(repo: Path, value: object) -> bool:
    """True when an answered folder is not a plain relative path that stays in `repo`."""
    if not isinstance(value, str) or not value or os.path.isabs(value):
        return True
    if ".." in Path(value).parts or value.startswith("~"):
        return True
    top = os.path.realpath(repo)
    real = os.path.realpath(os.path.join(top, value))
    return real != top and not real.startswith(top + os.sep)


def in_git_dir(repo: Path, value: str) -> bool:
    """True when a folder answer, as written or with its links resolved (`lnk -> .git`
    committed in the repository), has a part a file system reads as `.git`."""
    top = os.path.realpath(repo)
    real = os.path.relpath(os.path.realpath(os.path.join(top, value)), top)
    return any(map(is_git_dir, (*Path(value).parts, *Path(real).parts)))


def refusal(repo: Path, answers: dict, template: str) -> str:
    """Why the fleet will not act on this repository ("refused: ..."), or ""."""
    if (repo / ANSWERS_FILE).is_symlink():
        return f"refused: {ANSWERS_FILE} is a symbolic link"
    source = answers.get("_src_path")
    if not same_source(source, template):
        return f"refused: its answers name template {source!r}, not the fleet's {template}"
    defaults = {"skill_path": DEFAULT_SKILL_PATH, "memory_path": DEFAULT_MEMORY_PATH}
    for key, default in defaults.items():
        value = answers.get(key, default)
        if leaves(repo, value):
            return f"refused: {key} {value!r} leaves the repository"
        if in_git_dir(repo, value):
            # In any letter case: on macOS and Windows `.GIT` is the same folder.
            return f"refused: {key} {value!r} is inside .git"
        # The template's own rule (ecomem/path_rule.py): a plain name per part, so no
        # `$()`, `;` or newline reaches the AGENTS.md commands or the hooks it pushes.
        why = path_rule_problem(value)
        if why:
            return f"refused: {key} {value!a}: {why}"
    computed = [key for key in answers if not str(key).startswith("_") and key not in QUESTIONS]
    if computed:
        return (
            f"refused: its answers file sets {computed[0]!r}, which is no question of the"
            " template (the template computes it); remove that line"
        )
    commit = answers.get("_commit")
    if commit is not None and not SAFE_REF.fullmatch(str(commit)):
        return f"refused: _commit {str(commit)!r} is not a ref"
    return ""


def unreleased(answers: dict, releases: Releases) -> str:
    """Why an upgrade will not start from this repository's `_commit`, or "".

    `copier update` renders the installed version first, imports included: only a
    commit a release tag points to may be that version."""
    commit = answers.get("_commit")
    if releases.named(commit):
        return ""
    return (
        f"refused: _commit {str(commit)!r} names no release of the template, and only"
        " releases are rendered; nothing of it was fetched (an install from an untagged"
        " commit: `ops.py upgrade` in a clone names the command that moves it)"
    )


def render_release(
    releases: Releases,
    tag: str,
    destination: str,
    data: dict,
    env: dict[str, str],
    renderer: str | None,
) -> None:
    """`copier copy` of one release (its commit, from the snapshot) into `destination`,
    tasks skipped, with `env`: a fork of the run's render process at `renderer`, or a
    process of its own for None (render_forks.py). RuntimeError with Copier's last line
    when it fails."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as answers:
        json.dump(data, answers)  # JSON is YAML: every answer keeps its type
    command = [
        *("copy", "--trust", "--defaults", "--skip-tasks", "--quiet"),
        *("--vcs-ref", releases.commit(tag), "--data-file", answers.name),
        *("--", releases.folder, destination),
    ]
    try:
        code, stderr = render_forks.render(renderer, command, env, TIMEOUT)
    finally:
        os.unlink(answers.name)
    if code != 0:
        last = (stderr.strip().splitlines() or [f"exit {code}"])[-1]
        raise RuntimeError(f"copier copy of {tag}: {last}")


# Folders of a release the fleet never runs, and most of its files: unpacking them took
# each repository's install and upgrade 0.19 to 0.23 s of CPU rather than 0.07 to 0.08.
NOT_RUN = ("tests", "benchmarks", "docs")


def checkout_release(releases: Releases, tag: str, destination: str, env: dict[str, str]) -> None:
    """The release's commit, from the snapshot, as files in `destination`, but NOT_RUN:
    `git archive` only reads the snapshot, so parallel jobs never contend for it.
    RuntimeError with git's last line."""
    command = ["git", "-C", releases.folder, "archive", "--format=tar", releases.commit(tag)]
    command += ["--", ".", *(f":(exclude){folder}" for folder in NOT_RUN)]
    done = subprocess.run(command, capture_output=True, env=env, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"checkout of {tag}: {(said or [f'exit {done.returncode}'])[-1]}")
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as archive:
        # The "data" filter (Python 3.12, and security releases of 3.9 on) refuses
        # members that leave the folder; git archive of a commit makes none anyway.
        if hasattr(tarfile, "data_filter"):
            archive.extractall(destination, filter="data")
        else:
            archive.extractall(destination)


RUNTIME = Path("template", "{{skill_path}}", "eco-mem", "scripts", "eco_mem.pyz")
# What the fleet runs from a release's checkout (OwnScripts.operator and .runtime).
# Releases before the fleet existed lack ops.py: every install would render, then fail.
FLEET_NEEDS = ("ops.py", RUNTIME.as_posix())


def unrunnable(releases: Releases, tag: str, template: str) -> str:
    """One line refusing `tag` when its tree lacks what the fleet runs from it, else ""."""
    missing = releases.missing(tag, FLEET_NEEDS)
    if not missing:
        return ""
    return (
        f"{tag} of {template} cannot be run by this fleet: it has no {', '.join(missing)}"
        " (a release from before the fleet); choose a newer release with --vcs-ref, or"
        " fetch the template's newer tags (docs/fleet.md#where-release-tags-come-from)"
    )


@contextlib.contextmanager
def fleet_release(
    program: str, template: str, wanted: str | None
) -> Iterator[tuple[Releases, str] | None]:
    """releases.pinned_releases, refusing up front, in one line on stderr, a release the
    fleet cannot run: before any clone is touched or anything rendered."""
    with pinned_releases(program, template, wanted) as pinned:
        if pinned is not None:
            problem = unrunnable(*pinned, template)
            if problem:
                print(f"{program}: {problem}", file=sys.stderr)
                pinned = None
        yield pinned


class OwnScripts:
    """One checkout of one release of the fleet's template, in `folder`, made on first use."""

    def __init__(self, releases: Releases, tag: str, folder: str) -> None:
        self.releases, self.tag, self.folder = releases, tag, Path(folder)
        self._lock = threading.Lock()  # one checkout, however many threads ask
        self._checkout: Path | None = None
        self._unpacked = False
        home = self.folder / "home"
        home.mkdir(exist_ok=True)
        self.env = clean_environment(str(home))

    def checkout(self) -> Path:
        with self._lock:
            if self._checkout is None:
                where = self.folder / "release"
                checkout_release(self.releases, self.tag, str(where), self.env)
                self._checkout = where
            return self._checkout

    def runtime(self, timeout: float | None = None) -> Path:
        """This release's `eco_mem.pyz` (verify, review): check `refusal` first. A
        release from before the runtime was one file runs its `eco_mem.py`.

        The first call runs the file once (`--help`), alone, so that it unpacks and
        compiles itself into this checkout's HOME before `status`'s threads call it:
        each of them would otherwise find no tree there yet and build one of its own
        (eight at once on the default -j, about 0.2 CPU-s each). That run gets the
        commands' `timeout` too (TIMEOUT by default)."""
        runtime = self.checkout() / RUNTIME
        if not runtime.is_file():
            return runtime.with_suffix(".py")
        with self._lock:
            if not self._unpacked:
                # A run that fails here only leaves the unpacking to the commands.
                with contextlib.suppress(OSError):
                    self.run(runtime, "--help", root=str(self.folder), timeout=timeout)
                self._unpacked = True
        return runtime

    def operator(self) -> Path:
        """This release's `ops.py` (blocks, track, upgrade): check `refusal` first."""
        return self.checkout() / "ops.py"

    def run(
        self, script: Path, command: str, *args: str, root: str, timeout: float | None = None
    ) -> subprocess.CompletedProcess:
        """run_own with this checkout's clean environment."""
        return run_own(script, command, *args, root=root, env=self.env, timeout=timeout)


# Seconds one command of the fleet's scripts may run in one repository. The commands read
# that repository's memory, which its commits choose: past this the command is stopped,
# the repository fails with TIMED_OUT, and the run goes on to the next one.
TIMEOUT = 600.0
TIMED_OUT = render_forks.TIMED_OUT  # the exit status `timeout` gives a command it stopped


def run_own(
    script: Path,
    command: str,
    *args: str,
    root: str,
    env: dict[str, str],
    timeout: float | None = None,
) -> subprocess.CompletedProcess:
    """`python -I OWN/eco_mem.pyz COMMAND --root ROOT ARGS`: -I keeps the script's folder,
    the current folder and PYTHON* variables out of the import path; `env` is a clean
    environment (clean_env.py), never the fleet's own. A command still running after
    `timeout` seconds (TIMEOUT by default) is killed and returns TIMED_OUT, its last
    stderr line saying so, as any other failing command does."""
    seconds = TIMEOUT if timeout is None else timeout
    # An absolute root: some commands hand it to `git -C` beside paths under it.
    argv = [sys.executable, "-I", str(script), command, "--root", os.path.abspath(root), *args]
    try:
        return subprocess.run(
            argv,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            env=env,
            timeout=seconds,
        )
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(
            argv, TIMED_OUT, "", f"{command} timed out after {seconds:g} s\n"
        )
