"""Load the memory store from disk, reporting what does not fit its shape.

Loading and the structure rules are one step: to know which files are
entries we have to decide, at the same time, which ones do not belong.
Nothing outside a drawer is ever opened, and links are reported, never followed:
an entry or catalog that is a link, a drawer that is one, a memory folder that a
link takes out of the repository (store/place.py).
"""

from __future__ import annotations

import os
from pathlib import Path

from .. import protocol
from ..findings import ERROR, WARNING, Finding
from ..paths import inside
from ..text.textfile import read_lines
from . import INDEX
from .catalog import Catalog, parse_catalog
from .contracts import SHIPPED_TOOL_FILES, tool_files
from .names import is_plain_file, is_slug_file, reads_as_order, shown
from .place import NESTED, OUT, refusal, refused

WORKING_IGNORE = ".gitignore"
# The lock file eco-mem kept in the working drawer before its state moved to the git
# dir (git_home.py); a clone installed earlier may still hold one. Anything else
# eco-mem did not put in memory (an old journal folder among it) is a stray: data a
# commit may hold, never state to act on.
WORKING_LOCK = ".eco-mem.lock"
OLD_JOURNAL = ".eco-mem.pending"
# At the memory root: keeps ripgrep and other .ignore readers out of the drawers, and
# tells the host's formatters and markdownlint that the commands own this folder
# (store/contracts.py holds their text).
ROOT_FILES = tuple(SHIPPED_TOOL_FILES["memory"])
# The rules of a file past the caps every reader keeps (text/textfile.py): it is not read.
OVER_CAPS = ("file.too-large", "file.line-too-long")


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
        # {folder relpath: [(name, FOLDER, LINKED_FOLDER or FILE)]} as loading listed them:
        # verify's ignore check reuses it rather than list every folder of every store again.
        self.listing: dict[str, list[tuple[str, bool]]] = {}
        # One line per folder not read because a link takes it out of its place
        # (store/place.py), and per file past the caps (textfile.py): commands that do
        # not print findings say these instead.
        self.unread: list[str] = []


def load_store(root: Path, memory_dir: str | None = None) -> tuple[Store, list[Finding]]:
    """The store at `memory_dir`, by default the store in use (store/stores.py)."""
    memory_dir = memory_dir or protocol.MEMORY_DIR
    store = Store(root, memory_dir)
    memory = root / memory_dir
    if not memory.is_dir():
        message = "memory folder not found; run `copier copy` again or pass --root"
        return store, [Finding(memory_dir, 0, "structure.missing-root", ERROR, message)]
    if refusal(root, memory_dir):  # a link out: not even listed
        store.unread.append(refused(root, memory_dir))
        return store, [_linked(memory_dir, refusal(root, memory_dir), "memory folder")]
    findings: list[Finding] = []
    children = sorted(os.scandir(memory), key=lambda item: item.name)
    store.listing[memory_dir] = [(child.name, kind_of(child)) for child in children]
    for child in children:
        relpath = f"{memory_dir}/{shown(child.name)}"
        if child.name in ROOT_FILES and child.is_file(follow_symlinks=False):
            findings += _tool_settings(child.path, relpath, child.name)
            continue
        if child.name in protocol.DRAWERS and child.is_symlink():
            continue  # a drawer that is a link: reported with the drawers below
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
        why = refusal(root, memory_dir, name)
        if why:
            store.unread.append(refused(root, memory_dir, name))
            findings.append(_linked(drawer.relpath, why, "drawer"))
            continue
        findings.extend(_load_drawer(memory / name, drawer, store.listing, store.unread))
    if memory_dir == protocol.ROOT_MEMORY_DIR:  # one journal for the clone, said once
        findings.extend(_interrupted_write(root, memory_dir))
    return store, findings


def _tool_settings(path: str, relpath: str, name: str) -> list[Finding]:
    """A host tool's settings at the memory root hold the template's bytes and nothing
    else: a commit that edited one (a prettier `plugins:` line) would have the host's own
    tools run what it names, from a folder reviewers read as data."""
    expected = tool_files("memory", protocol.SKILL_DIR).get(name)
    return [] if expected is None else held_to_release(path, relpath, expected)


