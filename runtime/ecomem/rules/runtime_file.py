"""The runtime file against its release's record: `scripts/eco_mem.pyz` beside the
`eco_mem.pyz.sha256` the install rendered from the very bytes it copied.

Every host on a release holds the same runtime bytes. A file whose sha256 is not the
recorded one was edited, half upgraded, or changed by a commit; and a `.py` file in
the skill folder is Python of ours that no release ships (the old source tree left
behind, or one a branch added) and that a host's tools would lint. Verify names both.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .. import protocol
from ..findings import ERROR, Finding

RUNTIME = "eco_mem.pyz"
RECORD = f"{RUNTIME}.sha256"


def runtime_file_findings(root: Path) -> list[Finding]:
    skill = protocol.SKILL_DIR
    scripts = Path(root, skill, "scripts")
    findings = []
    record_path = f"{skill}/scripts/{RECORD}"
    runtime_path = f"{skill}/scripts/{RUNTIME}"
    try:
        recorded = (scripts / RECORD).read_text(encoding="utf-8", errors="replace").split()
    except OSError:
        recorded = None
    named = [name.lstrip("*") for name in recorded[1:]] if recorded else []  # sha256sum -b
    if recorded is None or named != [RUNTIME] or not _is_sha256(recorded[0]):
        # No record, or none that names a hash: a branch that changed the runtime could
        # delete it. Only a skill without the runtime file (an older release) needs none.
        if recorded is not None or os.path.lexists(scripts / RUNTIME):
            state = "missing" if recorded is None else "not `<sha256>  eco_mem.pyz`"
            message = (
                f"{record_path} is {state}: the runtime file's bytes cannot be checked;"
                " run the template's `ops.py upgrade` to restore both"
            )
            findings.append(Finding(runtime_path, 0, "runtime.hash", ERROR, message))
    else:
        actual = _running_digest(scripts / RUNTIME) or _sha256(scripts / RUNTIME)
        if actual != recorded[0]:
            findings.append(
                Finding(
                    runtime_path,
                    0,
                    "runtime.hash",
                    ERROR,
                    f"sha256 {actual or 'unreadable'} is not the release's {recorded[0]}"
                    f" ({record_path}); run the template's `ops.py upgrade` to restore it",
                )
            )
    for folder, subfolders, files in os.walk(Path(root, skill)):
        subfolders[:] = [name for name in subfolders if not name.startswith(".")]
        for name in files:
            if name.endswith(".py"):
                path = Path(folder, name).relative_to(root).as_posix()
                message = "Python source in the skill folder: no release ships one; delete it"
                findings.append(Finding(path, 0, "runtime.source", ERROR, message))
    return findings


def _is_sha256(text: str) -> bool:
    return len(text) == 64 and all(char in "0123456789abcdef" for char in text)


def _running_digest(path: Path) -> str:
    """The entry's hash of `path` when it is the runtime file this run started from,
    unchanged since (__main__.py's known_digest), else "": the entry hashed it already."""
    known = getattr(sys.modules.get("__main__"), "known_digest", None)
    return known(path) if callable(known) else ""


def _sha256(path: Path) -> str:
    try:
        from _sha2 import sha256  # Python 3.12+; hashlib would load OpenSSL first
    except ImportError:
        try:
            from _sha256 import sha256
        except ImportError:
            from hashlib import sha256
    try:
        return sha256(path.read_bytes()).hexdigest()
    except OSError:
        return ""
