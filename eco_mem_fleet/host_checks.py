"""The repository's own checks, run on what eco-mem changed before anything is pushed.

A host that runs pre-commit on every commit would reject an install that breaks
its hooks; the fleet finds that out before the push, not in the host's CI. One
function per kind of check; `run_checks` runs each kind the repository carries
and returns one `Check` per kind: its name, whether the result may be pushed,
and the first lines of what it said.

Only checks that run offline are run. pre-commit runs when every hook needs no
environment (`repo: local` or `meta` with language `system`, `fail`, `pygrep`,
`script` or their new names) or its environment is already in pre-commit's
cache; otherwise it is not run, and the repository is "unchecked" ("unchecked:
pre-commit not run: hooks not cached"): pushed, never called ok, unless the
operator passed --host-checks-may-download. A
package.json script (`lint`, `format:check`) is never run: it runs whatever
node_modules holds, and installing that is a download and arbitrary code.

The hooks are the repository's code. They run in a process of their own with
the fleet's clean environment (clean_env.py): no token, an empty HOME.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TextIO

import yaml

from eco_mem_fleet.clean_env import clean_environment

PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"
# pre-commit languages that install no environment: nothing to download to run them.
# (docker_image installs none either, but `docker run` pulls the image: not offline.)
NO_ENVIRONMENT = ("system", "unsupported", "script", "unsupported_script", "fail", "pygrep")
LOCAL_REPO_VERSION = "1"  # the ref pre-commit's store records for `repo: local` environments
SHOWN_LINES = 4  # lines of a failing check's output kept in the row
TIMEOUT = 600.0  # seconds a check may run in one repository


@dataclasses.dataclass(frozen=True)
class Check:
    name: str  # "pre-commit"
    ok: bool  # False: the check failed, and nothing is pushed
    output: str  # its first lines, or why it was not run
    ran: bool = True  # False: asked for and not run; the repository is "unchecked"

    def note(self) -> str:
        """The row's note: empty for a check that ran and passed."""
        if not self.ran:
            return f"unchecked: {self.output}"
        if self.ok:
            return self.output
        return f"host check {self.name} failed: {self.output}; nothing pushed"


def not_run(why: str) -> Check:
    """A check asked for that could not run offline: not a failure, and not a pass."""
    return Check("pre-commit", True, f"pre-commit not run: {why}", ran=False)


def add_host_check_args(parser: argparse.ArgumentParser, status: bool = False) -> None:
    parser.add_argument(
        "--host-checks",
        action="store_true",
        help=(
            "run each clone's own pre-commit hooks over the files eco-mem owns there: one"
            " that fails is not ok, one whose hooks cannot run offline is unchecked; the"
            " repository's code, run as your user (fleet.md)"
            if status
            else "run each repository's own pre-commit hooks on the result before pushing,"
            " and push only what passes (a repository whose hooks cannot run offline is"
            " pushed, its row unchecked): the repository's code, run as your user (fleet.md)"
        ),
    )
    parser.add_argument(
        "--host-checks-may-download",
        action="store_true",
        help="let pre-commit install hook environments it has not cached (network)",
    )


