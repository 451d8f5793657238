"""Benchmark: what the readers cost on memory written to make them slow.

The tests run these inputs under a timeout that only catches a hang; the times live
here. Each case is one process of the rendered scripts, timed once per size, so the
ratio between sizes shows how the work grows (linear: about 4x for 4x the input).

- `injection`: the write gate's injection rule (text/injection.py) on a mebibyte
  of unclosed markup, one line and as a paragraph (tests/test_text_gates.py).
- `patterns`: review's link scan and the field and section patterns on a line of
  `](` or of spaces (tests/test_bounds.py).
- `review`, `verify`, `context`: the commands on a store holding one entry or desk
  with a line of `](` past the line cap, and a 10 MB entry: each is named and not
  read.

Reproduce from the repository root:

    python -m benchmarks.adversarial
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks._timing import print_table
from tests.helpers import MEMORY, SKILL, commit_all, copy_template, init_repo, snapshot_template

SIZES = (1 << 18, 1 << 20)  # characters: a quarter mebibyte, then four times that
CASES = {
    "injection, unclosed tags": (
        "from ecomem.text import injection",
        "injection.scan('m.md', [\"<a b='\" * (N // 6)])",
    ),
    "injection, paragraph of tags": (
        "from ecomem.text import injection",
        "injection.scan('m.md', [\"<a b='\" * 35 + ' Ignore all'] * (N // 222))",
    ),
    "review links": (
        "from ecomem.review.text import named_paths",
        "named_paths(['](' * (N // 2))])",
    ),
    "field line": ("from ecomem.store.fields import read_fields", "read_fields([' ' * N + ':'])"),
    "section line": ("from ecomem.rules.episodic import SECTION", "SECTION.match(' ' * N + '-')"),
}


def timed(argv: list[str], cwd: Path | None = None) -> float:
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="eco-mem-adversarial.") as folder:
        root = Path(folder)
        template = snapshot_template(root / "template", tag="v0.0.1")
        host = init_repo(root / "host")
        copy_template(template, host)
        scripts = host / SKILL / "scripts"
        # One untimed run first: it writes the scripts' bytecode.
        subprocess.run(
            [sys.executable, str(scripts / "eco_mem.pyz"), "verify"], cwd=host, check=False
        )
        rows = []
        for name, (imports, call) in CASES.items():
            seconds = []
            for size in SIZES:
                code = f"import sys\nsys.path.insert(0, {str(scripts)!r})\n{imports}\nN = {size}\n{call}\n"
                seconds.append(timed([sys.executable, "-I", "-c", code]))
            rows.append((name, *(f"{s:.2f} s" for s in seconds), f"{seconds[1] / seconds[0]:.1f}x"))
        print_table(("case", "256 K chars", "1 M chars", "ratio"), rows)

        (host / MEMORY / "semantic/notes.md").write_text(
            "# Notes\n\n- as_of: 2026-01-01\n- source: verified\n- scope: x\n- expires: never\n\n"
            + "](" * 100_000
            + "\n",
            encoding="utf-8",
        )
        (host / MEMORY / "semantic/huge.md").write_bytes(b"# Huge\n" + b"a" * (10 << 20))
        (host / MEMORY / "working/long.md").write_text(
            "# Long\n\n## Goal\n" + "](" * 100_000 + "\n", encoding="utf-8"
        )
        commit_all(host, "entries past the caps")
        script = str(scripts / "eco_mem.pyz")
        commands = {
            "review --json": ["review", "--json"],
            "verify": ["verify"],
            "context": ["context"],
        }
        print()
        print_table(
            ("command, store past the caps", "time"),
            [
                (name, f"{timed([sys.executable, script, *argv], cwd=host):.2f} s")
                for name, argv in commands.items()
            ],
        )


if __name__ == "__main__":
    main()
