"""Claude Code's SessionStart hook: eco-mem's one entry in `.claude/settings.json`.

Claude Code runs the command of each SessionStart hook whose matcher fits how the session
began (startup, resume, clear, compact) and adds what it prints to the agent's context.
Ours prints `eco_mem.pyz context`, so an open desk is back in context after a compaction
without the agent having to remember to read it. docs/harnesses.md has the format and
the documentation it follows.

settings.json belongs to the host: every byte outside eco-mem's entry stays as it was.
The file is checked as JSON, then edited as text (json_text.py): the entry is added last
in the SessionStart list (made if missing), an older one rewritten where it stands, and
removal takes out only ours. A file that is not one JSON object is left untouched with a
one-line reason (HookError); so is one reached through a link leading out of the
repository. Nothing is written when the entry is already current.
"""

from __future__ import annotations

import json
import os
import posixpath

from ecomem import protocol
from ecomem.git import SHELL_ABSOLUTE_PATH

from . import json_text

SETTINGS = ".claude/settings.json"
EVENT = "SessionStart"
MATCHER = "startup|resume|clear|compact"
BOM = "\ufeff"
MAX_BYTES = 1024 * 1024
HOME = "eco-mem"  # the folder in the common git dir holding the digest's copy (gitsetup/driver.py)
LAUNCHER = "context.py"  # driver.CONTEXT, written there by `track`
# A settings.json that holds only our hook is ours, indented with two spaces as prettier
# and oxfmt want it; Biome's default is tabs, and no JSON of this length satisfies both
# (each breaks it over lines, then indents). Beside it, a nested Biome configuration
# that inherits the host's own (`"//"`, or Biome's defaults) but leaves this file and
# itself unformatted, written in the shape prettier and oxfmt keep.
BIOME_SETTINGS = ".claude/biome.jsonc"
BIOME_TEXT = """\
// eco-mem made settings.json here for its SessionStart hook, indented with two spaces
// as prettier and oxfmt want it; Biome's default is tabs, so Biome leaves that file
// and this one as they are. Delete this file to have Biome format them again.
{
  "root": false,
  "extends": "//",
  "overrides": [
    {
      "includes": ["settings.json", "biome.jsonc"],
      "formatter": { "enabled": false },
    },
  ],
}
"""


class HookError(Exception):
    """settings.json is left as it is; the message says why, in one line."""


def hook_command(skill_dir: str = protocol.SKILL_DIR) -> str:
    """The shell command Claude Code runs: the digest, from the clone's git-dir copy.

    The checked-out branch may be anyone's (a pull request under review, a cloud agent's
    clone), and its scripts are its author's code. So, as git's merge driver does
    (gitsetup/driver.py), the hook runs the copy `track` keeps in `<common git dir>/eco-mem/`,
    where no commit reaches, and checks in shell builtins first that neither that folder
    nor its `context.py` is a link and that its real path lies outside the work tree or
    under its real `.git`. No copy yet (a fresh clone before `track`): one line saying to
    run track, and nothing from the work tree runs. `-I -S`: nothing from the
    environment, the current folder or site-packages. It always exits 0: a machine
    without python3 must not report a failed hook at every start.
    """
    import shlex

    # path_rule.py's charset already makes the path shell-safe; the quote keeps it so
    # should a caller ever pass a folder that rule has not judged.
    script = posixpath.join(skill_dir, "scripts", "eco_mem.pyz")
    message = shlex.quote(
        f"eco-mem: no session digest in this clone yet: run `python3 {script} track` once"
        " (it copies the digest code into .git, where no branch can change it)"
    )
    return (
        f'{SHELL_ABSOLUTE_PATH} unset CDPATH; o=$PWD; r=; if cd -P "$CLAUDE_PROJECT_DIR" 2>/dev/null && w=$PWD'
        ' && g="$(git rev-parse --git-common-dir 2>/dev/null)"'
        f' && c="$g/{HOME}/{LAUNCHER}" && h="${{c%/*}}" && [ ! -L "$h" ] && [ ! -L "$c" ]'
        ' && [ -f "$c" ] && cd -P "$h" 2>/dev/null; then r=$PWD; fi;'
        ' case "$r/" in "$w/.git/"*) ;; "/" | "$w/"*) r= ;; esac;'
        # Back in the session's folder: the digest lists the stores around it first.
        f' if [ -n "$r" ]; then cd "$o" 2>/dev/null; python3 -I -S "$r/{LAUNCHER}" "$w";'
        f" elif command -v python3 >/dev/null 2>&1; then echo {message}; fi;"
        " exit 0"
    )


