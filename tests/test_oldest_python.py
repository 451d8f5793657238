"""The rendered script promises Python 3.9+: run it under the oldest one we can find."""

from __future__ import annotations

import glob
import os
import random
import shutil
import string
import subprocess
from pathlib import Path

import pytest

from tests.helpers import SKILL


def find_python39() -> str | None:
    candidates = [os.environ.get("ECO_MEM_PYTHON39", ""), shutil.which("python3.9") or ""]
    candidates += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.9*/bin/python3")))
    for candidate in filter(None, candidates):
        probe = subprocess.run([candidate, "--version"], capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.startswith("Python 3.9"):
            return candidate
    return None


PYTHON39 = find_python39()


@pytest.mark.skipif(PYTHON39 is None, reason="no Python 3.9 on this machine")
def test_every_command_runs_on_python_3_9(rendered: Path, tmp_path: Path) -> None:
    host = tmp_path / "host"
    shutil.copytree(rendered, host, symlinks=True)
    script = str(host / SKILL / "scripts/eco_mem.py")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [PYTHON39, script, *args], cwd=host, capture_output=True, text=True, env=env
        )

    assert run("--help").returncode == 0
    assert run("blocks").returncode == 0
    assert run("restore-indexes").returncode == 0
    clean = run("verify", "--json", "--today", "2026-11-30")
    assert clean.returncode == 0, clean.stderr

    alphabet = string.ascii_letters + string.digits
    rng = random.Random(39)
    token = "gh" + "p_" + "".join(rng.choice(alphabet) for _ in range(36))
    fact = host / ".agents/memory/semantic/orphan.md"
    fact.write_text(
        f"# Orphan\n\n- as_of: last week\n- source: guess\n\nCI uses {token}\n", encoding="utf-8"
    )
    broken = run("verify", "--today", "2026-11-30")
    assert broken.returncode == 1
    rules = ("drift.file-without-row", "semantic.relative-date", "semantic.source")
    for rule in (*rules, "secret.github-token"):
        assert f"[{rule}]" in broken.stdout
