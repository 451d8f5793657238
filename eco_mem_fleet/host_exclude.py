"""Whether a repository's pre-commit config keeps its hooks out of eco-mem's files.

`ops.py blocks` adds eco-mem's exclude to a host's pre-commit config only where that
cannot change what the host meant; a config with an exclude of its own is left to the
operator, with the pattern to join (the install's to-do). status asks again on every
run, so a repository keeps its to-do until the host's own exclude covers eco-mem's
files, whoever wrote it. Read as data, as pre-commit reads it (yaml.safe_load, Python's
`re.search` over each tracked path, `^$` when there is no exclude); nothing of the
repository runs.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

from eco_mem_ops.runtime import use_release_runtime

use_release_runtime()  # precommit imports `ecomem`: this checkout's, never a host's

from ecomem.gitsetup.track import CLAUDE_LINK  # noqa: E402

from eco_mem_ops.install.hooks import BIOME_SETTINGS  # noqa: E402
from eco_mem_ops.install.precommit import CONFIG_NAMES, pattern_for  # noqa: E402

# eco-mem's files outside its two folders that the exclude names one by one: Claude
# Code's link to the skill (a file to git) and the Biome settings beside settings.json.
SINGLE_FILES = [CLAUDE_LINK, BIOME_SETTINGS]


def exclude_todo(path: str, folders: list[str]) -> str:
    """A "to do: ..." line for each config of the clone at `path` whose hooks would reach a
    tracked file under `folders` (eco-mem's skill and memory) or one of SINGLE_FILES;
    "" when none would."""
    listed = subprocess.run(
        ["git", "-C", path, "ls-files", "-z", "--", *folders, *SINGLE_FILES],
        capture_output=True,
        text=True,
    )
    ours = [name for name in listed.stdout.split("\0") if name]
    todo = []
    for name in CONFIG_NAMES:
        reached = [file for file in ours if not _excluded(Path(path, name), file)]
        if reached:
            todo.append(
                f"to do: {name}'s hooks reach {len(reached)} of eco-mem's files"
                f" ({reached[0]}): join {pattern_for(folders, SINGLE_FILES)} to its exclude with |"
            )
    return "; ".join(todo)


def _excluded(config: Path, file: str) -> bool:
    """Whether the hooks of `config` skip `file`: true when there is no such config, it
    runs no hooks, or pre-commit could not read it (then no hook runs at all)."""
    try:
        data = yaml.safe_load(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return True
    if not isinstance(data, dict) or not data.get("repos"):
        return True
    try:
        return bool(re.search(str(data.get("exclude", "^$")), file))
    except re.error:
        return True