def is_ours(hook: object) -> bool:
    """An entry eco-mem wrote: the git-dir copy's digest, or an older command running the
    work tree's eco_mem.py(z) `context` (at any skill path), which track then replaces."""
    command = hook.get("command") if isinstance(hook, dict) else None
    if not isinstance(command, str):
        return False
    return f"/{HOME}/{LAUNCHER}" in command or ("eco_mem.py" in command and " context" in command)


def our_group(skill_dir: str = protocol.SKILL_DIR) -> dict:
    return {"matcher": MATCHER, "hooks": [{"type": "command", "command": hook_command(skill_dir)}]}


def add_hook(root, skill_dir: str = protocol.SKILL_DIR) -> bool:
    """Put eco-mem's SessionStart entry in settings.json, creating the file if needed, and
    bring an older one (another skill path) up to date in its place. True when the file
    changed; HookError when it is left untouched."""
    text, style = read_settings(root)
    wanted = our_group(skill_dir)
    ours_alone = json.dumps({"hooks": {EVENT: [wanted]}}, indent=2) + "\n"
    if not text.strip():
        new = ours_alone
    else:
        new = text
        while True:  # one edit at a time, each on a fresh parse; every step ends one problem
            edited = _add_step(new, wanted, style)
            if edited is None:
                break
            new = edited
    changed = new != text
    if changed:
        write_settings(root, os.path.join(root, SETTINGS), style.encode(new))
    if new == ours_alone and style.encode(new) == new.encode("utf-8"):
        changed |= _add_biome_settings(root)
    return changed


def _add_biome_settings(root) -> bool:
    """BIOME_TEXT beside a settings.json of ours alone, unless a Biome configuration is
    there already (the host's, or ours): True when written."""
    from ecomem import safe_open

    folder = os.path.dirname(os.path.join(root, BIOME_SETTINGS))
    if any(os.path.lexists(os.path.join(folder, name)) for name in ("biome.json", "biome.jsonc")):
        return False
    try:
        safe_open.write_bytes(root, os.path.join(root, BIOME_SETTINGS), BIOME_TEXT.encode())
    except safe_open.UnsafeTarget as error:
        raise HookError(f"{error}; {BIOME_SETTINGS} not written") from None
    return True


def remove_hook(root) -> bool:
    """Take eco-mem's entries out of settings.json, then the SessionStart list and the
    `hooks` object if that left them empty. Every other byte stays, and so does the file,
    even as `{}`: the host may have had it before. True when something changed;
    HookError when the file is left untouched."""
    planned = planned_removal(root)
    removed = False
    if our_biome_settings(root):
        from ecomem import safe_open

        safe_open.remove(root, os.path.join(root, BIOME_SETTINGS))
        removed = True
    if planned is None:
        return removed
    write_settings(root, os.path.join(root, SETTINGS), planned)
    return True


def our_biome_settings(root) -> bool:
    """Whether BIOME_SETTINGS is there with our bytes (an edited one is the host's)."""
    path = os.path.join(root, BIOME_SETTINGS)
    if os.path.islink(path) or not os.path.isfile(path):
        return False
    with open(path, "rb") as handle:
        return handle.read(len(BIOME_TEXT) + 1) == BIOME_TEXT.encode()


