"""Make sure git keeps what eco-mem installs and every memory agents write.

A host's .gitignore is written for the host: allow-lists of agent folders
(`.agents/*` then `!.agents/skills/...`), or `.*` for every dotfile. Such a
rule can hide the skill and the drawers. Copier still lists the files as
created, but `git add -A` skips them, and every entry written later is lost
with the next clone. Git itself is the only reliable judge of its ignore
rules, so this module asks it (`git check-ignore`) and never parses them.

`track` appends the fewest re-include rules to a marked block at the end of
the root .gitignore; verify reports what is still hidden.
"""

from __future__ import annotations

import os
from collections import namedtuple
from pathlib import Path

from .. import protocol
from ..findings import ERROR, Finding
from ..store.load import FILE, FOLDER, kind_of

GITIGNORE = ".gitignore"
MARKERS = ("# eco-mem:begin", "# eco-mem:end")
BLOCK_NOTE = "# Written by eco_mem.pyz track: rules above hide files eco-mem keeps in git."
CLAUDE_LINK = ".claude/skills/eco-mem"
WORKFLOW = ".github/workflows/eco-mem.yml"
# Files of the host's that eco-mem writes into (a block, the hook, a rule): each must
# reach git too, or what eco-mem wrote there is lost with the next clone. CLAUDE.md is
# left to the host: teams ignore it on purpose as a personal file, and it only imports
# AGENTS.md.
HOST_FILES_WRITTEN = (
    "AGENTS.md",
    ".claude/settings.json",
    ".claude/biome.jsonc",
    ".gitattributes",
    GITIGNORE,
)
DURABLE = ("semantic", "episodic", "procedural")


def track_command() -> str:
    return f"python3 {protocol.SKILL_DIR}/scripts/eco_mem.pyz track"


# Names entries will have: an ignore rule may hide them before they exist.
FUTURE_ENTRY = {
    "semantic": "eco-mem-probe.md",
    "episodic": "2000-01-01-eco-mem-probe.md",
    "procedural": "eco-mem-probe.md",
}
FUTURE_DESK = "working/eco-mem-probe-desk.md"
# Each round settles one more folder level of every path; paths are shallow.
MAX_ROUNDS = 12


class Hide(namedtuple("Hide", "source line pattern")):
    """The ignore rule that hides a path, as `git check-ignore -v` names it."""

    __slots__ = ()

    def __str__(self) -> str:
        return f"{self.source}:{self.line} `{self.pattern}`"

    @property
    def nested(self) -> bool:
        """True for a .gitignore below the root, whose rules the root file cannot override."""
        source = self.source.replace("\\", "/")
        return (
            source.endswith("/" + GITIGNORE)
            and not source.startswith(".git/")
            and not os.path.isabs(source)
        )


class NotAWorkTree(Exception):
    """git is missing, or the folder is not inside a git work tree."""


class TrackError(Exception):
    """The paths cannot be re-included from the root .gitignore; says what to add where."""


class GitRefused(TrackError):
    """git could not judge a path (a link on the way, a link out of the repository):
    the check did not happen, so it must not pass for "nothing hidden". Its message
    starts with the path, as a finding's does."""


def git_name(root: Path, relpath: str, folders: dict[str, str | None] | None = None) -> str:
    """`relpath` as git knows it: the folders above it with their links resolved.

    git judges only paths of its own tree and refuses one that goes "beyond a symbolic
    link" (`.claude/skills/eco-mem/SKILL.md` when `.claude/skills -> ../skills`): ask
    about `skills/eco-mem/SKILL.md` instead. `folders` caches one answer per folder,
    so a store of thousands of entries costs a few lookups. GitRefused when a link
    leads out of the repository, where no rule of ours can keep the file.
    """
    parent, _, name = relpath.rpartition("/")
    if not parent:
        return relpath
    cache = {} if folders is None else folders
    if parent not in cache:
        if "" not in cache:  # the root's own real path, once per cache
            cache[""] = os.path.realpath(root)
        real_root = cache[""] or ""
        real = os.path.realpath(os.path.join(root, parent))
        if real == real_root:
            cache[parent] = ""
        elif real.startswith(real_root.rstrip(os.sep) + os.sep):
            cache[parent] = os.path.relpath(real, real_root).replace(os.sep, "/")
        else:
            cache[parent] = None
    folder = cache[parent]
    if folder is None:
        raise GitRefused(
            f"{relpath} leads out of the repository through a symlink ({parent} is"
            f" {os.path.realpath(os.path.join(root, parent))}); git cannot keep it, so"
            " eco-mem does not write there: make that folder part of the repository"
        )
    return f"{folder}/{name}" if folder else name


