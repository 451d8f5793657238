"""Where an experiment clone keeps what the agent must not see: inside `.git/`.

Agents read the work tree, not git's own folder, so the answer key and the access-time
snapshots live there, and no file in the work tree gives the experiment away.
"""

from __future__ import annotations

from pathlib import Path

from ecomem.experiment_clone import key_path, snapshots_paths
from ecomem.experiment_clone import load_key as load

KINDS = ("recall", "laundering", "injection")
# The clone writes the key and snapshots where its own runtime reads them.
__all__ = ["KINDS", "load", "save", "snapshots_paths"]


def save(root: Path, key: dict) -> None:
    import json

    from ecomem.safe_open import write_text

    path = key_path(root)
    write_text(path.parent, path, json.dumps(key, indent=2) + "\n")