def planned_removal(root) -> bytes | None:
    """The bytes settings.json holds once eco-mem's entries are out, None when it holds
    none: the plan `remove_hook` writes and `uninstall` shows before writing."""
    text, style = read_settings(root)
    if not text.strip():
        return None
    new = text
    while True:
        groups = _groups(json_text.parse(new), create=False)
        ours = _ours(groups) if groups is not None else []
        if not ours:
            break
        new = _remove_ours(new, groups, *ours[0])
    if new == text:
        return None
    tree = json_text.parse(new)
    hooks = tree.get("hooks")
    groups = hooks.get(EVENT)
    if groups is not None and not groups.items:
        new = json_text.remove(new, hooks, _index(hooks, EVENT))
        tree = json_text.parse(new)
        hooks = tree.get("hooks")
        if not hooks.members:
            new = json_text.remove(new, tree, _index(tree, "hooks"))
    return style.encode(new)


def sync_hook(root, claude_code: bool = protocol.CLAUDE_CODE) -> bool:
    """The hook as the `claude_code` answer wants it: present when on, gone when off."""
    return add_hook(root) if claude_code else remove_hook(root)


def _add_step(text: str, wanted: dict, style: Style) -> str | None:
    """The next edit towards exactly one eco-mem entry, equal to `wanted`; None when there."""
    tree = json_text.parse(text)
    groups = _groups(tree, create=True)
    if not isinstance(groups, json_text.Node):  # a missing level: add it, holding our group
        container, key = groups
        value = [wanted] if key == EVENT else {EVENT: [wanted]}
        return json_text.append(text, container, (key, value), style.unit, style.ascii)
    ours = _ours(groups)
    current = [index for index, group in enumerate(groups.items) if group.value == wanted]
    if current and len(ours) == 1:
        return None
    if current:  # another entry of ours besides the current one: drop it
        extra = next(place for place in ours if place[0] != current[0])
        return _remove_ours(text, groups, *extra)
    whole = [index for index, _ in ours if _only_ours(groups.items[index].value)]
    if whole:  # our older entry, with another command: rewrite it where it stands
        node = groups.items[whole[0]]
        return json_text.replace(text, node, wanted, style.unit, style.ascii)
    if ours:  # our command inside a group of the host's: take it out, add ours after
        return _remove_ours(text, groups, *ours[0])
    return json_text.append(text, groups, wanted, style.unit, style.ascii)


def _groups(tree, create: bool):
    """The SessionStart list node. When a level is missing: None, or with `create` the
    (container node, key) where it should be added."""
    if tree.kind != "object":
        raise HookError(f"{SETTINGS}: not a JSON object; left untouched")
    hooks = tree.get("hooks")
    if hooks is None:
        return (tree, "hooks") if create else None
    if hooks.kind != "object":
        raise HookError(f"{SETTINGS}: `hooks` is not a JSON object; left untouched")
    groups = hooks.get(EVENT)
    if groups is None:
        return (hooks, EVENT) if create else None
    if groups.kind != "array":
        raise HookError(f"{SETTINGS}: `hooks.{EVENT}` is not a JSON list; left untouched")
    return groups


def _ours(groups) -> list[tuple[int, int]]:
    """(group index, hook index) of every eco-mem command in the SessionStart list."""
    found = []
    for group_index, group in enumerate(groups.items):
        hooks = group.get("hooks") if group.kind == "object" else None
        if hooks is not None and hooks.kind == "array":
            found += [(group_index, i) for i, hook in enumerate(hooks.items) if is_ours(hook.value)]
    return found


def _only_ours(group: dict) -> bool:
    hooks = group.get("hooks")
    return set(group) <= {"matcher", "hooks"} and all(is_ours(hook) for hook in hooks)


def _remove_ours(text: str, groups, group_index: int, hook_index: int) -> str:
    """Remove one of our commands; its group too when nothing else is left in it."""
    group = groups.items[group_index]
    hooks = group.get("hooks")
    if len(hooks.items) == 1:
        return json_text.remove(text, groups, group_index)
    return json_text.remove(text, hooks, hook_index)


def _index(node, key: str) -> int:
    return next(index for index, (name, _, _) in enumerate(node.members) if name == key)


# -- reading and writing the file as the host wrote it ------------------------------


