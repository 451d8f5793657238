"""Drive the rendered memory commands the way an agent does: `python eco_mem.pyz` in the
host repo (warm_runtime.py answers it as that command would, without a new interpreter)."""

from __future__ import annotations

import json
import os
import subprocess
from datetime import date
from pathlib import Path

from tests import warm_runtime
from tests.helpers import HOST_RUNTIME, MEMORY, SKILL, host_script

SCRIPT = f"{SKILL}/scripts/{HOST_RUNTIME}"
LOCAL_STATE = (".eco-mem.lock",)  # the lock file may appear; it is never part of the store


def today() -> str:
    """The date a write command stamps, read at the assert and not at import: a run of
    the suite that crosses midnight must not compare against yesterday."""
    return date.today().isoformat()


def mem(
    host: Path, *args: str, stdin: str | None = None, env: dict | None = None, timeout: float = 60
) -> subprocess.CompletedProcess:
    return warm_runtime.run(
        str(host_script(host)),
        list(args),
        cwd=str(host),
        input=stdin if stdin is not None else "",
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def fact(
    host: Path, title: str, *extra: str, body: str = "Checked in the repository."
) -> subprocess.CompletedProcess:
    args = ["new", "semantic", "--title", title, "--source", "verified", "--scope", "repo"]
    if "--expires" not in extra:
        args += ["--expires", "never"]
    return mem(host, *args, *extra, "--body", body)


def episode(
    host: Path, title: str, lesson: str = "Run it serially.", *extra: str
) -> subprocess.CompletedProcess:
    return mem(
        host,
        *("new", "episodic", "--title", title, "--context", "CI run 812"),
        *("--action", "reran the job", "--result", "it passed", "--lesson", lesson),
        *extra,
    )


def adopt(host: Path, *selector: str) -> subprocess.CompletedProcess:
    """`adopt` the way the user's OK makes it: show the text, then take exactly what was
    shown, by the token the first run printed."""
    shown = mem(host, "adopt", *selector, "--json")
    if shown.returncode != 0 or '"token"' not in shown.stdout:
        return shown
    return mem(host, "adopt", *selector, "--take", json.loads(shown.stdout)["token"])


def snapshot(host: Path) -> dict[str, bytes]:
    """Every file of the store, byte for byte (the lock file aside)."""
    root = host / MEMORY
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.name not in LOCAL_STATE
    }


def rows(host: Path, drawer: str) -> list[str]:
    lines = (host / MEMORY / drawer / "INDEX.md").read_text(encoding="utf-8").splitlines()
    start = lines.index(next(line for line in lines if line.startswith("|---")))
    return [line for line in lines[start + 1 :] if line.startswith("|")]


def verify_findings(host: Path, *extra: str) -> list[tuple[str, str]]:
    result = mem(host, "verify", "--json", *extra)
    assert result.returncode in (0, 1), result.stderr
    return [(item["rule"], item["path"]) for item in json.loads(result.stdout)["findings"]]


def refused_rules(result: subprocess.CompletedProcess) -> list[str]:
    """Rule ids from `eco_mem.pyz CMD: refused [rule] ...` lines."""
    return [
        line.split("[", 1)[1].split("]", 1)[0]
        for line in result.stderr.splitlines()
        if ": refused [" in line
    ]
