"""What verify and find do in an experiment clone: note the memory files' access times.

The operator's experiment kit (eco_mem_ops/experiment/, never rendered into a host)
plants a memory in a clone and scores what the agent read. The agent runs this clone's
own find and verify, so the one thing the kit needs from them lives here: before either
reads memory, record every memory file's access time (a snapshot), so reads made before
the command stay visible to the scorer.

The answer key and the snapshots sit in the clone's `.git/`, which agents do not read.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

# Here, not in the kit, because verify asks on every run whether it is in such a clone,
# and that question should not cost a module.
KEY_NAME = "eco-mem-experiment.json"
SNAPSHOTS_NAME = "eco-mem-atimes.json"


def is_experiment_clone(root) -> bool:
    return os.path.isfile(os.path.join(root, ".git", KEY_NAME))


def key_path(root: Path) -> Path:
    return Path(root) / ".git" / KEY_NAME


def snapshots_paths(root: Path) -> list[Path]:
    """Where verify's access-time snapshots go: .git/, or the temp folder when a sandbox
    (Codex keeps .git read-only) refuses that write."""
    import hashlib
    import tempfile

    clone = str(Path(root).resolve()).encode()
    fallback = f"eco-mem-atimes-{hashlib.sha256(clone).hexdigest()[:16]}.json"
    return [Path(root) / ".git" / SNAPSHOTS_NAME, Path(tempfile.gettempdir()) / fallback]


def load_key(root: Path) -> dict | None:
    """The clone's answer key, or None when `root` is not an experiment clone."""
    path = key_path(root)
    if not path.is_file():
        return None
    import json  # verify imports this module on every run, and rarely needs json

    return json.loads(path.read_text(encoding="utf-8"))


def memory_files(root: Path, memory_dir: str) -> list[str]:
    """Repo-relative paths of every markdown file in the drawers, found without reading any."""
    found = []
    memory = root / memory_dir
    for drawer in sorted(os.listdir(memory)) if memory.is_dir() else ():
        folder = memory / drawer
        if not folder.is_dir():
            continue
        for name in sorted(os.listdir(folder)):
            if name.endswith(".md") and (folder / name).is_file():
                found.append(f"{memory_dir}/{drawer}/{name}")
    return found


def snapshot_before_verify(root: Path, command: str = "verify") -> None:
    """Called first thing by verify and find: in an experiment clone, note the access times
    and which command is about to read."""
    import json

    try:
        key = load_key(root)  # None outside an experiment clone
        if key is None:
            return
        # The files plant reset (an A/B arm adds the skill's), else the drawers' today.
        files = key.get("atime", {}).get("files") or memory_files(root, key["memory_dir"])
        atimes = {}
        for relpath in files:
            try:
                atimes[relpath] = (root / relpath).stat().st_atime_ns
            except OSError:
                continue  # removed since plant
    except (OSError, ValueError, KeyError):
        return  # a broken snapshot only costs the experiment, never verify
    shot = json.dumps({"at_ns": time.time_ns(), "command": command, "atimes": atimes})
    from .errors import UsageError  # an experiment clone only: verify elsewhere skips this
    from .safe_open import open_fd

    for path in snapshots_paths(root):
        try:
            # One snapshot per line. The fallback sits in the shared temp folder under a
            # name anyone can guess: never follow a link someone else put there.
            descriptor = open_fd(path.parent, path, os.O_WRONLY | os.O_APPEND, mode=0o600)
            with os.fdopen(descriptor, "a", encoding="utf-8") as log:
                log.write(shot + "\n")
            return
        except (OSError, UsageError):
            continue
