"""Taking the catalog merge driver out of a clone: the operator's alone (uninstall).

The runtime writes the driver (`ecomem.gitsetup.driver.ensure_driver`, run by `track`);
no host command ever removes it, so its removal lives here, reading the driver
module's own names for its config section and its copies.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ecomem.git import git_dirs, output
from ecomem.git_home import safe_home
from ecomem.gitsetup import driver
from ecomem.safe_open import UnsafeTarget


def remove_driver(root: Path) -> bool:
    """Take the driver out of the clone: its config section and every copy. Git then
    merges the catalogs as plain text. True if there was anything to remove."""
    dirs = git_dirs(root)
    if dirs is None:
        return False
    config = dirs[1] / "config"
    removed = False
    if driver._configured(config):
        # One write under git's lock; it removes every section of that name.
        output(
            config.parent,
            "config",
            "--file",
            os.fspath(config),
            "--remove-section",
            f"merge.{driver.DRIVER}",
        )
        removed = True
    folder = dirs[1] / driver.HOME
    try:
        safe_home(root, dirs[1])
    except UnsafeTarget:
        # A link there leads where a commit writes: the link goes, never what it holds.
        if folder.is_symlink():
            folder.unlink()
            removed = True
        return removed
    if folder.is_dir():
        removed = removed or bool(driver._copies(folder))
        driver._prune(folder, None)
        # The launcher, the writers' lock (git_home.py) and the template this clone
        # trusts (template_source.py): with the driver gone, eco-mem leaves the clone.
        for state in (driver.RESOLVE, driver.CONTEXT, "write.lock", "template-source", "written"):
            with contextlib.suppress(FileNotFoundError):
                (folder / state).unlink()
        with contextlib.suppress(OSError):  # kept when it holds anything else
            folder.rmdir()
    return removed
