"""Which store a command acts on: the root's, or a package's (`eco_mem.pyz init PATH`).

A monorepo may hold one store per package at `PACKAGE/<memory_dir>/`, beside the
root's `<memory_dir>/`; one skill serves them all. Stores are found from git's index
(the drawer INDEX files git tracks or has staged), never by walking the tree: a
repository of thousands of folders costs one `git ls-files`.

A store is named by its memory folder, repo-relative (`packages/web/.agents/memory`);
its package is the folder that holds it ("" for the root). The closest store to the
working folder is the default, as the closest AGENTS.md is.

Commands read `protocol.MEMORY_DIR` as "the store in use": `use()` switches it, so
every reader and writer (caps, slugs, catalogs, desks, the lock) follows the chosen
store without a second code path. `stores.ROOT` is the root's.
"""

from __future__ import annotations

import os
import posixpath

from .. import protocol
from . import INDEX
from .names import reads_as_order

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (it loads re)
if TYPE_CHECKING:
    # Annotations only: `context` finds stores without paying for pathlib.
    from pathlib import Path


def __getattr__(name: str):
    """`stores.ROOT`: the root's store, known once store.answers.settle has run."""
    if name == "ROOT":
        return protocol.ROOT_MEMORY_DIR
    raise AttributeError(name)


def package_of(memory_dir: str) -> str:
    """The package folder that holds `memory_dir`: "" for the root store."""
    if memory_dir == protocol.ROOT_MEMORY_DIR:
        return ""
    return memory_dir[: -len(protocol.ROOT_MEMORY_DIR) - 1]


def memory_of(package: str) -> str:
    return f"{package}/{protocol.ROOT_MEMORY_DIR}" if package else protocol.ROOT_MEMORY_DIR


def label(memory_dir: str) -> str:
    """How output names a store: its package folder, or `root`."""
    return package_of(memory_dir) or "root"


def _glob_escape(text: str) -> str:
    return "".join("\\" + char if char in "*?[\\" else char for char in text)


_KNOWN: dict[str, list[str]] = {}  # root -> its package stores, asked of git once a run
_REFUSED: dict[str, int] = {}  # root -> how many candidates failed is_store_package
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def is_store_package(package: str) -> bool:
    """Whether `package`, a folder path a commit chose, may name a package store.

    The path reaches the session digest, `.gitattributes`, AGENTS.md blocks and find's
    labels, so it is held to the charset of path answers: every part ASCII letters,
    digits, `.`, `_` and `-` (after one leading `@`, an npm scope), not starting with `-`, not `.` or `..`, not `.git` in any
    case (nor `.git.`, which Windows reads as `.git`); and its words, read as a name's
    are (names.reads_as_order), give no order to the agent. A path outside this rule is never
    a store and is never printed: verify counts it (`structure.store-name`)."""
    return all(map(_plain_part, package.split("/"))) and not reads_as_order(
        package.replace("/", "-").replace("@", "")
    )


def _plain_part(part: str) -> bool:
    # One leading `@` is an npm scope (`packages/@acme/web`): no shell, git pattern or
    # markdown reads it as anything but a letter.
    name = part[1:] if part.startswith("@") else part
    return bool(
        name
        and _NAME_CHARS.issuperset(name)
        and name[0] != "-"
        and name not in (".", "..")
        and name.lower().rstrip(".") != ".git"
    )


def forget() -> None:
    """Ask git again next time: a store was just staged (`init`)."""
    _KNOWN.clear()
    _REFUSED.clear()


def package_stores(root: Path) -> list[str]:
    """Every package store git knows (tracked or staged INDEX files), sorted.

    Empty outside a git work tree or without git: then only the root store exists.
    """
    key = os.fspath(root)
    if key not in _KNOWN:
        _KNOWN[key], _REFUSED[key] = _ask_git(root)
    return _KNOWN[key]


def refused_stores(root: Path) -> int:
    """How many folders hold drawer INDEX files as a store would, under a path that
    fails is_store_package: they are ignored, and their names are never shown."""
    package_stores(root)
    return _REFUSED[os.fspath(root)]


# Variables that make git read another index or match pathspecs otherwise: then git is
# asked, since the index file read below may not be the one it would read.
_GIT_ENVIRONMENT = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")
_GIT_ENVIRONMENT += ("GIT_ICASE_PATHSPECS",)


