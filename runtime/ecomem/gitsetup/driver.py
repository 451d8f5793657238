"""The clone's half of the catalog merge: the copy of the driver git runs, and the
git config entry that names it.

Git runs a merge driver in the middle of merges, rebases and cherry-picks, when
the work tree holds whatever the commits applied so far put there. A command
that named the skill's own script would run code a commit can change. So git
runs a copy of the few modules a catalog merge needs, kept in the repository's
common git dir (linked worktrees share it), where no commit reaches. The copy
is written only here, by the commands that install eco-mem on purpose (`track`,
which copy, update and upgrade run), from the scripts of the command run. The
memory commands never write it: a branch's tree steers what they run, and a copy
they refreshed would carry the branch's code into every later merge of the clone
(cli.py only says when the driver is missing). Its folder is named by a checksum
of what it holds, so a changed skill gets a new copy and the config switches to it
in one write. Beside the copies, `resolve.py` runs `resolve` from the copy git runs,
so finishing a stopped merge never runs the incoming branch's scripts, and
`context.py` runs the session digest from it, so opening a branch in Claude Code never
runs that branch's scripts (hooks.py).
"""

from __future__ import annotations

import os
import shutil
import zlib
from pathlib import Path

from ..git import SHELL_ABSOLUTE_PATH, git_dirs

DRIVER = "eco-mem-catalog"
DRIVER_NAME = "eco-mem catalog rows, merged row by row"
HOME = "eco-mem"  # the folder in the common git dir that holds the copy
PREFIX = "merge-driver-"
ENTRY = "driver.py"
ANSWERS = "ecomem/answers.yml"  # answers_file.RECORDED, in the copy
TOKEN_PREFIX = "eco-mem-merge-"  # + the driver shell's pid, in the work tree's git dir
# What the copy holds besides the entry: the merge and everything it imports.
# boundary imports protocol only to word an internal error.
MODULES = (
    "ecomem/__init__.py",
    "ecomem/answers_file.py",
    "ecomem/boundary.py",
    "ecomem/errors.py",
    "ecomem/path_rule.py",
    "ecomem/protocol.py",
    "ecomem/safe_open.py",
    "ecomem/commands/__init__.py",
    "ecomem/git.py",
    "ecomem/commands/merge_catalog.py",
    "ecomem/commands/resolve.py",
    "ecomem/store/__init__.py",
    "ecomem/store/answers.py",
    "ecomem/store/catalog.py",
    "ecomem/store/merge.py",
    "ecomem/store/rows.py",
    "ecomem/text/__init__.py",
    "ecomem/text/table_row.py",
    "ecomem/text/textfile.py",
    # The session digest (`context`, which Claude Code's hook runs from here, hooks.py)
    # and what it imports: the desks, the stores, provenance and the injection rule.
    "ecomem/commands/context.py",
    "ecomem/findings.py",
    "ecomem/lazy_re.py",
    "ecomem/paths.py",
    "ecomem/store/always.py",
    "ecomem/text/cites.py",
    "ecomem/text/injection.py",
    "ecomem/text/injection_phrases.py",
    "ecomem/text/markdown.py",
    "ecomem/text/markup.py",
    "ecomem/text/normalise.py",
    "ecomem/store/desks.py",
    "ecomem/store/names.py",
    "ecomem/store/place.py",
    "ecomem/store/provenance.py",
    "ecomem/branch.py",
    "ecomem/store/contracts.py",
    "ecomem/store/stores.py",
    "ecomem/store/record.py",
    "ecomem/git_home.py",
)
# The entry must parse on any Python 3: on one too old for the package it fails
# importing it, and the driver then keeps git's own result.
ENTRY_TEXT = '''\
"""eco-mem's catalog merge driver, as git runs it (a copy written by eco_mem.pyz)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ecomem.commands.merge_catalog import drive  # noqa: E402

sys.exit(drive(sys.argv[1:]))
'''


RESOLVE = "resolve.py"  # in the eco-mem folder of the common dir, beside the copies
RESOLVE_TEXT = '''\
"""eco-mem's `resolve`, run from the merge driver's copy (written by eco_mem.pyz track)."""
import os
import sys

copy = os.path.join(os.path.dirname(os.path.abspath(__file__)), "{folder}")
if os.path.islink(copy) or not os.path.isdir(copy):  # a link could lead into the work tree
    print("eco_mem.pyz resolve: its copy of the merge code is gone or a link; run `eco_mem.pyz track`", file=sys.stderr)
    sys.exit(2)
sys.path.insert(0, copy)
from ecomem.commands.resolve import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
'''


