"""What a rendered host holds, measured by benchmarks/host_size.py: every host-side
command run for real under `python -X importtime`, lines counted with no clock. The
host's Python is its runtime file, `eco_mem.pyz`: the modules of runtime/, counted
from the file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.host_size import measure
from tests.helpers import PROJECT

# A ratchet: the host's Python lines as measured when this test was written (the
# shrinking of issue 34 under way). Lower it when the host shrinks; raising it means
# the host grew, which a change must argue for in its review, not here.
# +31 for the security review's refusals, +26 for their own module (store/answers.py),
# +29 for finding git on PATH's absolute folders only (tests/test_runtime_programs.py).
# +77 when the runtime became one file (issue 45): the entry's cache of the unpacked
# archive and verify's check of the file's hash, less the operator's code moved out.
LINES_CEILING = 16_161
# The same, counting code only: no blank line, comment or docstring. Essays moving out
# of modules lower the line count; this one moves only when code does.
CODE_LINES_CEILING = 11_381
UNLOADED_SHARE_LIMIT = 10.0  # percent of the host's lines that no host command loads


@pytest.fixture(scope="module")
def size(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return measure(template_repo, tmp_path_factory.mktemp("host-size"))


def test_every_host_command_ran_and_git_ran_the_copy_in_the_git_dir(size: dict) -> None:
    loaded = size["loaded"]
    for label in ("find", "new", "revise", "confirm", "forget", "end-task", "adopt"):
        assert f"ecomem.commands.{label.replace('-', '_')}" in loaded[label], label
    assert "ecomem.commands.desks" in loaded["desks"]
    assert "ecomem.commands.context" in loaded["context"]
    # The driver's copy ran under git (it imports the catalog merge), and resolve.py too.
    assert "ecomem.store.merge" in loaded["merge-catalog"]
    assert "ecomem.commands.resolve" in loaded["resolve"]
    assert {"verify", "review", "track", "init", "upgrade", "uninstall"} <= set(loaded)


def test_no_more_than_a_tenth_of_the_host_is_loaded_by_no_host_command(size: dict) -> None:
    assert size["unloaded_percent"] <= UNLOADED_SHARE_LIMIT, size["unloaded"]


def test_the_host_does_not_grow_past_the_ratchet(size: dict) -> None:
    assert size["lines"] <= LINES_CEILING, size["largest"]


def test_the_hosts_code_does_not_grow_past_the_ratchet(size: dict) -> None:
    assert size["code_lines"] <= CODE_LINES_CEILING, size["largest"]


def test_vulture_finds_no_dead_code_in_the_runtime() -> None:
    """The runtime alone: code only the operator or the tests use belongs with them
    (eco_mem_ops/), not in every host. What vulture cannot see used is listed, with
    its user, in tests/vulture_runtime_whitelist.py."""
    vulture = Path(sys.executable).with_name("vulture")
    assert vulture.is_file(), "vulture is missing: pip install -e '.[test]'"
    whitelist = PROJECT / "tests" / "vulture_runtime_whitelist.py"
    found = subprocess.run(
        [str(vulture), "runtime", str(whitelist), "--min-confidence", "60"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
    )
    assert found.returncode == 0, found.stdout + found.stderr
