"""The rendered script and the operator's ops.py promise Python 3.9+: run them under the
oldest one we can find."""

from __future__ import annotations

import glob
import os
import random
import shutil
import string
import subprocess
from pathlib import Path

import pytest

from tests.helpers import PROJECT, assert_exit, assert_no_traceback, host_script

OPS = str(PROJECT / "ops.py")


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
    script = str(host_script(host))
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [PYTHON39, script, *args], cwd=host, capture_output=True, text=True, env=env
        )

    def ops(*args: str) -> subprocess.CompletedProcess:
        command, *rest = args
        return subprocess.run(
            [PYTHON39, "-I", OPS, command, "--root", str(host), *rest],
            cwd=host, capture_output=True, text=True, env=env,
        )  # fmt: skip

    assert run("--help").returncode == 0
    assert subprocess.run([PYTHON39, "-I", OPS, "--help"], capture_output=True).returncode == 0
    assert ops("blocks").returncode == 0
    assert ops("restore-indexes").returncode == 0
    clean = run("verify", "--json", "--today", "2026-11-30")
    assert clean.returncode == 0, clean.stderr

    # The memory commands, through a whole task.
    assert run("new", "working", "--title", "Old Python", "--goal", "works").returncode == 0
    added = run(
        *("new", "semantic", "--title", "Scripts run on Python 3.9", "--source", "derived"),
        *("--scope", "scripts", "--expires", "never", "--body", "Ran them under 3.9."),
    )
    assert added.returncode == 0, added.stderr
    assert run("revise", "scripts-run-on-python-3-9", "--source", "verified").returncode == 0
    assert_exit(run("confirm", "scripts-run-on-python-3-9"), 1)
    assert run("confirm", "scripts-run-on-python-3-9", "--by-user").returncode == 0
    found = run("find", "python", "--json")
    # The fact matches; the open desk is listed apart from the rows.
    assert found.returncode == 0, found.stderr
    assert '"matches": 1' in found.stdout and '"desks": 1' in found.stdout, found.stdout
    ended = run(
        *("end-task", "old-python", "--promote-to", "episodic", "--title", "Tried 3.9"),
        *("--context", "c", "--action", "a", "--result", "r", "--lesson", "It works."),
    )
    assert ended.returncode == 0, ended.stderr
    assert (
        run(
            "new", "procedural", "--name", "x", "--use-when", "y", "--points-to", "AGENTS.md"
        ).returncode
        == 0
    )
    assert run("forget", "x").returncode == 0
    assert run("verify").returncode == 0

    alphabet = string.ascii_letters + string.digits
    rng = random.Random(39)
    token = "gh" + "p_" + "".join(rng.choice(alphabet) for _ in range(36))
    # A Visa-shaped number whose last digit is whatever makes the Luhn sum end in 0.
    partial = "4" + "".join(rng.choice(string.digits) for _ in range(14))
    doubled = [int(c) * (2 - i % 2) for i, c in enumerate(reversed(partial))]
    card = partial + str(-sum(d - 9 if d > 9 else d for d in doubled) % 10)
    fact = host / ".agents/memory/semantic/orphan.md"
    fact.write_text(
        f"# Orphan\n\n- as_of: last week\n- source: guess\n\nCI uses {token}, card {card}\n",
        encoding="utf-8",
    )
    broken = run("verify", "--today", "2026-11-30")
    assert broken.returncode == 1
    assert_no_traceback(broken)
    rules = ("drift.file-without-row", "semantic.relative-date", "semantic.source")
    for rule in (*rules, "secret.github-token", "pii.payment-card"):
        assert f"[{rule}]" in broken.stdout


@pytest.mark.skipif(PYTHON39 is None, reason="no Python 3.9 on this machine")
def test_experiment_kit_runs_on_python_3_9(rendered: Path, tmp_path: Path) -> None:
    host = tmp_path / "host"
    shutil.copytree(rendered, host, symlinks=True)
    subprocess.run(["git", "add", "-A"], cwd=host, check=True)
    subprocess.run(["git", "commit", "-qm", "install"], cwd=host, check=True)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}

    def run(*args: str, cwd: Path = host) -> subprocess.CompletedProcess:
        # The kit is the operator's: ops.py, from this checkout.
        return subprocess.run(
            [PYTHON39, "-I", OPS, *args], cwd=cwd, capture_output=True, text=True, env=env
        )

    for kind in ("recall", "laundering", "injection"):
        planted = run("experiment", "plant", kind, "--into", str(tmp_path / kind), "--json")
        assert planted.returncode == 0, planted.stderr
    clone = tmp_path / "recall"
    verified = subprocess.run(
        [PYTHON39, str(host_script(clone)), "verify"],
        cwd=clone, capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert verified.returncode == 0, verified.stderr
    transcripts = Path(__file__).parent / "fixtures/transcripts"
    listed = run(
        "experiment",
        "score",
        str(clone),
        "--transcript",
        str(transcripts / "paths/recall-pass.txt"),
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    codex = run(
        "experiment",
        "score",
        str(clone),
        "--transcript",
        str(transcripts / "codex/exec-recall-fail.jsonl"),
    )
    assert codex.returncode == 1, codex.stdout + codex.stderr
    assert_no_traceback(codex)
    claude = tmp_path / "claude.jsonl"
    fixture = (transcripts / "claude-code/recall-pass.jsonl").read_text(encoding="utf-8")
    claude.write_text(fixture.replace("@ROOT@", str(clone)), encoding="utf-8")
    assert run("experiment", "score", str(clone), "--transcript", str(claude)).returncode == 0
    # verify ran above, before anything else read the store: nothing was opened.
    by_atime = run("experiment", "score", str(clone), "--json")
    assert by_atime.returncode in (1, 2), by_atime.stderr
    # Right after plant no agent has run: no verdict, on 3.9 as on the newest Python.
    for kind in ("laundering", "injection"):
        scored = run("experiment", "score", str(tmp_path / kind))
        assert scored.returncode == 2, scored.stdout + scored.stderr
        assert "INCONCLUSIVE" in scored.stdout
