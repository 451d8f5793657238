"""The host tools' settings eco-mem ships into the skill folder, held to the release.

`.prettierrc.yaml`, `biome.jsonc` and the rest tell a host's formatters and linters to
leave the vendored skill alone. An edit of one (a prettier `plugins:` line) would have
those tools run what it names, in every developer's and CI's run: so each holds the
release's bytes, as those at every store's root do (store/load.py). What is shipped,
and where, is one table: contracts.SHIPPED_TOOL_FILES.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import protocol
from ..findings import Finding
from ..store.contracts import tool_files
from ..store.load import held_to_release

# The skill's folders, by their place in SHIPPED_TOOL_FILES (the memory roots are
# checked where each store is loaded).
FOLDERS = {"skill": "", "scripts": "scripts"}


def tool_settings_findings(root: Path) -> list[Finding]:
    findings: list[Finding] = []
    for place, below in FOLDERS.items():
        folder = "/".join(filter(None, (protocol.SKILL_DIR, below)))
        for name, text in tool_files(place, protocol.SKILL_DIR).items():
            path = os.path.join(root, folder, name)
            if os.path.isfile(path) and not os.path.islink(path):
                findings += held_to_release(path, f"{folder}/{name}", text)
            elif os.path.lexists(path):
                findings += held_to_release(os.devnull, f"{folder}/{name}", text)
    return findings
