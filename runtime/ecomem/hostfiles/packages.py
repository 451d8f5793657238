"""Package stores: the four drawers in a package of a monorepo, served by the one skill.

`init PATH` writes `PATH/<memory_dir>/` (the INDEX contracts the root's are rendered
from, the working drawer's ignore rule, the search-ignore file) and a block in
`PATH/AGENTS.md`; `blocks` keeps both current in every package store, rows kept byte
for byte (the operator's catalog-migrate reshapes their rows: eco_mem_ops/install/migrate.py). No second copy of the skill: the block points at the root's.
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from .. import protocol
from ..errors import UsageError
from ..gitsetup.markers import BlockError, upsert_block
from ..path_rule import is_git_dir
from ..safe_open import make_folders, replace, write_text
from ..store import INDEX, contracts, stores
from .blocks import (
    CLAUDE_BLOCK,
    MARKDOWN_MARKERS,
    _one_file,
    _read,
    claude_imports_agents,
    fitted,
    markdown_shape,
)

SEARCH_IGNORE = ".ignore"
WORKING_IGNORE = ".gitignore"


def package_contract(memory_dir: str, drawer: str) -> str:
    return contracts.contract(memory_dir, drawer)


def package_block(memory_dir: str) -> list[str]:
    """The AGENTS.md block of a package store: where its memory is, whose skill reads it."""
    package = stores.package_of(memory_dir)
    skill = posixpath.relpath(protocol.SKILL_DIR, package)
    return markdown_shape(
        [
            "## Agent memory (eco-mem): this package",
            "",
            f"This package's memory is `{stores.ROOT}/` here"
            f" (`{memory_dir}/` from the root); the rules are the repository's one skill,"
            f" `{skill}/SKILL.md`.",
            f"Memory commands run in this folder act on this store (`--store {package}` from"
            " elsewhere); `find` reads it first, then each store above it up to the root's.",
            f"Verify after changing memory: `python3 {skill}/scripts/eco_mem.pyz verify`",
        ]
    )


def package_folder(root: Path, given: str) -> str:
    """The repo-relative package folder `init PATH` names (relative to the working
    folder); UsageError when it cannot hold a store."""
    here = stores.working_folder(root)
    text = given.replace(os.sep, "/")
    if text.startswith("/") or (len(text) > 1 and text[1] == ":"):
        absolute = os.path.realpath(text)
        top = os.path.realpath(root)
        if not absolute.startswith(top.rstrip(os.sep) + os.sep):
            raise UsageError(f"init {given}: not inside the repository")
        text = os.path.relpath(absolute, top).replace(os.sep, "/")
    else:
        text = posixpath.normpath(posixpath.join(here, text))
    if text in (".", ""):
        raise UsageError(f"init {given}: that is the root, whose store copier installs")
    parts = text.split("/")
    if parts[0] == ".." or any(map(is_git_dir, parts)):
        raise UsageError(f"init {given}: name a folder inside the repository, outside .git")
    if not stores.is_store_package(text):
        raise UsageError(
            f"init {given}: a package path is ASCII letters, digits, '.', '_' and '-' per"
            " part (no leading '-', no order to the agent)"
        )
    for owned, what in ((protocol.SKILL_DIR, "the skill"), (stores.ROOT, "a memory folder")):
        if text == owned or text.startswith(owned + "/") or f"/{owned}/" in f"/{text}/":
            raise UsageError(f"init {given}: lies inside {what} ({owned})")
    folder = root / text
    if not folder.is_dir() or folder.is_symlink():
        raise UsageError(f"init {given}: not a folder of the repository (a link is refused)")
    return text


def store_files(memory_dir: str) -> dict[str, str]:
    """Every file a package store starts with, repo-relative, and its text."""
    files = {
        f"{memory_dir}/{drawer}/{INDEX}": package_contract(memory_dir, drawer)
        for drawer in protocol.DRAWERS
    }
    files[f"{memory_dir}/working/{WORKING_IGNORE}"] = contracts.WORKING_IGNORE
    files[f"{memory_dir}/{SEARCH_IGNORE}"] = contracts.search_ignore(protocol.SKILL_DIR)
    for name, text in contracts.TOOL_FILES.items():
        files[f"{memory_dir}/{name}"] = text
    return files


def write_store(root: Path, memory_dir: str) -> list[str]:
    """Create the files of the store at `memory_dir` that are missing; return them."""
    created = []
    for relpath, text in store_files(memory_dir).items():
        path = root / relpath
        if os.path.lexists(path):
            continue  # the team's file now: `blocks` refreshes contracts, never rows
        make_folders(root, path.parent)
        replace(root, path, text.encode("utf-8"))
        created.append(relpath)
    return created


def plan_package_block(root: Path, memory_dir: str) -> list[tuple[Path, str, str]]:
    """(file, its text, its text with the block) for `PACKAGE/AGENTS.md`, and for the
    @AGENTS.md import in a CLAUDE.md there as at the root. Writes nothing; UsageError
    for markers that cannot take the block."""
    package = root / stores.package_of(memory_dir)
    agents, claude = package / "AGENTS.md", package / "CLAUDE.md"
    plans = []
    try:
        old = _read(root, agents)
        name = agents.relative_to(root).as_posix()
        plans.append(
            (
                agents,
                old,
                upsert_block(
                    old, fitted(old, package_block(memory_dir), name), name, MARKDOWN_MARKERS
                ),
            )
        )
        if (
            protocol.CLAUDE_CODE
            and not _one_file(claude, agents)
            and not claude_imports_agents(package)
        ):
            old = _read(root, claude)
            name = claude.relative_to(root).as_posix()
            block = fitted(old, CLAUDE_BLOCK, name)
            plans.append((claude, old, upsert_block(old, block, name, MARKDOWN_MARKERS)))
    except BlockError as error:
        raise UsageError(str(error)) from None
    return plans


def write_package_block(root: Path, memory_dir: str, plans: list | None = None) -> list[str]:
    """Write the planned block (every host byte outside it kept); the files changed."""
    changed = []
    for path, old, new in plans if plans is not None else plan_package_block(root, memory_dir):
        if new != old:
            write_text(root, path, new, follow=True)
            changed.append(path.relative_to(root).as_posix())
    return changed
