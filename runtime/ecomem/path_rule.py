"""The one rule for a folder answer (`skill_path`, `memory_path`), defined once.

These answers are written into shell commands (AGENTS.md's load line, the CI
`run:` line, the SessionStart hook) and into text agents read. So each part of
the path is a plain name: letters, digits, `.`, `_` and `-` only, never
starting with `-` (it would read as an option), never `.`, `..` or a name a
file system reads as `.git` (`is_git_dir`), and the path is relative. With that charset no shell, YAML or
Markdown reading the path sees anything but the path: commands built from it
need no quoting. The template's validators (extensions/protocol.py), the fleet
(eco_mem_fleet/own_scripts.py) and this script's own reading of the answers
file all load this module, so the rule cannot drift between them.

Stdlib only: it runs inside the rendered scripts too.
"""

from __future__ import annotations

PART_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def is_git_dir(part: str) -> bool:
    """`.git` as a file system that ignores case (macOS, Windows) would read the name,
    with Windows's trailing dots and spaces dropped and its 8.3 short name GIT~1."""
    return part.casefold().rstrip(". ") in (".git", "git~1")


def path_rule_problem(value: object) -> str:
    """Why `value` is not a plain repo-relative folder, or "" when it is."""
    path = "" if value is None else str(value)
    if not path.strip():
        return "must not be empty"
    if path != path.strip():
        return "must not start or end with spaces"
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return "must be relative to the repository root, not absolute"
    if path.endswith("/"):
        return "drop the trailing slash"
    if "\\" in path:
        return "use forward slashes, not backslashes"
    for part in path.split("/"):
        if part in ("", ".", ".."):
            return "must not contain empty, '.' or '..' segments"
        if not PART_CHARACTERS.issuperset(part):
            return (
                "each folder name may hold only letters, digits, '.', '_' and '-'"
                " (no spaces, quotes, '$', ';' or control characters)"
            )
        if part.startswith("-"):
            # A command would read such a folder as an option (git, the shell, ours).
            return "must not have a folder name starting with '-'"
        if is_git_dir(part):
            # On macOS and Windows `.GIT` and `.git.` are the same folder.
            return "must not be inside .git/"
    return ""
