"""Rows every change follows: a fact or procedure marked `[always]` in its catalog row.

Most memory waits for a task to name it (`find WORDS`). A convention that every change
must follow (messages go through gettext, money is stored in cents, each change adds a
changelog fragment) is seldom named by a task's words, so the load step prints it
unasked, the way harnesses load always-on rules. The mark lives in the row, where the
load step already reads, at the start of its text cell (a fact's one-liner, a
procedure's `use when`):

    [always] User-facing messages go through gettext
    [always: src/api/**, *.sql] Handlers return problem+json

With paths, the row is printed only for a task that touches a matching path (a word of
the query that looks like a path, `find --path`, or the working folder). A pattern's `*`
spans folders, as in .gitignore's `**`; a bare folder matches everything under it.
"""

from __future__ import annotations

import posixpath

from ..lazy_re import lazy

# The drawers whose rows may carry the mark, and the cell that holds it.
CELL = {"semantic": "one-liner", "procedural": "use when"}
# Patterns are path-shaped and few: a mark that holds anything else (words, brackets,
# spaces inside a pattern) is no mark, and verify reports the row (catalog.always-mark),
# so the brackets can never carry text past the injection rule.
PATTERN = r"[A-Za-z0-9_.*?/-]{1,100}"
MAX_PATTERNS = 8
MARK = lazy(rf"\[always(?::[ \t]*({PATTERN}(?:,[ \t]*{PATTERN}){{0,{MAX_PATTERNS - 1}}}))?\][ \t]+")
# A query word that names a file or folder: it holds a slash, or ends in an extension.
PATH_WORD = lazy(r"(?:[\w.-]+/)+[\w.*-]*|[\w-]+\.[A-Za-z][\w]{0,7}")


def mark_of(text: str) -> tuple[list[str], str] | None:
    """(its path patterns, [] for every change; the text after the mark), or None when
    `text` carries no well-formed mark."""
    if not text.startswith("[always"):
        return None  # most rows: no pattern compiled to say so
    found = MARK.match(text)
    if found is None:
        return None
    patterns = [part.strip() for part in (found.group(1) or "").split(",")]
    return [part for part in patterns if part], text[found.end() :]


def malformed(text: str) -> bool:
    """A cell that starts like a mark but is none: reported, withheld, never obeyed."""
    return text.startswith("[always") and mark_of(text) is None


# What find and the session digest print for a marked row they hold back, after its slug.
HELD_BACK = "held back: reads like an instruction to the agent"


def held_back(text: str) -> bool:
    """Whether a row's text cell is held back from find and the session digest: a marked
    row reaches every session unasked, so the injection rule's strictest reading decides
    (text/injection.py's doubts), of the text with its mark and without; and a mark that
    is none (malformed) is held back as well."""
    if malformed(text):
        return True
    from ..text.injection import doubts

    rest = unmarked(text)
    return doubts(text) or (rest != text and doubts(rest))


def marked(text: str, patterns: list[str]) -> str:
    """`text` with the mark in front (an older mark replaced)."""
    plain = mark_of(text)
    rest = plain[1] if plain is not None else text
    mark = f"[always: {', '.join(patterns)}]" if patterns else "[always]"
    return f"{mark} {rest}"


def unmarked(text: str) -> str:
    plain = mark_of(text)
    return plain[1] if plain is not None else text


def task_paths(words: list[str]) -> list[str]:
    """The words of a query that name a file or folder, repository-relative."""
    found = []
    for word in " ".join(words).split():
        word = word.strip("`'\",;:()[]")
        if word.startswith("./"):
            word = word[2:]
        if PATH_WORD.fullmatch(word):
            found.append(word)
    return found


def applies(patterns: list[str], paths: list[str]) -> bool:
    """Whether a row with these path patterns applies to a task touching `paths`: always
    when it has none."""
    if not patterns:
        return True
    return any(_matches(pattern, path) for pattern in patterns for path in paths)


def _matches(pattern: str, path: str) -> bool:
    from fnmatch import fnmatchcase  # loads re: only for a row with path patterns

    pattern = pattern[2:] if pattern.startswith("./") else pattern
    path = posixpath.normpath(path)
    folder = pattern.rstrip("/")
    if not any(char in folder for char in "*?["):
        # A folder or file named plainly: it, and everything under it.
        return path == folder or path.startswith(folder + "/") or folder.startswith(path + "/")
    if "/" not in pattern:  # `*.sql`: a file name anywhere, as .gitignore reads it
        return fnmatchcase(posixpath.basename(path), pattern)
    return fnmatchcase(path, pattern) or fnmatchcase(path + "/", pattern)


class MarkedRow:
    """One marked row as the session digest names it."""

    __slots__ = ("catalog", "line", "text", "where")

    def __init__(self, text: str, where: str, catalog: str, line: str) -> None:
        self.text = text  # the row's text cell without its mark
        self.where = where  # the entry to open, or what a pointer points to ("" if neither)
        self.catalog = catalog  # the INDEX.md holding it, repository-relative
        self.line = line  # the row as the catalog holds it (provenance judges rows by it)


def marked_rows(root, memory_dir: str, paths: list[str], unreviewed=None) -> list[MarkedRow]:
    """Each marked row in the store `memory_dir` that applies to a task touching `paths`,
    but those `unreviewed(catalog, line, entry)` names: judged first, never matched.
    A catalog that a link takes out of its place, or that is no plain file, is skipped:
    the readers' rule (store/place.py); verify reports it."""
    import os

    from ..text.textfile import read_lines
    from .place import refused

    found = []
    for drawer, column in CELL.items():
        relpath = f"{memory_dir}/{drawer}/INDEX.md"
        full = os.path.join(root, relpath)
        if refused(root, memory_dir, drawer) or os.path.islink(full) or not os.path.isfile(full):
            continue
        lines, _ = read_lines(full, relpath)
        if not lines or not any(line[:1] == "|" and "[always" in line for line in lines):
            continue  # most catalogs: the session digest then loads no parser (nor re)
        from .catalog import cell_path, parse_catalog
        from .names import is_slug_file

        catalog = parse_catalog(lines)
        if column not in catalog.columns:
            continue
        at = catalog.columns.index(column)
        for row in catalog.rows:
            if len(row.cells) != len(catalog.columns):
                continue
            mark = mark_of(row.cells[at])
            if mark is None:
                continue
            target = cell_path(row.cells[-1])
            where = f"{memory_dir}/{drawer}/{target}" if is_slug_file(target) else ""
            line = lines[row.line - 1]
            if unreviewed is not None and unreviewed(relpath, line, where):
                continue
            if applies(mark[0], paths):
                found.append(MarkedRow(mark[1], where, relpath, line))
    return found


def scope_folder(scope: str) -> str | None:
    """The folder a path-like scope names (`packages/web/**`, `packages/web/`), else None:
    `repo` or `database` name no folder."""
    from ..paths import escapes  # only for a scope: the session digest never asks

    value = scope.strip().strip("`")
    for tail in ("/**", "/*", "/"):
        if value.endswith(tail):
            value = value[: -len(tail)]
            break
    if "/" not in scope or not value or escapes(value) or any(c in value for c in "*?["):
        return None
    return posixpath.normpath(value)
