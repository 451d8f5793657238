"""Where an experiment clone keeps what the agent must not see: inside `.git/`.

Agents read the work tree, not git's own folder, so the answer key and the access-time
snapshots live there, and no file in the work tree gives the experiment away.
"""

from __future__ import annotations

from pathlib import Path

from . import KEY_NAME

SNAPSHOTS_NAME = "eco-mem-atimes.json"
KINDS = ("recall", "laundering", "injection")


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


def load(root: Path) -> dict | None:
    """The clone's answer key, or None when `root` is not an experiment clone."""
    path = key_path(root)
    if not path.is_file():
        return None
    import json  # verify imports this module on every run, and rarely needs json

    return json.loads(path.read_text(encoding="utf-8"))


def save(root: Path, key: dict) -> None:
    import json

    from ..safe_open import write_text

    path = key_path(root)
    write_text(path.parent, path, json.dumps(key, indent=2) + "\n")