def future_entries(memory_dirs: list[str] | None = None) -> list[str]:
    """The names the next entries of each store would take (default: the store in use)."""
    return [
        f"{memory_dir}/{drawer}/{FUTURE_ENTRY[drawer]}"
        for memory_dir in memory_dirs or [protocol.MEMORY_DIR]
        for drawer in DURABLE
    ]


def paths_to_keep(
    root: Path, listing: dict | None = None, folders: dict[str, str | None] | None = None
) -> list[str]:
    """Every path that must reach git: the install, the entries, and future entry names.

    Folders are listed, files are never opened (verify promises to read
    nothing outside the memory folder). `listing` is what loading the stores listed
    ({folder relpath: [(name, is a folder)]}, store/load.py); a folder it lacks is
    listed here. Paths are named as git knows them (`git_name`); GitRefused when one
    leads out of the repository. `folders` is git_name's cache, to share with later calls.
    """
    listing = listing or {}
    keep = [protocol.ANSWERS_FILE]
    review_workflow = WORKFLOW.replace(".yml", "-review.yml")
    for installed in (CLAUDE_LINK, WORKFLOW, review_workflow, *HOST_FILES_WRITTEN):
        if os.path.lexists(root / installed):
            keep.append(installed)
    skill = root / protocol.SKILL_DIR
    for folder, subfolders, files in os.walk(skill):
        # No release ships a folder named with a dot or __pycache__: those are tools'
        # caches (`ruff check .` writes .ruff_cache/, ignored by its own .gitignore).
        subfolders[:] = sorted(
            name for name in subfolders if name != "__pycache__" and not name.startswith(".")
        )
        relative = Path(folder).relative_to(root).as_posix()
        keep += [f"{relative}/{name}" for name in sorted(files)]
    from ..store.stores import all_stores

    memories = all_stores(root)  # the root's store and every package store
    for memory_dir in memories:
        memory = root / memory_dir
        if memory_dir not in listing and not memory.is_dir():
            continue
        for name, kind in _listed(root, memory_dir, listing):
            if kind == FOLDER and name in protocol.DRAWERS:
                keep += _drawer_paths(root, f"{memory_dir}/{name}", name, listing)
            elif kind == FILE:
                keep.append(f"{memory_dir}/{name}")  # e.g. a tool's ignore file
    keep += future_entries(memories)
    folders = {} if folders is None else folders
    return list(dict.fromkeys(git_name(root, path, folders) for path in keep))


def _listed(root: Path, relpath: str, listing: dict) -> list[tuple[str, str]]:
    """(name, kind) of each item in a memory folder: from `listing`, else listed now."""
    if relpath in listing:
        return listing[relpath]
    items = sorted(os.scandir(root / relpath), key=lambda child: child.name)
    return [(item.name, kind_of(item)) for item in items]


def _drawer_paths(root: Path, relative: str, drawer: str, listing: dict) -> list[str]:
    if drawer == "working":  # desks stay local; only the drawer's own two files travel
        return [f"{relative}/INDEX.md", f"{relative}/{GITIGNORE}"]
    listed = _listed(root, relative, listing)
    return [f"{relative}/{name}" for name, _ in listed if name.endswith(".md")]


