"""Which repository a command acts on, and how a path is shown to the person who ran it.

The repository is the git work tree the script is installed in, never a folder reached
by resolving links: with `.claude/skills -> ../skills` the script's real path is
`<root>/skills/eco-mem/scripts`, and climbing from there leaves the repository. So the
root is found from the script's own path as it was typed (`installed_root`), links
kept: the closest folder above it whose answers file places the skill at this very
script.

Commands print repository paths relative to the folder they ran in (`shown`), so a
path printed in `packages/ai` opens from `packages/ai`.
"""

from __future__ import annotations

import os
import sys

from . import protocol

RUNTIME_FILE = "eco_mem.pyz"


def script_path() -> str:
    """eco_mem.pyz as invoked, absolute, links kept.

    The package runs from an unpacked copy in the user's cache (__main__.py), whose
    path says nothing of the repository; `__main__` is loaded from the archive by the
    path the user typed, links kept: `<that path>/__main__.py`.
    """
    main = getattr(sys.modules.get("__main__"), "__file__", None) or ""
    archive = os.path.dirname(main)
    if os.path.basename(main) != "__main__.py" or os.path.basename(archive) != RUNTIME_FILE:
        # Imported some other way (a test, the operator): the package's own place.
        archive = os.path.join(os.path.dirname(os.path.dirname(__file__)), RUNTIME_FILE)
    return os.path.abspath(archive)


def installed_root() -> str:
    """The repository this script is installed in (see the module docstring): the
    closest folder above it whose answers file puts the skill where the script is."""
    from .answers_file import read_answers

    script = script_path()
    folder = os.path.dirname(script)
    while os.path.dirname(folder) != folder:
        folder = os.path.dirname(folder)
        answers = os.path.join(folder, protocol.ANSWERS_FILE)
        if not os.path.isfile(answers):
            continue
        try:
            with open(answers, encoding="utf-8", errors="replace") as handle:
                skill = read_answers(handle.read(64 * 1024)).get("skill_path")
        except OSError:
            continue
        # `.claude/skills/eco-mem/...` is the same script by a link: compare files.
        if isinstance(skill, str) and _same_file(
            os.path.join(folder, skill, "eco-mem", "scripts"), script
        ):
            return folder
    toplevel = _git_toplevel(os.path.dirname(script))
    # No answers file says where: the work tree, else the folder above the skill's.
    return toplevel or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(script))))


def _git_toplevel(folder: str) -> str:
    from .git import run_git

    try:
        code, output = run_git(folder, "rev-parse", "--show-toplevel")
    except OSError:
        return ""
    return output.decode("utf-8", "surrogateescape").strip() if code == 0 else ""


def _same_file(scripts: str, script: str) -> bool:
    try:
        return os.path.samefile(os.path.join(scripts, RUNTIME_FILE), script)
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