CONTEXT = "context.py"  # beside resolve.py: what the SessionStart hook runs (hooks.py)
CONTEXT_TEXT = '''\
"""eco-mem's session digest, run from the copy in the git dir (written by eco_mem.pyz track)."""
import os
import sys

copy = os.path.join(os.path.dirname(os.path.abspath(__file__)), "{folder}")
if os.path.islink(copy) or not os.path.isdir(copy):  # a link could lead into the work tree
    sys.exit(0)  # a session starts without the digest rather than run the branch's code
sys.path.insert(0, copy)
try:
    from ecomem.commands.context import emit
except Exception:  # a Python too old for the package: no digest, never a failed hook
    if os.environ.get("ECO_MEM_DEBUG"):
        import traceback

        traceback.print_exc()
    sys.exit(0)
sys.exit(emit(sys.argv[1]))
'''


def snapshot() -> tuple[str, dict[str, bytes]]:
    """(checksum, {relative path: bytes}) of the copy the running scripts would write.
    Two checksums of zlib, not hashlib: hashlib loads OpenSSL, which would cost every
    memory command more than this whole check. A collision would only keep an older
    copy, written by an earlier run of these same commands."""
    from .. import protocol
    from ..answers_file import recorded

    files = {ENTRY: ENTRY_TEXT.encode("utf-8")}
    files.update(_module_bytes())
    # The answers this clone runs with, kept with the copy: the work tree's answers
    # file is a branch's to change, and the copy's folders are the clone's own.
    files[ANSWERS] = recorded(protocol.SETTLED).encode("utf-8")
    blob = b"".join(
        name.encode("utf-8") + b"\0" + str(len(data)).encode() + b"\0" + data
        for name, data in files.items()
    )
    return f"{zlib.crc32(blob):08x}{zlib.adler32(blob):08x}", files


def _module_bytes() -> dict[str, bytes]:
    """MODULES as the runtime file holds them: read from the archive itself, never from
    the cache it was unpacked into (a tree any earlier run could have written), nor from
    sys.modules' files. From the source tree (runtime/, as the template's tests run it),
    its files."""
    import sys

    archive = getattr(sys.modules.get("__main__"), "ARCHIVE", "")
    if archive and os.path.isfile(archive):
        import zipfile

        with zipfile.ZipFile(archive) as packed:
            return {name: packed.read(name) for name in MODULES}
    top = Path(__file__).resolve().parent.parent.parent  # the folder that holds `ecomem`
    return {name: (top / name).read_bytes() for name in MODULES}


def driver_command(stamp: str) -> str:
    """What git runs, with %O base, %A ours (where the result goes), %B theirs, %P path.

    No path from the work tree or the answers appears in it, so nothing needs
    quoting: git quotes %P itself, %O %A %B are its temporary files, and the copy
    is found through `git rev-parse`, in the clone's own git dir wherever it moved.
    """
    # Imported here: `missing` and `resolve_launcher` run before `resolve` hands over
    # to the copy, and must not load the work tree's merge code on the way.
    from ..store.merge import ROW_MERGE_SUFFIX

    rows = f"%A{ROW_MERGE_SUFFIX}"  # what a row merge that stopped half way may leave
    # git's text merge first: rows are placed by key, so concurrent changes mostly
    # touch different lines and its answer is the row-wise one. Only when it
    # conflicts does Python start (-I: nothing from the environment or the current
    # folder; -S: no site module, whose .pth files can cost more than the merge).
    # git's text merge is kept in the token "$t", in this work tree's git dir (no
    # commit reaches it; $$ makes it this driver's own). The copy writes its merge
    # into %A and then deletes the token: a missing token is the one sign that it
    # finished. Any other ending (no python3, one too old, a crash, a signal, a copy
    # refused below) leaves git's own text merge, markers and all, in %A.
    #
    # Before Python runs the copy, the shell itself checks where the copy really is
    # (safe_home's rule, in builtins: no process is added). Neither `eco-mem` nor the
    # copy's folder may be a link (a committed `.claude/skills -> ../.git` once
    # rendered `.git/eco-mem` as a link into the tracked skill), and the copy's real
    # path, `cd -P`, must lie outside the work tree (git runs drivers at its top) or
    # under its real `.git` folder. Python then runs that real path, the one checked.
    # CDPATH is dropped so `cd` goes where the path says and prints nothing.
    # `missing` finds the stamp after "/eco-mem/merge-driver-": keep those words whole.
    copy = f'"$(git rev-parse --git-common-dir)/{HOME}/{PREFIX}{stamp}"'
    return (
        f'{SHELL_ABSOLUTE_PATH} unset CDPATH; t="$(git rev-parse --git-dir)/{TOKEN_PREFIX}$$";'
        ' git merge-file -q -p %A %O %B > "$t" 2>/dev/null; m=$?;'
        ' if [ $m = 0 ]; then mv -f "$t" %A; exit 0; fi;'
        f' c={copy}; h="${{c%/*}}"; r=;'
        ' if cd -P . && w=$PWD && [ ! -L "$h" ] && [ ! -L "$c" ] && cd -P "$c" 2>/dev/null;'
        ' then r=$PWD; cd "$w" || exit 1; fi;'
        ' case "$r/" in "$w/.git/"*) ;; "/" | "$w/"*) r= ;; esac;'
        f' if [ -n "$r" ]; then python3 -I -S "$r/{ENTRY}" %O %A %B %P "$t"; s=$?;'
        ' else s=1; echo "eco-mem: $c is missing, a link, or in the work tree:'
        ' this catalog merges as text; run eco_mem.pyz verify" >&2; fi;'
        ' if [ ! -e "$t" ]; then [ $s = 0 ]; exit; fi;'
        f' if [ $m -lt 128 ]; then mv -f "$t" %A; fi; rm -f "$t" {rows}; exit 1'
    )