class IgnoreCheck:
    """`git check-ignore` over `paths`, started now and answered by `hidden()`.

    --no-index judges tracked files by the rules too: a tracked entry under a
    hiding rule tells us its next sibling will be lost.
    """

    def __init__(
        self, root: Path, paths: list[str], folders: dict[str, str | None] | None = None
    ) -> None:
        from ..git import MAX_INPUT, GitCall

        command = ("check-ignore", "--no-index", "-v", "-n", "-z", "--stdin")
        self._root, self._names, self._failure = root, {}, ""
        # git_name's cache: a folder's real path depends on nothing but the folder, so a
        # cache filled while the paths were named serves here too.
        folders = {} if folders is None else folders
        try:
            for path in paths:  # git answers for its own names; the caller reads its own
                self._names.setdefault(git_name(root, path, folders), path)
        except GitRefused as refusal:
            self._calls, self._failure = [], refusal
            return
        batches, batch = [], b""
        for path in self._names:  # a store past MAX_INPUT of paths takes more than one git call
            entry = path.encode("utf-8", "surrogateescape") + b"\0"
            if batch and len(batch) + len(entry) > MAX_INPUT:
                batches.append(batch)
                batch = b""
            batch += entry
        batches += [batch] if batch else []
        try:
            self._calls = [GitCall(root, *command, given=batch) for batch in batches]
        except OSError as error:
            self._calls, self._failure = [], NotAWorkTree(f"git not found ({error})")
        self._batches = batches

    def hidden(self) -> dict[str, Hide]:
        """{path: the rule hiding it} for each path git would ignore.

        NotAWorkTree when there is no git or no work tree here (nothing to check);
        GitRefused, naming the path, when git refuses the question itself.
        """
        if self._failure:
            raise self._failure
        hidden = {}
        for call, batch in zip(self._calls, self._batches):
            code, output = call.result()
            if code not in (0, 1):  # 1 is "nothing ignored"; 128 is "not a repository"
                raise why_git_failed(self._root, batch)
            fields = output.decode("utf-8", "surrogateescape").split("\0")
            for source, line, pattern, path in zip(*[iter(fields)] * 4):
                if source and not pattern.startswith("!"):  # a matching `!` rule re-includes
                    hidden[self._names.get(path, path)] = Hide(source, int(line), pattern)
        return hidden


def why_git_failed(root: Path, batch: bytes) -> Exception:
    """What stopped `git check-ignore`, asked again with its message kept (this path
    only runs once git has failed): NotAWorkTree outside a work tree, else GitRefused."""
    import subprocess

    from ..git import git, program

    if git(root, "rev-parse", "--is-inside-work-tree").stdout.strip() != "true":
        return NotAWorkTree("git check-ignore could not run here")
    done = subprocess.run(
        [program(), "-C", str(root), "check-ignore", "--no-index", "-n", "-z", "--stdin"],
        input=batch,
        capture_output=True,
        check=False,
    )
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    reason = said[0] if said else f"exit {done.returncode}"
    reason = reason[len("fatal: ") :] if reason.startswith("fatal: ") else reason
    first = batch.split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
    return GitRefused(
        f"{first} cannot be checked: git check-ignore refused ({reason}); eco-mem cannot"
        " tell whether git keeps its files, so it writes none there until git can"
    )


def ask_git(root: Path, paths: list[str]) -> dict[str, Hide]:
    return IgnoreCheck(root, paths).hidden()


class HiddenCheck:
    """verify's `git.ignored` rule, asked of git before the other rules run.

    `findings()` gives one error per kept path git would not commit, and
    raises NotAWorkTree outside a git work tree, where the rule cannot apply.
    """

    def __init__(self, root: Path, listing: dict | None = None) -> None:
        from ..store.stores import all_stores

        self._root = root
        self._future = future_entries(all_stores(root))
        # Each folder's real path is resolved once (os.path.realpath reads every part
        # of it): the paths are named, checked and matched with one cache.
        self._folders: dict[str, str | None] = {}
        try:
            paths = paths_to_keep(root, listing, self._folders)
            self._check: IgnoreCheck | GitRefused = IgnoreCheck(root, paths, self._folders)
        except GitRefused as refusal:  # said by findings(), where verify asks for them
            self._check = refusal

    def findings(self) -> list[Finding]:
        from ..store.names import shown_path

        if isinstance(self._check, GitRefused):
            raise self._check
        future = dict.fromkeys(git_name(self._root, path, self._folders) for path in self._future)
        findings = []
        for path, hide in sorted(self._check.hidden().items()):
            if path in future:
                where, what = path.rpartition("/")[0], "new entries written here"
            else:
                where, what = path, "this path"
            message = (
                f"{what} would never reach a commit: git ignores it by {hide};"
                f" run `{track_command()}`, or change that rule"
            )
            # A name is text a commit chose: printed only when plain (store/names.py).
            findings.append(Finding(shown_path(where), 0, "git.ignored", ERROR, message))
        return findings


