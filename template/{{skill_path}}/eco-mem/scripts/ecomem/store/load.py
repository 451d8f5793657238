"""Load the memory store from disk, reporting what does not fit its shape.

Loading and the structure rules are one step: to know which files are
entries we have to decide, at the same time, which ones do not belong.
Nothing outside a drawer is ever opened, and symlinks leading out of their
drawer are reported, not followed.
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import protocol
from ..findings import ERROR, WARNING, Finding
from ..paths import inside
from . import INDEX
from .catalog import Catalog, parse_catalog
from .names import is_plain_file, is_slug_file, reads_as_order, shown
from .textfile import read_lines

WORKING_IGNORE = ".gitignore"
# Local state of the memory commands, in the gitignored working drawer (see locking.py
# and transaction.py); named here so loading the store needs neither module.
WORKING_LOCK = ".eco-mem.lock"
WORKING_PENDING = ".eco-mem.pending"
# At the memory root: keeps ripgrep and other .ignore readers out of the drawers.
ROOT_FILES = (".ignore",)


# Plain classes, not dataclasses: verify runs on every commit, and importing
# dataclasses costs more than checking a full store.
class Entry:
    __slots__ = ("drawer", "lines", "name", "relpath")

    def __init__(self, drawer: str, name: str, relpath: str, lines: list[str] | None) -> None:
        self.drawer = drawer
        self.name = name  # file name inside the drawer
        self.relpath = relpath  # repository-relative, for findings
        self.lines = lines  # None when the file could not be read as text


class Drawer:
    def __init__(self, name: str, relpath: str) -> None:
        self.name = name
        self.relpath = relpath
        self.index_lines: list[str] | None = None
        self.catalog = Catalog()
        self.entries: dict[str, Entry] = {}

    @property
    def index_relpath(self) -> str:
        return f"{self.relpath}/{INDEX}"


class Store:
    def __init__(self, root: Path, relpath: str) -> None:
        self.root = root
        self.relpath = relpath
        self.drawers: dict[str, Drawer] = {}


def load_store(root: Path, memory_dir: str = protocol.MEMORY_DIR) -> tuple[Store, list[Finding]]:
    store = Store(root, memory_dir)
    memory = root / memory_dir
    if not memory.is_dir():
        message = "memory folder not found; run `copier copy` again or pass --root"
        return store, [Finding(memory_dir, 0, "structure.missing-root", ERROR, message)]
    findings: list[Finding] = []
    for child in sorted(os.scandir(memory), key=lambda item: item.name):
        relpath = f"{memory_dir}/{shown(child.name)}"
        if child.name in ROOT_FILES and child.is_file(follow_symlinks=False):
            continue
        if child.is_dir(follow_symlinks=False):
            if child.name not in protocol.DRAWERS:
                message = f"a fifth memory folder; move its entries into one of {', '.join(protocol.DRAWERS)}"
                findings.append(Finding(relpath, 0, "structure.extra-directory", ERROR, message))
        else:
            message = "only the four drawer folders belong at the memory root; move it into one"
            findings.append(Finding(relpath, 0, "structure.stray-file", ERROR, message))
    for name in protocol.DRAWERS:
        drawer = Drawer(name, f"{memory_dir}/{name}")
        store.drawers[name] = drawer
        findings.extend(_load_drawer(memory / name, drawer))
    return store, findings


def _stray(relpath: str) -> Finding:
    return Finding(
        relpath,
        0,
        "structure.stray-file",
        ERROR,
        "only markdown entries belong in memory; move or delete it",
    )


def _not_a_slug(relpath: str, name: str) -> Finding:
    """A name that is not a slug. Plain ASCII (`API-notes.md`, as stores written before
    the slug rule may hold) is a warning and the file is read and judged; a name with any
    other character, or that reads as an order, is an error and the file is not read.
    Either way the name is never printed (names.shown)."""
    rename = "rename it (`ls -b` shows the name) and update its row"
    if reads_as_order(name[:-3]):
        message = f"file name reads as an order to the agent; {rename}"
        return Finding(relpath, 0, "structure.name-not-slug", ERROR, message)
    if is_plain_file(name):
        message = (
            "file name is not a slug (lower-case letters, digits and single dashes, then .md);"
            f" {rename}: `git mv` it to the slug `new` would give its title"
        )
        return Finding(relpath, 0, "structure.name-not-slug", WARNING, message)
    message = (
        "file name is not a slug (lower-case letters, digits and single dashes, then"
        f" .md); {rename}"
    )
    return Finding(relpath, 0, "structure.name-not-slug", ERROR, message)


def _load_drawer(folder: Path, drawer: Drawer) -> list[Finding]:
    if not folder.is_dir() or folder.is_symlink():
        return [
            Finding(
                drawer.relpath,
                0,
                "structure.missing-drawer",
                ERROR,
                "drawer folder missing; recreate it with its INDEX.md",
            )
        ]
    findings: list[Finding] = []
    for item in sorted(os.scandir(folder), key=lambda child: child.name):
        # A name is printed only when it is plain: it is text a commit chose (names.py).
        relpath = f"{drawer.relpath}/{shown(item.name)}"
        if item.is_symlink() and not inside(Path(item.path), folder):
            message = (
                "symlink leading out of its drawer; it is not read. Replace it with a real file"
            )
            findings.append(Finding(relpath, 0, "drift.path-escapes", ERROR, message))
            continue
        if drawer.name == "working" and item.name == WORKING_LOCK:
            continue
        if drawer.name == "working" and item.name == WORKING_PENDING:
            message = "an eco_mem.py write stopped halfway; the next memory command (find will do) rolls it back"
            findings.append(Finding(relpath, 0, "structure.interrupted-write", ERROR, message))
            continue
        if item.is_dir():
            message = "drawers are flat; move the files up into the drawer or delete the folder"
            findings.append(Finding(relpath, 0, "structure.extra-directory", ERROR, message))
            continue
        if item.name == WORKING_IGNORE and drawer.name == "working":
            continue
        if not item.name.endswith(".md"):
            findings.append(_stray(relpath))
            continue
        if item.name != INDEX and not is_slug_file(item.name):
            findings.append(_not_a_slug(relpath, item.name))
            if findings[-1].severity == ERROR:
                continue  # not read: no rule, command or digest meets such a name
        if not item.is_file() and os.path.exists(item.path):
            # A FIFO or device named *.md would block or stream forever if opened.
            message = "not a regular file; replace it with a markdown file"
            findings.append(Finding(relpath, 0, "structure.stray-file", ERROR, message))
            continue
        lines, problems = read_lines(item.path, relpath)
        findings.extend(problems)
        if item.name == INDEX:
            drawer.index_lines = lines
        else:
            drawer.entries[item.name] = Entry(drawer.name, item.name, relpath, lines)
    if drawer.index_lines is None:
        if not (folder / INDEX).exists():
            message = "INDEX.md missing; restore it with `copier update` or the upgrade command"
            findings.append(
                Finding(drawer.index_relpath, 0, "structure.missing-index", ERROR, message)
            )
        return findings
    drawer.catalog = parse_catalog(drawer.index_lines)
    return findings