def _section(line: str) -> bool | None:
    """True for our section's header line, False for another section's, None otherwise."""
    stripped = line.strip()
    if not stripped.startswith("["):
        return None
    head = stripped[1 : stripped.find("]")] if "]" in stripped else stripped[1:]
    kind, _, name = head.strip().partition(" ")
    return kind.strip().lower() == "merge" and name.strip() == f'"{DRIVER}"'


def _unquote(value: str) -> str:
    """A git config value as git reads it: quotes dropped, backslash escapes applied."""
    out, quoted, escape = [], False, False
    for char in value:
        if escape:
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(char, char))
            escape = False
        elif char == "\\":
            escape = True
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()


def configured_driver(text: str) -> str | None:
    """The `driver` value of [merge "eco-mem-catalog"] in a git config text, if any."""
    inside, found = False, None
    for line in text.splitlines():
        section = _section(line)
        if section is not None:
            inside = section
            continue
        key, equals, value = line.partition("=")
        if inside and equals and key.strip().lower() == "driver":
            found = _unquote(value.strip())
    return found


def _install(home: Path, files: dict[str, bytes]) -> None:
    """Write the copy into `home` whole or not at all: built in a temporary folder
    beside it, then renamed into place.

    Not compiled: the first digest or merge run from the copy writes the bytecode of
    what it imports, once per clone and release. Compiling all of it here cost every
    copy, update and `track` 0.1 s, to spare only that first run (with this Python)."""
    import tempfile

    home.parent.mkdir(exist_ok=True)
    if home.is_symlink():  # the link itself goes, never what it leads to
        home.unlink()
    elif home.exists():  # a copy someone damaged: rebuilt
        shutil.rmtree(home)
    building = Path(tempfile.mkdtemp(prefix=".building-", dir=home.parent))
    try:
        for name, data in files.items():
            target = building / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        try:
            os.rename(building, home)
        except OSError:
            if not (home / ENTRY).is_file():  # not another process that got there first
                raise
    finally:
        if building.exists():
            shutil.rmtree(building, ignore_errors=True)


def _prune(folder: Path, keep: Path | None) -> None:
    """Remove every copy in `folder` but `keep` (older versions, and builds a crash left)."""
    if not folder.is_dir():
        return
    for child in folder.iterdir():
        if child != keep and child.name.startswith((PREFIX, ".building-")):
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink()


def ensure_driver(root: Path) -> bool:
    """Make the clone's copy of the driver match the running scripts, and git's config
    name it; True if it wrote. The only place that writes either, called only by the
    commands that install on purpose (`track`, run by copy, update and upgrade)."""
    dirs = git_dirs(root)
    config = dirs[1] / "config" if dirs else None
    if config is None or not config.is_file():
        return False
    from ..git_home import safe_home
    from ..safe_open import UnsafeTarget

    stamp, files = snapshot()
    command = driver_command(stamp)
    with config.open(encoding="utf-8", errors="replace") as handle:
        configured = configured_driver(handle.read())
    try:
        home = safe_home(root, dirs[1]) / f"{PREFIX}{stamp}"  # never through a link
    except UnsafeTarget as refusal:
        # No copy is written there. But a command an older eco-mem configured runs
        # whatever that link leads to on the next merge: it is replaced by this one,
        # whose own check refuses the link and leaves git's text merge.
        if configured is None or configured == command:
            raise
        _set_config(config, command)
        raise UnsafeTarget(f"{refusal}; git's merge driver refuses to run until then") from None
    # Every file compared, not one stat: this runs only when a person installs on
    # purpose, and a damaged copy is then rebuilt rather than kept.
    present = all(_holds_itself(home, name, data) for name, data in files.items())
    launchers = {
        home.parent / RESOLVE: RESOLVE_TEXT.format(folder=home.name).encode("utf-8"),
        home.parent / CONTEXT: CONTEXT_TEXT.format(folder=home.name).encode("utf-8"),
    }
    current = all(_holds(path, text) for path, text in launchers.items())
    if configured == command and present and current:
        return False
    if not present:
        _install(home, files)
    for launcher, launcher_text in launchers.items():
        if not _holds(launcher, launcher_text):
            _write_whole(launcher, launcher_text)
    if configured != command:  # only on the first run in a clone, or after a change
        _set_config(config, command)
    _prune(home.parent, home)
    return True