def _prefixes(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:depth]) for depth in range(1, len(parts) + 1)]


def shallowest_hidden(root: Path, paths: list[str]) -> dict[str, Hide]:
    """For each hidden path, its highest hidden folder (or itself): where a fix must start."""
    prefixes = list(dict.fromkeys(prefix for path in paths for prefix in _prefixes(path)))
    hidden = ask_git(root, prefixes)
    first = {}
    for path in paths:
        for prefix in _prefixes(path):
            if prefix in hidden:
                first[prefix] = hidden[prefix]
                break
    return first


def _owned(root: Path, path: str) -> bool:
    """Inside (or equal to) a folder eco-mem owns whole: its contents are all ours to keep."""
    return any(path == own or path.startswith(own + "/") for own in owned_roots(root))


def owned_roots(root: Path) -> tuple[str, str]:
    """The skill and memory folders, as git names them (`git_name`)."""
    return git_name(root, protocol.SKILL_DIR), git_name(root, protocol.MEMORY_DIR)


def _escape(path: str) -> str:
    """Quote the characters a gitignore pattern would read as wildcards."""
    for special in ("\\", "*", "?", "["):
        path = path.replace(special, "\\" + special)
    return path[:-1] + "\\ " if path.endswith(" ") else path


def _reinclude(root: Path, prefix: str) -> list[str]:
    """`reinclude_rules`, but a file hidden inside the skill folder (a host `*` or `.*`
    reaching into it) re-includes every file of its kind there at once: one rule per
    suffix (`!/<skill>/**/*.py`) and one for its folders, not one per path, and
    nothing else a host rule hides there (an editor's swap file stays ignored)."""
    skill = git_name(root, protocol.SKILL_DIR)
    name = prefix.rpartition("/")[2]
    suffix = os.path.splitext(name)[1]
    if prefix.startswith(skill + "/"):
        if (root / prefix).is_dir() and not (root / prefix).is_symlink():
            return [f"!/{_escape(skill)}/**/"]  # every folder of the skill's
        if suffix:
            return [f"!/{_escape(skill)}/**/*{_escape(suffix)}"]
    return reinclude_rules(root, prefix)


def reinclude_rules(root: Path, prefix: str, base: str = "", whole: bool = False) -> list[str]:
    """Rules that re-include `prefix` and nothing of the host's beside it.

    A re-included folder above our own gets `/folder/*` right after it, so its
    other children stay as ignored as they were. `whole` re-includes all of a
    folder we own at once, for advice we cannot try out. Patterns are anchored
    at the folder of the ignore file they go into (`base`, repo-relative).
    """
    anchored = prefix[len(base) + 1 :] if base else prefix
    target = root / prefix
    if target.is_dir() and not target.is_symlink():
        rules = [f"!/{_escape(anchored)}/"]
        if not _owned(root, prefix):
            rules.append(f"/{_escape(anchored)}/*")
        elif whole:
            rules.append(f"!/{_escape(anchored)}/**")
        return rules
    parent, _, name = prefix.rpartition("/")
    store, _, drawer = parent.rpartition("/")
    memory = protocol.ROOT_MEMORY_DIR
    in_a_store = store == memory or store.endswith("/" + memory)  # a package store's too
    if drawer in DURABLE and in_a_store and name.endswith(".md"):
        folder = anchored.rpartition("/")[0]
        # Every entry of the drawer, including the ones not written yet.
        return [f"!/{_escape(folder)}/*.md" if folder else "!/*.md"]
    return [f"!/{_escape(anchored)}"]


