"""Where a folder answer really is in the host, links and all.

Agent-heavy repositories share one skills folder between harnesses with links:
`.claude/skills -> ../.agents/skills`, or vercel/ai's `.agents/skills -> ../skills`
beside `.claude/skills -> ../skills`. Copier renders through such a link, and when
the Claude Code folder and the skill folder are one folder, the Claude link would be
rendered onto the skill itself. So, before Copier renders anything:

- `real_folder` gives the folder a path leads to (repo-relative): the skill's default
  is where `.agents/skills` really is, so the skill is installed once, there.
- `claude_skills_folder` is where `.claude/skills` really is; the Claude link is
  rendered there, and not at all when that folder is the skill folder already.
- `layout_problem` refuses a folder that leads out of the repository (nothing may be
  written outside it), one whose real path is in `.git` in any letter case (git runs
  what is there, and what eco-mem renders is committed), and a newly answered path
  that goes through a link (the answer to give is the folder the link leads to).
"""

from __future__ import annotations

import errno
import importlib.util
import os
import sys
from pathlib import Path

from jinja2 import Environment
from jinja2.ext import Extension

CLAUDE_SKILLS = ".claude/skills"


def _load_is_git_dir():
    """The rendered scripts' own `.git` name rule (ecomem/path_rule.py), loaded by its
    file as extensions/protocol.py loads it: what the install refuses, the scripts refuse."""
    file = Path(__file__).resolve().parents[1] / "runtime" / "ecomem" / "path_rule.py"
    spec = importlib.util.spec_from_file_location("eco_mem_path_rule", file)
    module = importlib.util.module_from_spec(spec)
    # No bytecode cache: it would land beside path_rule.py in Copier's clone of the
    # template, and Copier renders that folder, cache included, into the host.
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module.is_git_dir


is_git_dir = _load_is_git_dir()


def _real(dst: str, path: str) -> tuple[str, str | None]:
    """(the real destination, `path`'s real folder repo-relative or None when it leaves)."""
    real_root = os.path.realpath(dst)
    real = os.path.realpath(os.path.join(dst, path))
    if real == real_root:
        return real_root, "."
    if real.startswith(real_root.rstrip(os.sep) + os.sep):
        return real_root, Path(os.path.relpath(real, real_root)).as_posix()
    return real_root, None


def real_folder(copier_conf, path: str) -> str:
    """`path` with the links in the destination resolved; as given when it leaves the
    repository (layout_problem refuses it then) or is not a usable path."""
    if not isinstance(path, str) or not path or os.path.isabs(path):
        return path
    return _real(str(copier_conf["dst_path"]), path)[1] or path


def leads_out(copier_conf, path: str) -> str:
    """Where `path` leads when a link takes it out of the destination, else ""."""
    dst = str(copier_conf["dst_path"])
    if _real(dst, path)[1] is not None:
        return ""
    return os.path.realpath(os.path.join(dst, path))


def in_git_dir(copier_conf, path: str) -> str:
    """The real folder `path` leads to (repo-relative) when any part of it, as written or
    with links resolved, is a name a file system reads as `.git`, else ""."""
    if not isinstance(path, str) or not path or os.path.isabs(path):
        return ""
    real = _real(str(copier_conf["dst_path"]), path)[1]
    if real is None:
        return ""  # leads out: refused as that
    return real if any(map(is_git_dir, (*Path(path).parts, *Path(real).parts))) else ""


def link_loop(copier_conf, path: str) -> str:
    """The first part of `path` in the destination that is a symlink loop, or "": Copier
    resolves each path it renders and would stop on one with a traceback."""
    if not isinstance(path, str) or not path or os.path.isabs(path):
        return ""
    here = str(copier_conf["dst_path"])
    for part in Path(path).parts:
        here = os.path.join(here, part)
        try:
            os.stat(here)
        except OSError as error:
            if error.errno == errno.ELOOP:
                return os.path.relpath(here, str(copier_conf["dst_path"]))
            return ""  # missing from here on: Copier makes it
    return ""


def layout_problem(copier_conf, path: str, recorded: str | None = None) -> str:
    """Why folder answer `path` cannot be installed in this destination, or "".

    `recorded` is the answer an existing install has: an install made through a
    link before this check existed keeps working where it is.
    """
    loop = link_loop(copier_conf, path)
    if loop:
        return f"{path}: {loop} is a symlink loop; point it at a folder or remove it"
    outside = leads_out(copier_conf, path)
    if outside:
        return (
            f"{path} leads out of the repository through a symlink (to {outside});"
            " eco-mem writes only inside the repository"
        )
    git_dir = in_git_dir(copier_conf, path)
    if git_dir:
        return f"{path} is inside .git (its real path is {git_dir}); eco-mem writes nothing there"
    real = real_folder(copier_conf, path)
    if real != path and path != recorded:
        return (
            f"{path} is a symlink to {real} in this repository; answer {real}, so the"
            " skill is installed once, where the link leads"
        )
    return ""


def claude_skills_folder(copier_conf) -> str:
    """Where Claude Code's `.claude/skills` really is in the destination."""
    return real_folder(copier_conf, CLAUDE_SKILLS)


def claude_problem(copier_conf, claude_code: object) -> str:
    """Why the Claude Code link cannot be made here, or ""."""
    if not claude_code:
        return ""
    loop = link_loop(copier_conf, CLAUDE_SKILLS)
    if loop:
        return (
            f"{loop} is a symlink loop; point it at a folder or remove it, or answer"
            " claude_code=false"
        )
    git_dir = in_git_dir(copier_conf, CLAUDE_SKILLS)
    if git_dir:
        return (
            f"{CLAUDE_SKILLS} is inside .git (its real path is {git_dir}); eco-mem writes"
            " nothing there: answer claude_code=false, or make it a folder of the repository"
        )
    outside = leads_out(copier_conf, CLAUDE_SKILLS)
    if not outside:
        return ""
    return (
        f"{CLAUDE_SKILLS} leads out of the repository through a symlink (to {outside});"
        " answer claude_code=false, or make that folder part of the repository"
    )


WORKFLOWS = ".github/workflows"


def ci_problem(copier_conf, ci: object) -> str:
    """Why the CI workflow cannot be rendered here (its folder leads into `.git` or out
    of the repository), or ""."""
    if ci != "github-actions":
        return ""
    loop = link_loop(copier_conf, WORKFLOWS)
    if loop:
        return f"{loop} is a symlink loop; point it at a folder or remove it, or answer ci=none"
    if in_git_dir(copier_conf, WORKFLOWS):
        return f"{WORKFLOWS} is inside .git; eco-mem writes nothing there: answer ci=none"
    outside = leads_out(copier_conf, WORKFLOWS)
    if outside:
        return f"{WORKFLOWS} leads out of the repository through a symlink (to {outside})"
    return ""


class LayoutExtension(Extension):
    """Expose the layout helpers to copier.yml."""

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.filters["real_folder"] = real_folder
        environment.filters["layout_problem"] = layout_problem
        environment.filters["claude_skills_folder"] = claude_skills_folder
        environment.filters["claude_problem"] = claude_problem
        environment.filters["ci_problem"] = ci_problem