def _set_config(config: Path, command: str) -> None:
    """Name `command` as the driver in git's config."""
    from ..git import output

    # One `git config` call per key, each an atomic write under git's lock. The
    # command first: a section holding only a name makes every merge of a
    # catalog fatal ("lacks command line"), one without a name merges fine.
    for key, value in (("driver", command), ("name", DRIVER_NAME)):
        output(config.parent, "config", "--file", os.fspath(config), f"merge.{DRIVER}.{key}", value)


def _holds_itself(home: Path, name: str, data: bytes) -> bool:
    """Whether the copy's file `name` holds `data` and is reached through no link (the
    driver's command refuses a linked copy; a link deeper down is rebuilt too)."""
    path = home
    for part in Path(name).parts:  # home, then each folder down, then the file
        if path.is_symlink():
            return False
        path = path / part
    return not path.is_symlink() and _holds(path, data)


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _write_whole(path: Path, data: bytes) -> None:
    temp = path.with_name(f".building-{os.getpid()}-{path.name}")
    temp.write_bytes(data)
    os.replace(temp, path)


def missing(root: Path) -> bool:
    """Whether this clone lacks a working driver: no config section naming a copy, or
    the copy it names is gone or one the driver's command refuses (a link, a git dir
    in the work tree: verify names it). One read of the config, a few stats; nothing
    written."""
    dirs = git_dirs(root)
    config = dirs[1] / "config" if dirs else None
    if config is None or not config.is_file():
        return False  # not a clone: nothing git would run
    with config.open(encoding="utf-8", errors="replace") as handle:
        configured = configured_driver(handle.read())
    mark = f"/{HOME}/{PREFIX}"
    if not configured or mark not in configured:
        return True
    tail = configured.split(mark, 1)[1]
    stamp = tail[: len(tail) - len(tail.lstrip("0123456789abcdef"))]
    return _safe_copy(root, dirs[1], stamp) is None


def _safe_copy(root: Path, common: Path, stamp: str) -> Path | None:
    """The copy named `stamp` in `common/eco-mem`, when it is what the driver's command
    and the launcher accept: no link from the git dir down, not in the work tree."""
    from ..git_home import safe_home
    from ..safe_open import UnsafeTarget

    try:
        copy = safe_home(root, common) / f"{PREFIX}{stamp}"
    except UnsafeTarget:
        return None
    if not stamp or copy.is_symlink() or (copy / ENTRY).is_symlink():
        return None
    return copy if (copy / ENTRY).is_file() else None


def resolve_launcher(root: Path) -> Path | None:
    """The `resolve` of the copy git runs, when this clone has one."""
    dirs = git_dirs(root)
    if dirs is None:
        return None
    from ..git_home import safe_home
    from ..safe_open import UnsafeTarget

    try:
        launcher = safe_home(root, dirs[1]) / RESOLVE  # never one a commit could hold
    except UnsafeTarget:
        return None
    if not launcher.is_file() or launcher.is_symlink():
        return None
    # The copy it names must be there and safe: else the launcher would only fail.
    text = launcher.read_text(encoding="utf-8", errors="replace")
    named = text.partition(f'"{PREFIX}')[2].partition('"')[0]
    return launcher if _safe_copy(root, dirs[1], named) is not None else None


def installed(root: Path) -> bool:
    """Whether this clone has the driver: its config section, a copy of it, or a link
    where the copies go (which `remove_driver` takes out, never what it leads to)."""
    dirs = git_dirs(root)
    if dirs is None:
        return False
    home = dirs[1] / HOME
    return _configured(dirs[1] / "config") or home.is_symlink() or bool(_copies(home))


def _configured(config: Path) -> bool:
    if not config.is_file():
        return False
    with config.open(encoding="utf-8", errors="replace") as handle:
        return any(_section(line) for line in handle.read().splitlines())


def _copies(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return [child for child in folder.iterdir() if child.name.startswith(PREFIX)]