def _read(root: Path, path: Path) -> str | None:
    from ..safe_open import read_host_text  # writers only: verify imports this module

    return read_host_text(root, path)


def _write(root: Path, path: Path, text: str | None) -> None:
    from ..safe_open import remove, write_text

    if text is None:
        remove(root, path)
        return
    write_text(root, path, text, follow=True)


def compose(host: str, rules: list[str]) -> str | None:
    """The .gitignore text: the host's lines as they are, then our block if it has rules."""
    if not rules:
        return host or None
    from .markers import upsert_block  # writers only: verify imports this module

    return upsert_block(host, [BLOCK_NOTE, *rules], GITIGNORE, MARKERS)


def track(root: Path, extra: list[str] | None = None) -> tuple[list[str], bool]:
    """Rewrite the block in the root .gitignore so nothing eco-mem keeps is hidden.

    Returns the block's rules (empty when the host hides nothing and the block
    is gone) and whether the file changed. A .gitignore below the root outranks
    the root one, so its lines are the host's to add: they are tried in place
    while the root block is worked out (the nested file is restored byte for byte
    afterwards), the root block is written in full, and NestedRules says which
    lines to add where. Once they are added, a second run changes nothing.
    Raises TrackError, with the original root file restored, when the result
    would put desks into git or the rules cannot be found.
    """
    gitignore = root / GITIGNORE
    original = _read(root, gitignore)
    from .markers import remove_block

    host = remove_block(original or "", GITIGNORE, MARKERS)
    named = [git_name(root, path) for path in extra or []]
    paths = list(dict.fromkeys(paths_to_keep(root) + named))
    rules: list[str] = []
    nested_lines: dict[str, list[str]] = {}  # nested .gitignore -> lines it needs
    nested_originals: dict[str, str | None] = {}
    nested_hides: dict[str, Hide] = {}  # hidden folder -> the nested rule hiding it
    try:
        # Rules are tried in place: only git's own reading of the real files
        # is trustworthy, and the host's lines are never touched meanwhile.
        for _ in range(MAX_ROUNDS):
            _write_if_changed(root, gitignore, compose(host, rules))
            hides = shallowest_hidden(root, paths)
            if not hides:
                break
            nested = {prefix: hide for prefix, hide in hides.items() if hide.nested}
            nested_hides.update(nested)
            for source, lines in _nested_rules(root, nested, paths).items():
                if source not in nested_originals:
                    nested_originals[source] = _read(root, root / source)
                wanted = nested_lines.setdefault(source, [])
                wanted += [line for line in lines if line not in wanted]
                _write(root, root / source, _with_lines(nested_originals[source], wanted))
            for prefix, hide in hides.items():
                if not hide.nested:
                    rules += [rule for rule in _reinclude(root, prefix) if rule not in rules]
        else:
            raise TrackError(f"{GITIGNORE}: could not re-include {sorted(hides)}; please report")
        desk = f"{protocol.MEMORY_DIR}/{FUTURE_DESK}"
        if desk not in ask_git(root, [desk]):
            raise TrackError(
                f"desks in {protocol.MEMORY_DIR}/working/ would reach git;"
                f" restore its {GITIGNORE} (it ignores every file but INDEX.md and itself)"
            )
    except BaseException:
        _write_if_changed(root, gitignore, original)
        raise
    finally:
        for source, text in nested_originals.items():
            _write_if_changed(root, root / source, text)
    changed = compose(host, rules) != original
    # The trial lines are gone again: whatever git still hides is the host's to fix.
    if nested_lines and shallowest_hidden(root, paths):
        raise NestedRules(_nested_advice(nested_hides, nested_lines, rules, changed))
    return rules, changed


