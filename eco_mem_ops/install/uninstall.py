"""Take eco-mem back out of a host: one undo step for each thing the install wrote.

A step looks at the repository and returns the changes it would make; nothing is
written until every step has planned, so a malformed marker in any file stops the
run before the first byte changes. Outside our marked blocks the host's bytes are
kept exactly. A file that held nothing but our block was created by the install, so
it goes; folders the removals leave empty go too.

To undo one more thing the install writes, add a function `(root, options) ->
list[Change]` to STEPS, anywhere before "skill": that step deletes the script that is
running, so it comes last.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import namedtuple
from pathlib import Path

from ecomem import protocol, safe_open
from ecomem.errors import UsageError
from ecomem.git import git, git_dirs, run_git
from ecomem.gitsetup import attributes, driver, track
from ecomem.gitsetup.markers import BlockError, remove_block, upsert_block
from ecomem.hostfiles.blocks import MARKDOWN_MARKERS
from ecomem.paths import inside
from ecomem.store.load import ROOT_FILES, WORKING_LOCK

from . import hooks, precommit
from .driver_removal import remove_driver


class Change(namedtuple("Change", "step action path note apply")):
    """One thing the uninstall does: `action` is delete, edit or config; `path` is what
    a reader looks for (repo-relative, a folder ends in /); `apply()` does it."""

    __slots__ = ()

    def as_dict(self) -> dict:
        return {"step": self.step, "action": self.action, "path": self.path, "note": self.note}


# Planning --------------------------------------------------------------------------------


def _read(path: Path, name: str) -> str:
    try:
        # newline="" keeps CRLF as written, so the bytes around the block survive.
        with path.open(encoding="utf-8", newline="") as handle:
            return handle.read()
    except UnicodeDecodeError as error:
        raise UsageError(f"{name}: not UTF-8 text ({error.reason}); nothing removed") from None


def _write(root: Path, path: Path, text: str) -> None:
    safe_open.write_text(root, path, text, follow=True)


def _unlink(root: Path, path: Path):
    """Deleting `path` later: the link itself if it is one, never what it points at."""
    return lambda: safe_open.remove(root, path)


def _block(root: Path, step: str, name: str, markers: tuple[str, str]) -> list[Change]:
    """Take our marked block out of the host file `name` (through a link inside the
    repository); a regular file left empty goes, since only the install put text in it."""
    path = root / name
    if not path.is_file():  # absent, or a link to nothing: no block of ours there
        return []
    try:  # checked while planning, so a refusal comes before the first change
        real = Path(safe_open.target(root, path, follow=True))
    except safe_open.UnsafeTarget as error:
        raise UsageError(f"{error}; nothing was removed: take our block out by hand") from None
    text = _read(path, name)
    try:
        host = remove_block(text, name, markers)
    except BlockError as error:
        raise UsageError(f"{error}; nothing removed") from None
    if host == text:
        return []
    host = _unterminated_before(root, name, host)
    if not host and not path.is_symlink():
        return [Change(step, "delete", name, "held only the eco-mem block", _unlink(root, path))]
    shown = name if real == path.absolute() else f"{name} (in {real.relative_to(root.resolve())})"
    return [Change(step, "edit", shown, "eco-mem block removed", lambda: _write(root, real, host))]


ENDINGS = ("\r\n", "\n", "\r")


def _unterminated_before(root: Path, name: str, host: str) -> str:
    """`host`, or the file as it was before the install when only a final line ending
    tells them apart.

    The install appends its block after one blank line, ending the host's last line
    first if it had no ending: "text" and "text\n" both become "text\n\n<block>",
    and the block alone cannot say which it was. git can: the version in the parent of
    the commit that added the answers file.
    """
    if not host.endswith(ENDINGS):
        return host
    before = _before_install(root, name)
    if before is None or before.endswith(ENDINGS):
        return host
    return before if any(host == before + ending for ending in ENDINGS) else host


_INSTALL_COMMITS: dict[str, str | None] = {}


def _before_install(root: Path, name: str) -> str | None:
    """The text of `name` in the commit before the install, None if unknown or absent."""
    key = os.fspath(root)
    if key not in _INSTALL_COMMITS:
        added = git(root, "log", "--diff-filter=A", "--format=%H", "--", protocol.ANSWERS_FILE)
        commits = added.stdout.split() if added.returncode == 0 else []
        _INSTALL_COMMITS[key] = commits[-1] if commits else None  # the first install
    commit = _INSTALL_COMMITS[key]
    if commit is None:
        return None
    code, blob = run_git(root, "show", f"{commit}^:{name}")  # bytes, line endings kept
    if code != 0:
        return None  # a first commit, or the file did not exist then
    try:
        return blob.decode("utf-8")
    except UnicodeDecodeError:
        return None


def instruction_blocks(root: Path, options) -> list[Change]:
    """AGENTS.md and CLAUDE.md, written by `blocks`. With one file a link to the other,
    the block is taken out once."""
    changes: list[Change] = []
    seen = set()
    for name in ("AGENTS.md", "CLAUDE.md"):
        path = root / name
        real = path.resolve() if path.exists() else None
        if real in seen:
            continue
        seen.add(real)
        changes += _block(root, "instruction blocks", name, MARKDOWN_MARKERS)
    return changes


def package_stores(root: Path, options) -> list[Change]:
    """Each package store's AGENTS.md and CLAUDE.md blocks (written by `init`), and with
    --memory its drawers; kept, a store loses only the tool's own files, as the root's."""
    from ecomem.store.stores import package_of, package_stores

    changes: list[Change] = []
    for memory_dir in package_stores(root):
        package = package_of(memory_dir)
        seen = set()
        for name in ("AGENTS.md", "CLAUDE.md"):
            path = root / package / name
            real = path.resolve() if path.exists() else None
            if real in seen:
                continue
            seen.add(real)
            changes += _block(root, "package blocks", f"{package}/{name}", MARKDOWN_MARKERS)
        changes += _memory_folder(root, options, memory_dir)
    return changes


def ignore_block(root: Path, options) -> list[Change]:
    """The root .gitignore block `track` writes. With the memory kept, the rules that
    keep it visible to git stay (cut to those): under a host rule such as `.agents/*`,
    removing them would hide every entry written from then on."""
    kept = [] if options.memory else memory_rules(root)
    if not kept:
        return _block(root, "gitignore block", track.GITIGNORE, track.MARKERS)
    path = root / track.GITIGNORE
    try:
        real = Path(safe_open.target(root, path, follow=True))
    except safe_open.UnsafeTarget as error:
        raise UsageError(f"{error}; nothing was removed: take our block out by hand") from None
    text = _read(path, track.GITIGNORE)
    host = remove_block(text, track.GITIGNORE, track.MARKERS)
    new = upsert_block(host, [KEPT_NOTE, *kept], track.GITIGNORE, track.MARKERS)
    if new == text:
        return []
    note = f"eco-mem block cut to the {len(kept)} rule(s) that keep the kept memory in git"
    return [
        Change("gitignore block", "edit", track.GITIGNORE, note, lambda: _write(root, real, new))
    ]


KEPT_NOTE = "# Left by eco_mem.py uninstall: rules above would hide the memory kept here."


def memory_rules(root: Path) -> list[str]:
    """The rules of our .gitignore block on the way to the memory folder or inside it."""
    path = root / track.GITIGNORE
    if not (root / protocol.MEMORY_DIR).is_dir() or not path.is_file():
        return []
    begin, end = track.MARKERS
    lines = _read(path, track.GITIGNORE).splitlines()
    if begin not in lines or end not in lines[lines.index(begin) :]:
        return []  # no block, or a malformed one: _block says so
    start = lines.index(begin)
    block = lines[start + 1 : lines.index(end, start)]
    memory = track.git_name(root, protocol.MEMORY_DIR)
    kept = []
    for rule in block:
        if not rule or rule.startswith("#"):
            continue
        folder = rule.lstrip("!").strip("/")
        for tail in ("/**", "/*"):
            folder = folder[: -len(tail)] if folder.endswith(tail) else folder
        folder = folder.rstrip("/").replace("\\", "")
        if memory == folder or memory.startswith(folder + "/") or folder.startswith(memory + "/"):
            kept.append(rule)
    return kept


def hidden_memory(root: Path) -> list[str]:
    """After an uninstall that kept the memory: one line per kept path git now ignores,
    naming the rule (a host rule our block can no longer outweigh, or a nested one)."""
    paths = [f"{protocol.MEMORY_DIR}/{drawer}/INDEX.md" for drawer in protocol.DRAWERS]
    paths += track.future_entries()
    try:
        hidden = track.ask_git(root, [path for path in paths if (root / path).parent.is_dir()])
    except track.NotAWorkTree:
        return []
    except track.TrackError as error:  # git refused: say so rather than claim all is well
        return [str(error)]
    return [f"{path}: git ignores it by {hide}" for path, hide in sorted(hidden.items())]


def attributes_block(root: Path, options) -> list[Change]:
    """The root .gitattributes block `track` writes."""
    return _block(root, "gitattributes block", attributes.ATTRIBUTES, attributes.MARKERS)


def precommit_exclude(root: Path, options) -> list[Change]:
    """The exclude block `blocks` appends to the host's .pre-commit-config.yaml."""
    changes: list[Change] = []
    for name in precommit.CONFIG_NAMES:
        try:
            safe_open.target(root, root / name, follow=True)
        except safe_open.UnsafeTarget:
            continue  # a link out of the repository: blocks never wrote through it
        changes += _block(root, "pre-commit exclude", name, precommit.MARKERS)
    return changes


