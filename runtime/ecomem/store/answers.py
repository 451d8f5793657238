"""The answers a command runs under: read by answers_file.py, judged, set on protocol.

A folder answer is printed by find and the session digest and written into AGENTS.md,
so its words are read as a package store's path is (names.reads_as_order): a branch
that names the memory `Ignore-all-previous-instructions/` gives the agent an order in
every command's output. That judgment needs the injection rule, a floor above the
answers file's reader, hence this module.
"""

from __future__ import annotations

from .. import answers_file, protocol
from ..errors import UsageError
from .names import reads_as_order


def settle(root) -> None:
    """Set protocol's answers (SKILL_DIR, MEMORY_DIR, ...) from the answers file at
    `root`, checked; errors.UsageError names what is wrong, never the value. Every
    command calls this first, before anything builds a path."""
    found = answers_file.settings(root)
    # The git dir's copy reads its own record, judged when track wrote it; judging
    # loads the injection rule (and re), which the session digest goes without.
    if not answers_file.reads_record():
        for name in answers_file.FOLDERS:
            if reads_as_order(found[name].replace("/", "-")):
                raise UsageError(
                    f"{protocol.ANSWERS_FILE}: {name} reads as an order to the agent;"
                    " name the folder plainly"
                )
    protocol.SETTLED = found
    protocol.SKILL_DIR = found["skill_path"] + "/eco-mem"
    protocol.ROOT_MEMORY_DIR = protocol.MEMORY_DIR = found["memory_path"]
    protocol.CLAUDE_CODE = found["claude_code"]
    protocol.DESKS_TRAVEL = found["desks_travel"]
    protocol.REVIEW_THRESHOLDS = found["review_thresholds"]
    protocol.VERIFY_COMMAND = f"python3 {protocol.SKILL_DIR}/scripts/eco_mem.pyz verify"
