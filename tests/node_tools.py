"""The npm formatters and linters hosts run over everything, brought by the tests that
need them: a fresh clone set up with README's one line has no .ci/node-tools yet.

The install is .ci/run's own pinned `npm install --prefix .ci/node-tools` line, read from
.ci/run and run as written, so the versions live in one place. Without npm the tests
that need these tools skip and say why; under CI (CI=true, which .ci/run sets) they fail
instead, so CI never passes with them skipped.
"""

from __future__ import annotations

import fcntl
import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import PROJECT

NODE_TOOLS = PROJECT / ".ci" / "node-tools"
NODE_BIN = NODE_TOOLS / "node_modules" / ".bin"
INSTALL_START = "npm install --prefix .ci/node-tools "


def install_line() -> list[str]:
    """.ci/run's pinned npm install, as its words (its output redirection left off)."""
    for line in (PROJECT / ".ci" / "run").read_text(encoding="utf-8").splitlines():
        if line.startswith(INSTALL_START):
            return shlex.split(line.split(">", 1)[0])
    raise AssertionError(f".ci/run has no `{INSTALL_START}...` line")


def pinned_packages() -> list[str]:
    """The package specs of that line: `prettier@3.10.1`, `prettier-3.3.3@npm:prettier@3.3.3`."""
    return [word for word in install_line()[4:] if not word.startswith("-")]


def installed(spec: str, tools: Path = NODE_TOOLS) -> bool:
    """Whether `spec` (NAME@VERSION, or ALIAS@npm:NAME@VERSION) is in `tools` at that
    version."""
    name, version = spec.rsplit("@", 1)
    name = name.split("@npm:", 1)[0]
    try:
        meta = json.loads((tools / "node_modules" / name / "package.json").read_text())
    except (OSError, ValueError):
        return False
    return meta.get("version") == version


def missing_or_skip(tools: Path = NODE_TOOLS) -> None:
    """Install the pinned tools into `tools` when any is missing; skip (fail under CI)
    without npm."""
    if all(installed(spec, tools) for spec in pinned_packages()):
        return
    if shutil.which("npm") is None:
        reason = (
            "npm is not installed: the host-tool tests need node and npm (.ci/run installs them)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(reason + "; CI must not skip them")
        pytest.skip(reason)
    tools.mkdir(parents=True, exist_ok=True)
    # pytest-xdist workers may all get here: one installs, the others wait for it.
    with open(tools.parent / "node-tools.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if all(installed(spec, tools) for spec in pinned_packages()):
            return
        command = [str(tools) if word == ".ci/node-tools" else word for word in install_line()]
        done = subprocess.run(
            command, cwd=PROJECT, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        pytest.fail(f"the pinned npm install of .ci/run failed: {last}")


def node_tool(name: str) -> str:
    """The path of the npm tool `name`, installed first when missing."""
    missing_or_skip()
    path = NODE_BIN / name
    if not path.is_file():
        pytest.fail(f"{name} is missing after the install: is it on .ci/run's npm line?")
    return str(path)


def package_script(package: str, script: str) -> Path:
    """A file of the installed npm package `package` (an alias such as prettier-3.3.3)."""
    missing_or_skip()
    path = NODE_TOOLS / "node_modules" / package / script
    if not path.is_file():
        pytest.fail(f"{package} is missing after the install: is it on .ci/run's npm line?")
    return path
