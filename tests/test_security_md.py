"""SECURITY.md names the tests that hold each promise; every name must still exist, so a
renamed or deleted test cannot leave a promise that nothing checks."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
PAGE = PROJECT / "SECURITY.md"


def held_by_paragraphs() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    return [part for part in re.split(r"\n\s*\n", text) if part.startswith("Held by:")]


def functions_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_promise_names_tests_that_exist() -> None:
    paragraphs = held_by_paragraphs()
    promises = re.findall(r"(?m)^### \d+\. ", PAGE.read_text(encoding="utf-8"))
    assert len(paragraphs) == len(promises) >= 6, "one 'Held by:' paragraph per promise"
    for paragraph in paragraphs:
        current = None
        named = 0
        # Files and test names in the order they appear: a bare test name belongs to
        # the file named before it, `file::name` names both.
        for token in re.findall(r"`([^`]+)`", paragraph):
            file, _, name = token.partition("::")
            if file.startswith("tests/"):
                current = PROJECT / file
                assert current.is_file(), f"SECURITY.md names {file}, which does not exist"
                named += 1
                if not name:
                    continue
            else:
                name = token
            assert name.startswith("test_"), f"not a test name in SECURITY.md: {token}"
            assert current is not None, f"{name} is named before any test file"
            assert name in functions_in(current), f"{current.name} has no {name}"
        assert named, f"a promise names no test file: {paragraph[:60]}"