def merge_driver(root: Path, options) -> list[Change]:
    """The catalog merge driver `track` and the memory commands set up in this clone:
    its `[merge "eco-mem-catalog"]` config section and its copy in the git dir. No
    commit carries either, so other clones keep theirs."""
    if not driver.installed(root):
        return []
    common = git_dirs(root)[1]
    where = f'[merge "{driver.DRIVER}"] and its copy in {_shown_config(root, common)}'
    return [Change("merge driver", "config", where, "this clone only", lambda: remove_driver(root))]


def _shown_config(root: Path, config: Path) -> str:
    try:
        return config.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return os.fspath(config)


def claude_link(root: Path, options) -> list[Change]:
    """The `.claude/skills/eco-mem` link to the skill; a link anywhere else is the host's."""
    link = root / track.CLAUDE_LINK
    if not link.is_symlink():
        return []
    target = os.path.normpath(os.path.join(os.path.realpath(link.parent), os.readlink(link)))
    if target != os.path.realpath(root / protocol.SKILL_DIR):
        return []
    return [
        Change("claude link", "delete", track.CLAUDE_LINK, "link to the skill", _unlink(root, link))
    ]


def claude_hook(root: Path, options) -> list[Change]:
    """eco-mem's SessionStart entry in .claude/settings.json (written by `blocks`). The
    file goes only when the install created it and nothing else is left in it."""
    try:
        planned = hooks.planned_removal(root)
    except hooks.HookError as error:
        raise UsageError(f"{error}; nothing removed") from None
    if planned is None:
        return []
    path = root / hooks.SETTINGS
    if _empty_object(planned) and _before_install(root, hooks.SETTINGS) is None:
        return [
            Change(
                "claude hook",
                "delete",
                hooks.SETTINGS,
                "held only eco-mem's hook",
                _unlink(root, path),
            )
        ]
    write = lambda: hooks.write_settings(root, os.fspath(path), planned)  # noqa: E731
    return [
        Change("claude hook", "edit", hooks.SETTINGS, "eco-mem's SessionStart entry removed", write)
    ]