class Style:
    """How the host's file is written, so the text we add looks like the rest."""

    __slots__ = ("ascii", "bom", "crlf", "unit")

    def __init__(self, text: str = "") -> None:
        self.bom = text.startswith(BOM)
        # CRLF throughout: edit as LF, write back as CRLF (a file mixing both keeps LF).
        self.crlf = "\r\n" in text and text.count("\n") == text.count("\r\n")
        self.unit = _indent(text)
        # \u escapes and no raw non-ASCII: the host writes ASCII only; keep doing so.
        self.ascii = text.isascii() and "\\u" in text

    def decode(self, text: str) -> str:
        text = text[1:] if self.bom else text
        return text.replace("\r\n", "\n") if self.crlf else text

    def encode(self, text: str) -> bytes:
        text = text.replace("\n", "\r\n") if self.crlf else text
        return ((BOM if self.bom else "") + text).encode("utf-8")


def _indent(text: str):
    """The host's indentation unit: a tab, or the spaces of the least indented line; 2 if
    the file has no indented line (new, empty, or on one line)."""
    widths = []
    for line in text.split("\n")[1:]:  # not splitlines: JSON strings may hold U+2028
        stripped = line.lstrip(" \t")
        if not stripped or len(stripped) == len(line):
            continue
        if line[0] == "\t":
            return "\t"
        widths.append(len(line) - len(stripped))
    return min(widths) if widths else 2


def read_settings(root) -> tuple[str, Style]:
    """settings.json's text (BOM and CRLF taken off) and how it is written; "" when there
    is none. HookError when it is not one JSON object with each key once."""
    path = os.path.join(root, SETTINGS)
    if not os.path.lexists(path):
        return "", Style()
    _check_inside(root, path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as error:
        raise HookError(f"{SETTINGS}: cannot be read ({error.strerror}); left untouched") from None
    if len(raw) > MAX_BYTES:
        raise HookError(f"{SETTINGS}: larger than 1 MiB; left untouched")
    try:
        original = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise HookError(f"{SETTINGS}: not UTF-8 text; left untouched") from None
    style = Style(original)
    text = style.decode(original)
    if not text.strip():
        return text, style
    try:
        json_text.check_depth(text)  # before anything recursive reads it
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except ValueError as error:
        reason = getattr(error, "msg", None) or str(error)
        where = f" (line {error.lineno}, column {error.colno})" if hasattr(error, "lineno") else ""
        raise HookError(
            f"{SETTINGS}: not valid JSON{where}: {reason}; left untouched, so Claude Code"
            f" starts sessions without the memory digest. Fix the file, then run"
            " `python3 <eco-mem release checkout>/ops.py blocks --root .`"
        ) from None
    if not isinstance(data, dict):
        raise HookError(f"{SETTINGS}: not a JSON object; left untouched")
    return text, style


def _unique_keys(pairs: list) -> dict:
    """A JSON object as a dict; a key given twice makes the file too ambiguous to edit."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise ValueError(f"the key {twice!r} appears twice in one object")
    return data


def _check_inside(root, path: str) -> None:
    """Before reading: refuse what safe_open would refuse to write (a link leading out of
    the repository, a place under .git, a FIFO or anything not a regular file, which
    could also hang the read) and a dangling link."""
    from ecomem import safe_open

    try:
        safe_open.target(root, path, follow=True)
    except safe_open.UnsafeTarget as error:
        raise HookError(f"{error}; {SETTINGS} left untouched") from None
    if os.path.islink(path) and not os.path.exists(path):
        raise HookError(f"{SETTINGS} is a dangling link; left untouched")


def write_settings(root, path: str, data: bytes) -> None:
    """The one writer of settings.json, through safe_open like every other host file:
    inside the repository only (a link inside it is written through), a regular file,
    written in place so its permissions stay."""
    from ecomem import safe_open

    try:
        safe_open.make_folders(root, os.path.dirname(path))
        safe_open.write_bytes(root, path, data, follow=True)
    except safe_open.UnsafeTarget as error:  # the copy goes on; only the hook is skipped
        raise HookError(f"{error}; {SETTINGS} left untouched") from None
