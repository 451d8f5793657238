"""No test asserts on elapsed time: a busy CI machine fails such a test with nothing
wrong. Work is counted instead (steps, characters examined), a hang is caught by a
subprocess timeout, and speed is measured in benchmarks/ (docs/benchmarks.md).

The check reads each test module's syntax tree: a clock read (`time.monotonic()`,
`time.perf_counter()`, `time.time()`, `time.process_time()` and their `_ns` forms), or
a name assigned from an expression holding one, may not appear in an `assert`.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent
CLOCKS = {"monotonic", "perf_counter", "time", "process_time", "thread_time"}
CLOCKS |= {f"{name}_ns" for name in CLOCKS}


def reads_clock(node: ast.AST, timed: set[str]) -> bool:
    """Whether `node` calls a clock or uses a name that holds a clock reading."""
    for part in ast.walk(node):
        if isinstance(part, ast.Call):
            func = part.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in CLOCKS:
                return True
        if isinstance(part, ast.Name) and part.id in timed:
            return True
    return False


def clock_asserts(source: str) -> list[int]:
    """The lines of `source` whose assert uses a clock reading."""
    tree = ast.parse(source)
    timed: set[str] = set()
    # Twice over the assignments: `elapsed = now() - started` after `started = now()`.
    for _ in range(2):
        for node in ast.walk(tree):
            assigns = isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
            if assigns and node.value and reads_clock(node.value, timed):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    timed |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Assert) and reads_clock(node, timed)
    ]


def test_the_check_catches_a_clock_in_an_assert() -> None:
    timed = (
        "import time\n"
        "def test_fast():\n"
        "    started = time.monotonic()\n"
        "    run()\n"
        "    elapsed = time.monotonic() - started\n"
        "    assert elapsed < 2\n"
        "    assert time.perf_counter() - started < 8, 'slow'\n"
    )
    assert clock_asserts(timed) == [6, 7]
    counted = "def test_steps():\n    steps = count(run)\n    assert steps < 100\n"
    assert clock_asserts(counted) == []


def test_no_test_module_asserts_on_elapsed_time() -> None:
    found = {
        path.name: lines
        for path in sorted(TESTS.rglob("*.py"))
        if (lines := clock_asserts(path.read_text(encoding="utf-8")))
    }
    assert found == {}, f"asserts on elapsed time (count work instead): {found}"