def claude_biome(root: Path, options) -> list[Change]:
    """The Biome configuration the install put beside a settings.json of its hook alone
    (hooks.BIOME_SETTINGS), while its bytes are still ours: an edited one is the host's."""
    if not hooks.our_biome_settings(root):
        return []
    path = root / hooks.BIOME_SETTINGS
    note = "kept Biome from reformatting eco-mem's settings.json"
    return [Change("claude hook", "delete", hooks.BIOME_SETTINGS, note, _unlink(root, path))]


def _empty_object(data: bytes) -> bool:
    try:
        return json.loads(data.decode("utf-8-sig")) == {}
    except ValueError:
        return False


def workflow(root: Path, options) -> list[Change]:
    """The CI workflows the `ci` question renders (verify on push, review weekly), each
    only while it still runs our script: a host file under our name stays. The runtime
    file `eco_mem.pyz` and a source-tree install's `eco_mem.py` (v0.4.x) share this prefix."""
    script = f"{protocol.SKILL_DIR}/scripts/eco_mem.py"
    changes = []
    for name, note in (
        (track.WORKFLOW, "runs eco-mem verify"),
        (REVIEW_WORKFLOW, "runs eco-mem review"),
    ):
        path = root / name
        if not path.is_file() or path.is_symlink():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if script in text:
            changes.append(Change("workflow", "delete", name, note, _unlink(root, path)))
    return changes


REVIEW_WORKFLOW = ".github/workflows/eco-mem-review.yml"


def answers(root: Path, options) -> list[Change]:
    """Copier's record of this install; without it `copier update` knows nothing of eco-mem."""
    path = root / protocol.ANSWERS_FILE
    if not path.is_file() or path.is_symlink():
        return []
    return [
        Change("answers", "delete", protocol.ANSWERS_FILE, "copier answers", _unlink(root, path))
    ]


