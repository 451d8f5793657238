"""The environment of every process that renders or runs template code for the fleet.

The fleet's own process holds the organisation's token: its push needs it.
A render imports the template's Jinja extensions, and eco-mem's scripts read
repository data; neither needs a credential, so they never get one. They run
with a short allow-list of variables (any name not on it, a token's included,
stays behind) and a HOME of their own, empty, so no credential file under the
operator's home (git's credential store, .netrc, gh's hosts file) is found by
its usual path either. git still needs an identity to commit: the operator's
is passed by value.
"""

from __future__ import annotations

import os
import subprocess

# Names a render or a script needs to run at all; nothing that carries a secret.
KEPT = ("PATH", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT", "TERM")
# The locale's categories by name (POSIX's and glibc's): any other LC_ name is kept out,
# as `LC_DEPLOY_TOKEN` would be by the rest of the list.
LOCALE = tuple(
    f"LC_{category}"
    for category in (
        "ALL", "COLLATE", "CTYPE", "MESSAGES", "MONETARY", "NUMERIC", "TIME",
        "ADDRESS", "IDENTIFICATION", "MEASUREMENT", "NAME", "PAPER", "TELEPHONE",
    )
)  # fmt: skip
IDENTITY = ("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")


def _identity() -> dict[str, str]:
    """The operator's git identity, from the environment or their git config."""
    found = {name: os.environ[name] for name in IDENTITY if os.environ.get(name)}
    for key, names in (("user.name", IDENTITY[0::2]), ("user.email", IDENTITY[1::2])):
        if all(name in found for name in names):
            continue
        asked = subprocess.run(["git", "config", "--get", key], capture_output=True, text=True)
        value = asked.stdout.strip() or "eco-mem fleet"
        for name in names:
            found.setdefault(name, value)
    return found


def clean_environment(home: str) -> dict[str, str]:
    """The allow-listed environment, with `home` (an empty folder) as HOME."""
    kept = {name: value for name, value in os.environ.items() if name in KEPT or name in LOCALE}
    return {
        **kept,
        **_identity(),
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "XDG_CACHE_HOME": os.path.join(home, ".cache"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
    }
