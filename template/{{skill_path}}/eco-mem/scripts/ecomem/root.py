"""Which repository a command acts on, and how a path is shown to the person who ran it.

The repository is the git work tree the script is installed in, never a folder reached
by resolving links: with `.claude/skills -> ../skills` the script's real path is
`<root>/skills/eco-mem/scripts`, and climbing the skill folder's depth from there
leaves the repository. So the root is found from the script's own path as it was
typed (`installed_root`), links kept, and checked: the folder found must hold the
answers file, or git must say it is the work tree holding this very script.

Commands print repository paths relative to the folder they ran in (`shown`), so a
path printed in `packages/ai` opens from `packages/ai`.
"""

from __future__ import annotations

import os
import sys

from . import protocol


def script_path() -> str:
    """eco_mem.py as invoked, absolute, links kept.

    Python puts the script's *resolved* folder on sys.path, so this package's own
    __file__ has lost the links the user's path went through; `__main__`'s has not.
    """
    script = getattr(sys.modules.get("__main__"), "__file__", None)
    if not script or os.path.basename(script) != "eco_mem.py":
        # Imported some other way (a test, `python -m`): the package's own place.
        script = os.path.join(os.path.dirname(os.path.dirname(__file__)), "eco_mem.py")
    return os.path.abspath(script)


def installed_root() -> str:
    """The repository this script is installed in (see the module docstring)."""
    script = script_path()
    skill = protocol.SKILL_DIR.split("/")
    folders = os.path.dirname(script).split(os.sep)  # ... <skill dir parts> scripts
    if folders[-len(skill) - 1 :] == [*skill, "scripts"]:
        candidate = os.sep.join(folders[: -len(skill) - 1]) or os.sep
        # `.claude/skills/eco-mem/...` also ends in `skills/eco-mem`: the answers
        # file tells the real root from a folder inside it.
        if os.path.isfile(os.path.join(candidate, protocol.ANSWERS_FILE)):
            return candidate
    toplevel = _git_toplevel(os.path.dirname(script))
    if toplevel and _same_file(os.path.join(toplevel, protocol.SKILL_DIR, "scripts"), script):
        return toplevel
    # No git, no answers file: the old rule, on the resolved path.
    here = os.path.dirname(os.path.realpath(script))
    for _ in range(len(skill) + 1):
        here = os.path.dirname(here)
    return here


def _git_toplevel(folder: str) -> str:
    from .git import run_git

    try:
        code, output = run_git(folder, "rev-parse", "--show-toplevel")
    except OSError:
        return ""
    return output.decode("utf-8", "surrogateescape").strip() if code == 0 else ""


def _same_file(scripts: str, script: str) -> bool:
    try:
        return os.path.samefile(os.path.join(scripts, "eco_mem.py"), script)
    except OSError:
        return False


def shown(root, relpath: str) -> str:
    """`relpath` (repository-relative, POSIX) as the caller can open it from the folder
    they are in: unchanged at the root or outside the repository, else relative."""
    try:
        here = os.getcwd()
    except OSError:
        return relpath
    base = os.path.abspath(os.fspath(root))
    if here == base or not _within(here, base):
        real_here, real_base = os.path.realpath(here), os.path.realpath(base)
        if real_here == real_base or not _within(real_here, real_base):
            return relpath
        here, base = real_here, real_base
    return os.path.relpath(os.path.join(base, relpath), here).replace(os.sep, "/")


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