def held_to_release(path: str, relpath: str, expected: str) -> list[Finding]:
    """A structure.tool-settings finding unless the file at `path` holds `expected`,
    the bytes the release ships (contracts.SHIPPED_TOOL_FILES)."""
    wanted = expected.encode("utf-8")
    try:
        with open(path, "rb") as handle:  # line ends aside: a CRLF checkout is the same file
            same = handle.read(2 * len(wanted) + 1).replace(b"\r\n", b"\n") == wanted
    except OSError:
        same = False
    if same:
        return []
    message = (
        "a host tool's settings, which eco-mem writes, were edited; host tools would act on"
        " them: restore it from the default branch (`git checkout origin/HEAD -- PATH`) or"
        " from the template (`copier update`)"
    )
    return [Finding(relpath, 0, "structure.tool-settings", ERROR, message)]


def _interrupted_write(root: Path, memory_dir: str) -> list[Finding]:
    """The journal a stopped write left in the git dir (git_home.py), reported on the
    memory folder: the files it names may hold half a write."""
    from ..git_home import leftover_journal

    journal = leftover_journal(root)
    if journal is None:
        return []
    message = (
        f"an eco_mem.pyz write stopped halfway; its journal ({journal}) holds the old"
        " versions, put back under the lock before the next write; `git status` shows"
        " what it touched"
    )
    return [Finding(memory_dir, 0, "structure.interrupted-write", ERROR, message)]


FOLDER, LINKED_FOLDER, FILE = "folder", "linked folder", "file"


def kind_of(item: os.DirEntry) -> str:
    """FOLDER, LINKED_FOLDER (a link to a folder) or FILE (anything else)."""
    if item.is_dir(follow_symlinks=False):
        return FOLDER
    return LINKED_FOLDER if item.is_dir() else FILE


def _linked(relpath: str, why: str, what: str) -> Finding:
    """A memory folder or drawer that is not read: a link takes it out of its place."""
    if why == NESTED:
        message = (
            f"the {what} {why}, so nothing in it is read: this repository's memory lives in"
            " its own history; `git rm` the submodule, then `copier update` puts the INDEX files back"
        )
        return Finding(relpath, 0, "structure.nested-repository", ERROR, message)
    rule = "drift.path-escapes" if why == OUT else "structure.link"
    message = (
        f"the {what} {why}, so nothing in it is read; replace the link with a real"
        " folder (`git rm` it, then `copier update` puts the INDEX files back)"
    )
    return Finding(relpath, 0, rule, ERROR, message)


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


def _load_drawer(folder: Path, drawer: Drawer, listing: dict, unread: list) -> list[Finding]:
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
    items = sorted(os.scandir(folder), key=lambda child: child.name)
    listing[drawer.relpath] = [(item.name, kind_of(item)) for item in items]
    for item in items:
        # A name is printed only when it is plain: it is text a commit chose (names.py).
        relpath = f"{drawer.relpath}/{shown(item.name)}"
        if item.is_symlink():
            # A link is never memory, wherever it points: a committed one could lead a
            # reader or a writer anywhere, so it is reported and not read.
            if not inside(Path(item.path), folder):
                message = (
                    "symlink leading out of its drawer; it is not read. Replace it with a real file"
                )
                findings.append(Finding(relpath, 0, "drift.path-escapes", ERROR, message))
            else:
                message = "a symlink in memory; it is not read. Replace it with a real file"
                findings.append(Finding(relpath, 0, "structure.link", ERROR, message))
            continue
        if drawer.name == "working" and item.name == WORKING_LOCK and item.is_file():
            continue  # an older install's lock: never read, never a lock again
        if item.is_dir() and drawer.name == "working" and item.name == OLD_JOURNAL:
            # Where the write journal was before 0.4. One here now is data (a branch can
            # commit it), never undone: a person reads `git status` and deletes it.
            message = (
                "a folder named like an old eco-mem write journal; eco-mem never reads one"
                " here (its journal is in the git dir): check `git status`, then delete it"
            )
            findings.append(Finding(relpath, 0, "structure.extra-directory", ERROR, message))
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
        for problem in problems:
            if problem.rule in OVER_CAPS:  # said by commands that print no findings, too
                unread.append(f"{relpath}: not read, {problem.message.split(';')[0]}; run verify")
        if item.name == INDEX:
            drawer.index_lines = lines
        else:
            drawer.entries[item.name] = Entry(drawer.name, item.name, relpath, lines)
    if drawer.index_lines is None:
        if not (folder / INDEX).exists():
            message = "INDEX.md missing; restore it with `copier update`"
            findings.append(
                Finding(drawer.index_relpath, 0, "structure.missing-index", ERROR, message)
            )
        return findings
    drawer.catalog = parse_catalog(drawer.index_lines)
    return findings