def _index_may_list_one(root: Path) -> bool:
    """False only when git's index file shows no package store can be in it: no path
    there holds `/<memory_dir>/`. verify runs on every commit, and most repositories
    have no package store; reading the index spares them a git process (about 4 ms).

    Index versions 2 and 3 hold each path whole. Version 4 compresses paths, a split
    index keeps most entries in another file and a sparse one folds folders: for those,
    and anything unexpected, git is asked."""
    if any(os.environ.get(name) for name in _GIT_ENVIRONMENT):
        return True
    from ..git import git_dir_names  # `context` passes a str, never a Path

    dirs = git_dir_names(str(root))
    if dirs is None:
        return True
    git_dir, common = dirs
    try:
        if any(name.startswith("sharedindex.") for name in os.listdir(git_dir)):
            return True
    except OSError:
        return True
    if os.path.exists(os.path.join(common, "info", "sparse-checkout")):
        return True
    try:
        with open(os.path.join(git_dir, "index"), "rb") as handle:
            index = handle.read()
    except FileNotFoundError:
        return False  # nothing was ever staged: git would list nothing
    except OSError:
        return True
    if index[:4] != b"DIRC" or index[4:8] not in (b"\0\0\0\2", b"\0\0\0\3"):
        return True
    return f"/{protocol.ROOT_MEMORY_DIR}/".encode("utf-8", "surrogateescape") in index


def _ask_git(root: Path) -> tuple[list[str], int]:
    from ..git import run_git

    if not _index_may_list_one(root):
        return [], 0
    memory = _glob_escape(protocol.ROOT_MEMORY_DIR)
    specs = [f"*/{memory}/{drawer}/{INDEX}" for drawer in protocol.DRAWERS]
    try:
        code, out = run_git(root, "ls-files", "-z", "--cached", "--", *specs)
    except OSError:
        return [], 0
    if code != 0:
        return [], 0
    found, refused = set(), set()
    for path in out.decode("utf-8", "replace").split("\0"):
        for drawer in protocol.DRAWERS:
            tail = f"/{protocol.ROOT_MEMORY_DIR}/{drawer}/{INDEX}"
            if path.endswith(tail):
                package = path[: -len(tail)]
                # A package inside another store's memory folder is not a store.
                if not package or _inside_a_drawer(package):
                    continue
                (found if is_store_package(package) else refused).add(package)
    return sorted(memory_of(package) for package in found), len(refused)


def _inside_a_drawer(package: str) -> bool:
    parts = package.split("/")
    root_parts = protocol.ROOT_MEMORY_DIR.split("/")
    for start in range(len(parts) - len(root_parts) + 1):
        if parts[start : start + len(root_parts)] == root_parts:
            return True
    return False


def all_stores(root: Path) -> list[str]:
    """The root store first, then every package store."""
    return [protocol.ROOT_MEMORY_DIR, *package_stores(root)]


def working_folder(root: Path) -> str:
    """The process's working folder, repo-relative ("" at the root or outside it)."""
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:
        return ""
    top = os.path.realpath(root)
    if here == top or not here.startswith(top.rstrip(os.sep) + os.sep):
        return ""
    return os.path.relpath(here, top).replace(os.sep, "/")


def _contains(package: str, folder: str) -> bool:
    return not package or folder == package or folder.startswith(package + "/")


def enclosing(stores: list[str], folder: str) -> list[str]:
    """The stores whose package holds `folder`, closest first, the root's last."""
    around = [store for store in stores if _contains(package_of(store), folder)]
    return sorted(around, key=lambda store: -len(package_of(store)))


def closest(root: Path, folder: str | None = None) -> str:
    """The store a memory command acts on by default from `folder` (the working folder)."""
    folder = working_folder(root) if folder is None else folder
    if not folder:
        return protocol.ROOT_MEMORY_DIR
    return enclosing(all_stores(root), folder)[0]


def given_store(root: Path, given: str) -> str:
    """The store `--store PATH` names: a package folder or its memory folder, relative to
    the working folder or the root. UsageError when no store is there."""
    from ..errors import UsageError

    folder = working_folder(root)
    known = all_stores(root)
    for base in dict.fromkeys((folder, "")):
        candidate = posixpath.normpath(posixpath.join(base, given.replace(os.sep, "/")))
        candidate = "" if candidate == "." else candidate
        for store in (candidate, memory_of(candidate)):
            if store in known:
                return store
    names = ", ".join(label(store) for store in known)
    raise UsageError(
        f"--store {given}: no store there (stores: {names}); `eco_mem.pyz init PATH` makes one"
    )


def use(memory_dir: str) -> None:
    """Make `memory_dir` the store in use for the rest of this command."""
    protocol.MEMORY_DIR = memory_dir