def _tree(root: Path, step: str, relpath: str, note: str) -> list[Change]:
    path = root / relpath
    if path.is_symlink():  # a link the host made: remove the link, never what it points at
        return [Change(step, "delete", relpath, note + " (a link)", _unlink(root, path))]
    if not path.is_dir():
        return []
    if not inside(path, root):
        raise UsageError(f"{relpath} lies outside the repository through a link; nothing removed")
    return [Change(step, "delete", relpath + "/", note, lambda: shutil.rmtree(path))]


def memory(root: Path, options) -> list[Change]:
    """The drawers only when asked: entries outlive the tool that wrote them. Kept, they
    lose only the tool's own files: the lock, the search-ignore file that points
    readers at a `find` command no longer there, and the host tools' settings."""
    return _memory_folder(root, options, protocol.MEMORY_DIR)


def _memory_folder(root: Path, options, memory_dir: str) -> list[Change]:
    if options.memory:
        _refuse_what_is_not_memory(root, memory_dir)
        return _tree(root, "memory", memory_dir, "every entry, desk and INDEX")
    changes = []
    for relpath, note in (
        (f"{memory_dir}/{SEARCH_IGNORE}", "the tool's search-ignore file"),
        (f"{memory_dir}/working/{WORKING_LOCK}", "the writers' lock"),
        *(
            (f"{memory_dir}/{name}", "a host tool's settings")
            for name in ROOT_FILES
            if name != SEARCH_IGNORE
        ),
    ):
        path = root / relpath
        if path.is_file() and not path.is_symlink():
            changes.append(
                Change("memory tool files", "delete", relpath, note, _unlink(root, path))
            )
    return changes


SEARCH_IGNORE = ".ignore"


def _refuse_what_is_not_memory(root: Path, memory_dir: str) -> None:
    """UsageError when the memory folder holds anything but drawers and the tool's files.

    The answers file names that folder, and a commit can change it to a folder of code:
    deleting it would take its ignored files too, which no git brings back."""
    path = root / memory_dir
    if path.is_symlink() or not path.is_dir():
        return  # _tree removes a link alone, and there is nothing else to remove
    others = [
        child.name
        for child in os.scandir(path)
        if not (child.name in protocol.DRAWERS and child.is_dir(follow_symlinks=False))
        and child.name not in ROOT_FILES
    ]
    if others:
        raise UsageError(
            f"{memory_dir} holds {len(others)} item(s) that are not eco-mem's drawers;"
            " nothing removed: rerun without --memory, or delete what you mean to by hand"
        )


def skill(root: Path, options) -> list[Change]:
    """The skill folder, this script's own: always the last step."""
    return _tree(root, "skill", protocol.SKILL_DIR, "SKILL.md and its scripts")


STEPS = (
    instruction_blocks,
    package_stores,
    ignore_block,
    attributes_block,
    precommit_exclude,
    merge_driver,
    claude_link,
    claude_hook,
    claude_biome,
    workflow,
    answers,
    memory,
    skill,
)


def emptied_folders(root: Path, removed: list[str]) -> list[Change]:
    """Folders that hold nothing once `removed` is gone (deepest first), root aside."""
    gone = {path.rstrip("/") for path in removed}
    parents = {
        "/".join(parts[:depth])
        for parts in (path.split("/") for path in gone)
        for depth in range(1, len(parts))
    }
    emptied: list[str] = []
    for folder in sorted(parents, key=lambda path: (-path.count("/"), path)):
        target = root / folder
        if target.is_symlink() or not target.is_dir():
            continue
        if all(f"{folder}/{name}" in gone for name in os.listdir(target)):
            gone.add(folder)
            emptied.append(folder)
    return [
        Change("empty folders", "delete", f"{folder}/", "left empty", _rmdir(root / folder))
        for folder in emptied
    ]


def _rmdir(path: Path):
    return lambda: path.rmdir()


def plan(root: Path, options) -> list[Change]:
    """Every change, in the order they are made; writes nothing."""
    changes = [change for step in STEPS for change in step(root, options)]
    deleted = [change.path for change in changes if change.action == "delete"]
    # After the skill folder, whose code is running: every module it needs is loaded.
    return changes + emptied_folders(root, deleted)


# Running ---------------------------------------------------------------------------------


def dirty(root: Path) -> str:
    """Why the tree is not safe to change, or "": a work tree outside git, or one with
    uncommitted changes (git could not bring back what uninstall deletes)."""
    top = git(root, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        return (
            f"{root} is not a git work tree: uninstall deletes files, and only git could"
            " bring them back; commit the repository first, or remove the files by hand"
        )
    if git(root, "status", "--porcelain").stdout.strip():
        return "the working tree has uncommitted changes; commit or stash them first"
    return ""


def apply(changes: list[Change]) -> None:
    for change in changes:
        change.apply()