def first_lines(text: str, start: str = "") -> str:
    """SHOWN_LINES non-empty lines, from the first one containing `start`, joined by " | "."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    begin = next((i for i, line in enumerate(lines) if start and start in line), 0)
    return " | ".join(lines[begin : begin + SHOWN_LINES]) or "no output"


def operator_store() -> Path:
    """pre-commit's cache as the operator's own pre-commit finds it."""
    if os.environ.get("PRE_COMMIT_HOME"):
        return Path(os.environ["PRE_COMMIT_HOME"])
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(cache) / "pre-commit"


def pre_commit_program() -> str | None:
    """`pre-commit` on PATH, else beside the Python running the fleet (its own venv)."""
    found = shutil.which("pre-commit")
    if found:
        return found
    beside = Path(sys.executable).parent / "pre-commit"
    return str(beside) if beside.is_file() and os.access(beside, os.X_OK) else None


def _stored(store: Path, repo: str, ref: str, deps: list[str]) -> Path | None:
    """Where pre-commit's store holds `repo` at `ref` (a row in its db.db, keyed as
    pre-commit keys it: the dependencies join the name), or None."""
    key = f"{repo}:{','.join(deps)}" if deps else repo
    try:
        with sqlite3.connect(f"file:{store / 'db.db'}?mode=ro", uri=True) as db:
            row = db.execute(
                "SELECT path FROM repos WHERE repo = ? AND ref = ?", (key, ref)
            ).fetchone()
    except sqlite3.Error:
        return None
    return Path(row[0]) if row else None


def _has_environment(path: Path) -> bool:
    """Whether an environment was installed in the stored repository at `path`
    (pre-commit writes an install-state file last, once it is complete)."""
    return any(
        (env / ".install_state_v2").exists() or (env / ".install_state_v1").exists()
        for env in path.glob("*")
        if env.is_dir()
    )


def _manifest_languages(path: Path) -> dict[str, str]:
    """Hook id -> language, from a stored repository's .pre-commit-hooks.yaml."""
    try:
        hooks = yaml.safe_load((path / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
        return {str(hook["id"]): str(hook.get("language", "")) for hook in hooks}
    except (OSError, UnicodeError, yaml.YAMLError, KeyError, TypeError):
        return {}


def _ready(store: Path, repo: str, ref: str, hook: dict) -> bool:
    """Whether `hook` of `repo` at `ref` runs from the store with nothing to fetch."""
    deps = [str(dep) for dep in hook.get("additional_dependencies") or []]
    path = _stored(store, repo, ref, deps)
    if path is None:
        return False
    language = hook.get("language") or _manifest_languages(path).get(str(hook.get("id")))
    return language in NO_ENVIRONMENT or _has_environment(path)


def uncached(config: dict, store: Path) -> list[str]:
    """The hooks of `config` that would download something to run: repo URL or hook id."""
    missing = []
    for repo in config.get("repos") or []:
        url = str(repo.get("repo", ""))
        hooks = repo.get("hooks") or []
        if url == "meta":
            continue
        if url == "local":
            missing += [
                str(hook.get("id", "?"))
                for hook in hooks
                if hook.get("language") not in NO_ENVIRONMENT
                and not _ready(store, "local", LOCAL_REPO_VERSION, hook)
            ]
            continue
        rev = str(repo.get("rev", ""))
        if not all(_ready(store, url, rev, hook) for hook in hooks):
            missing.append(url)
    return missing


def pre_commit(
    root: Path, files: list[str], env: dict[str, str], download: bool, log: TextIO | None
) -> Check | None:
    """`pre-commit run --files FILES` in `root`, when it carries a config and can run
    offline; its whole output goes to `log`."""
    config_file = root / PRE_COMMIT_CONFIG
    if not config_file.is_file():
        return None
    program = pre_commit_program()
    if program is None:
        return not_run("pre-commit not installed (the fleet extra installs it)")
    try:
        config = yaml.safe_load(config_file.read_text(encoding="utf-8")) or {}
        if not isinstance(config, dict):
            raise ValueError("not a mapping")
    except (OSError, UnicodeError, ValueError, yaml.YAMLError) as error:
        return Check("pre-commit", False, f"{PRE_COMMIT_CONFIG} cannot be read ({error})")
    store = operator_store()
    env = dict(env)
    if download:
        env["PRE_COMMIT_HOME"] = str(store)
    else:
        try:
            missing = uncached(config, store)
        except (AttributeError, TypeError) as error:  # a repo or hook that is not a mapping
            return Check("pre-commit", False, f"{PRE_COMMIT_CONFIG} cannot be read ({error})")
        if missing:
            shown = missing[0] if len(missing) == 1 else f"{len(missing)}, e.g. {missing[0]}"
            return not_run(
                f"hooks not cached ({shown}); pre-commit install-hooks in one clone, or"
                " --host-checks-may-download"
            )
        if store.is_dir():
            env["PRE_COMMIT_HOME"] = str(store)  # cached environments, read where they are
        # Belt and braces: no clone, pip or npm reaches the network from here.
        env.update(GIT_ALLOW_PROTOCOL="file", PIP_NO_INDEX="1", NPM_CONFIG_OFFLINE="true")
    files = [name for name in files if (root / name).is_file()]
    if not files:
        return Check("pre-commit", True, "")
    argv = [program, "run", "--color", "never", "--files", *files]
    try:
        done = subprocess.run(
            argv,
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return Check("pre-commit", False, f"timed out after {TIMEOUT:g} s")
    if log is not None:
        log.write(done.stdout + done.stderr)
    if done.returncode == 0:
        return Check("pre-commit", True, "")
    return Check("pre-commit", False, first_lines(done.stdout + done.stderr, "Failed"))


def run_checks(
    root: Path,
    files: list[str],
    env: dict[str, str],
    download: bool = False,
    log: TextIO | None = None,
) -> list[Check]:
    """Every kind of check `root` carries, run on `files` (paths relative to root)."""
    found = [pre_commit(root, files, env, download, log)]
    return [check for check in found if check is not None]


def checked(root: Path, options: dict) -> list[Check]:
    """run_checks on what the staged result changes, as the fleet's options ask: in a
    clean environment with an empty HOME of its own (clean_env.py)."""
    if not options.get("host_checks"):
        return []  # the repository's code: run only when the operator asks
    with tempfile.TemporaryDirectory(prefix="eco-mem-fleet-checks.") as home:
        env = clean_environment(home)
        download = bool(options.get("may_download"))
        # Inside an autofix worker stdout is all-repos' log for this repository.
        return run_checks(root, changed_files(root), env, download, log=sys.stdout)


def changed_files(root: Path) -> list[str]:
    """What the staged result changes against the branch point, deletions left out."""
    listed = subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "diff",
            "--cached",
            "--name-only",
            "--diff-filter=d",
            "-z",
            "HEAD",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return [name for name in listed.stdout.split("\0") if name]
