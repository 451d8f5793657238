"""Benchmark: the runtime as one zip file against the source tree it replaced.

What is measured: the wall time of the second call (and later) of `find`, `verify`
and `context`, each a subprocess of the interpreter running this benchmark, in two
hosts rendered with default answers and committed, in the same interleaved runs:

  source tree  the release before issue 45 (commit d3eaa3c, taken from this
               repository's history): `python3 <skill>/scripts/eco_mem.py ...`,
               its bytecode cached under ~/.cache/eco-mem/pycache
  zip file     this working tree: `python3 <skill>/scripts/eco_mem.pyz ...`, which
               unpacks itself once per sha256 into the user's cache and runs there

Both use one temporary XDG_CACHE_HOME, filled by the untimed warm-up: that is the
second call. The store holds 12 facts, so `find` has rows to rank. Also reported:
the first call of the zip file (a fresh cache each time: the unpacking) and the zip
file with a cache that cannot be written (it runs from the archive; zipimport
compiles every module on every call). Target: second calls at most 1.2x the source
tree's (issue 45). Nothing is asserted.

Reproduce from the repository root (needs the history: a full clone):

    python -m benchmarks.runtime_file [--runs N]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks._timing import measure, ms, parse_runs, print_table, ratio_line
from tests.helpers import (
    SKILL,
    commit_all,
    copy_template,
    init_repo,
    snapshot_template,
    template_from_history,
)
from tests.memory_helpers import fact

BASELINE = "d3eaa3c"  # main before the runtime became one file
TARGET = 1.2
COMMANDS = {"find": ("find", "deploy", "tag"), "verify": ("verify",), "context": ("context",)}


def host(scratch: Path, name: str, baseline: bool) -> Path:
    template = scratch / f"template-{name}"
    if baseline:
        init_repo(template)
        template_from_history(template, BASELINE)
        commit_all(template, "baseline")
        subprocess.run(["git", "-C", str(template), "tag", "v0.0.1"], check=True)
    else:
        snapshot_template(template, "v0.0.1")
    root = init_repo(scratch / name)
    copy_template(template, root)
    for number in range(12):
        fact(root, f"Deploys of service {number} need a signed tag")
    commit_all(root, "install and facts")
    return root


def runner(root: Path, script: str, args: tuple[str, ...], env: dict[str, str]):
    command = [sys.executable, str(root / SKILL / "scripts" / script), *args]

    def prepare():
        return lambda: subprocess.run(command, cwd=root, env=env, capture_output=True)

    return prepare


def main() -> int:
    runs = parse_runs(__doc__.split("\n\n")[0], default=15)
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        source = host(scratch, "source", baseline=True)
        packed = host(scratch, "zip", baseline=False)
        env = {**os.environ, "XDG_CACHE_HOME": str(scratch / "cache")}
        blocked = scratch / "no-cache"
        blocked.write_text("a file where the cache folder would go")
        no_cache = {**os.environ, "XDG_CACHE_HOME": str(blocked)}
        fresh = scratch / "fresh-cache"

        def first_call():
            shutil.rmtree(fresh, ignore_errors=True)
            command = [sys.executable, str(packed / SKILL / "scripts/eco_mem.pyz"), "verify"]
            fresh_env = {**os.environ, "XDG_CACHE_HOME": str(fresh)}
            return lambda: subprocess.run(command, cwd=packed, env=fresh_env, capture_output=True)

        rows, lines = [], []
        for label, args in COMMANDS.items():
            subjects = {
                "source tree": runner(source, "eco_mem.py", args, env),
                "zip file": runner(packed, "eco_mem.pyz", args, env),
                "zip file, no cache": runner(packed, "eco_mem.pyz", args, no_cache),
            }
            if label == "verify":
                subjects["zip file, first call"] = first_call
            timings = measure(subjects, runs)
            for name, timing in timings.items():
                rows.append((f"{label}: {name}", ms(timing.median), ms(timing.min)))
            lines.append(
                ratio_line(
                    f"{label}, second call", timings["zip file"], timings["source tree"], TARGET
                )
            )
    print_table(("subject", "median", "min"), rows)
    print()
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