def keep_new_entries(root: Path, paths: list[str], check: IgnoreCheck | None = None) -> str:
    """Make sure git would commit the entry files a write is about to create.

    `paths` are repo-relative; `check` is an IgnoreCheck of them started earlier, so
    git answers while the caller works. Nothing is hidden (or this is no git work
    tree): "" and one git call. Hidden by a rule the root .gitignore can override:
    `track` re-includes them, and the line to show says so. Otherwise TrackError,
    one line, with the root .gitignore as it was: the caller refuses the write.
    """
    try:
        hidden = (check or IgnoreCheck(root, paths)).hidden()
    except NotAWorkTree:
        return ""
    if not hidden:
        return ""
    path, hide = sorted(hidden.items())[0]
    gitignore = root / GITIGNORE
    original = _read(root, gitignore)
    try:
        track(root, extra=paths)
        still = ask_git(root, paths)
    except NestedRules:
        still = hidden
    except TrackError as error:  # the .gitignore block cannot be written as it must be
        _write_if_changed(root, gitignore, original)
        first = str(error).splitlines()[0]
        raise TrackError(
            f"{path} would never reach a commit: git ignores it by {hide}, and {first}"
        ) from None
    except BaseException:
        _write_if_changed(root, gitignore, original)
        raise
    if still:
        _write_if_changed(root, gitignore, original)
        path, hide = sorted(still.items())[0]
        raise TrackError(
            f"{path} would never reach a commit: git ignores it by {hide}, a rule the root"
            f" {GITIGNORE} cannot override; change that rule (`{track_command()}` lists the"
            " lines a nested .gitignore needs) or choose another name"
        )
    return (
        f"{GITIGNORE}: git ignored {path} by {hide}; eco-mem's block there re-includes it"
        f" now: commit {GITIGNORE} with the entry"
    )


class NestedRules(TrackError):
    """Only lines in a nested .gitignore are missing; the root block is already written."""


def _with_lines(text: str | None, lines: list[str]) -> str:
    """The nested file with `lines` appended (the trial the advice is checked by)."""
    text = text or ""
    if text and not text.endswith("\n"):
        text += "\n"
    return text + "".join(line + "\n" for line in lines)


def _write_if_changed(root: Path, path: Path, text: str | None) -> None:
    if _read(root, path) != text:
        _write(root, path, text)


def _nested_rules(root: Path, nested: dict[str, Hide], paths: list[str]) -> dict[str, list[str]]:
    """{nested .gitignore: the lines that re-include what its rules hide}."""
    found: dict[str, list[str]] = {}
    for prefix, hide in sorted(nested.items()):
        base = hide.source.rpartition("/")[0]
        rules = found.setdefault(hide.source, [])
        for path in paths:
            if path == prefix or path.startswith(prefix + "/"):
                rules += [
                    rule for rule in _rules_down_to(root, prefix, path, base) if rule not in rules
                ]
    return found


def _nested_advice(
    hides: dict[str, Hide], missing: dict[str, list[str]], rules: list[str], changed: bool
) -> str:
    """What is done, every line still needed, and what to run next: one message, one round."""
    if rules and changed:
        done = f"the root {GITIGNORE} block is written ({len(rules)} re-include rule(s))."
    elif rules:
        done = f"the root {GITIGNORE} block is already current."
    else:
        done = f"the root {GITIGNORE} needs nothing."
    # One line per hiding rule, alone, so a caller (the fleet report) can quote it.
    lines = [f"{hide} hides {prefix}" for prefix, hide in sorted(hides.items())]
    lines.append(f"a nested {GITIGNORE} outranks the root one, so only you can change it; {done}")
    for source, needed in sorted(missing.items()):
        listed = "\n".join(f"    {line}" for line in needed)
        lines.append(f"add these lines at the end of {source}:\n{listed}")
    lines.append(
        "eco-mem's files are installed and stay on disk (a `copier copy` that stopped here"
        " rendered them all); once the lines are added, run"
        f" `{track_command()}` (it should print nothing more to do) and commit."
    )
    return "\n".join(lines)


def _rules_down_to(root: Path, prefix: str, path: str, base: str) -> list[str]:
    """Rules from the hidden `prefix` down to `path`: each `/folder/*` we add hides the next level."""
    rules: list[str] = []
    steps = _prefixes(path)
    for step in steps[steps.index(prefix) :]:
        rules += reinclude_rules(root, step, base, whole=True)
        if _owned(root, step) or not (root / step).is_dir():
            break
    return rules
