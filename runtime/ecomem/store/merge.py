"""A three-way merge of one drawer's INDEX.md, row by row.

Git merges text line by line, so two branches that each add a row at the same
spot of a catalog table conflict although nothing contradicts. Here the table
is merged as a set of rows, each known by its identity: the file its `file`
cell names, or its first cell when the file is `-` (a procedural pointer) or
the table has no `file` column. Per identity:

- added on one side, or on both with the same cells: kept, once;
- changed on one side only: the change wins;
- deleted on one side and unchanged on the other: deleted;
- changed differently on both sides, deleted on one side and changed on the
  other, or added on both sides with different cells: a conflict. Both
  versions stay in the file between git's conflict markers, around that row
  only, and the merge reports it. Nothing is picked silently, nothing is lost.

The text around the table (the drawer's contract) merges as plain text with
`git merge-file`, and only when both sides changed it. Files that are not a
catalog this module can read (no table, a changed header, an identity used
twice, conflict markers in any version) merge as plain text, whole: never
worse than git itself.
"""

from __future__ import annotations

from ..git import program
from .catalog import parse_catalog, split_cells
from .rows import line_key, place

MARKER_SIZE = 7
# git's merge driver (gitsetup/driver.py) first writes git's own text merge of the
# three versions to a token file in the git dir (before 0.4: OURS plus this suffix);
# the row merge (commands/merge_catalog.py) deletes that file only once its own
# result is in OURS. A file still there means the row merge did not finish, and the
# text merge, markers and all, is the result.
TEXT_MERGE_SUFFIX = ".eco-mem"
ROW_MERGE_SUFFIX = ".eco-mem-rows"  # where the row merge writes before renaming over OURS


class Side:
    """One version of an INDEX.md: text before the table, header lines, rows, text after."""

    __slots__ = ("after", "before", "columns", "header", "rows")

    def __init__(self, lines: list[str]) -> None:
        catalog = parse_catalog(lines)
        if not catalog.header_line or (catalog.problems and _header_problem(catalog)):
            raise ValueError("no readable catalog table")
        start = catalog.header_line - 1  # 0-based header line; the separator follows
        end = start + 2
        while end < len(lines) and lines[end].lstrip().startswith("|"):
            end += 1
        self.before = lines[:start]
        self.header = [split_cells(line) for line in lines[start : start + 2]]
        self.columns = catalog.columns
        self.after = lines[end:]
        self.rows: dict[str, str] = {}  # identity -> the row's line, in table order
        for number, line in enumerate(lines[start + 2 : end], start + 3):
            cells = len(split_cells(line))
            if cells != len(self.columns):
                # A row of the wrong shape has no sure identity: plain text, like git.
                raise ValueError(
                    f"line {number} has {cells} cell(s), the table {len(self.columns)}"
                )
            identity = self.identity(line)
            if identity in self.rows:
                raise ValueError(f"two rows named {identity!r}")
            self.rows[identity] = line

    def identity(self, line: str) -> str:
        cells = split_cells(line)
        if "file" in self.columns and len(cells) == len(self.columns):
            file = cells[self.columns.index("file")]
            if file.strip() not in ("", "-"):
                return "file:" + file.strip().strip("`")
        return "name:" + (cells[0] if cells else line.strip())


def _has_markers(lines: list[str]) -> bool:
    """Whether a version holds git's conflict markers (any size: git widens them in
    the merges that build a virtual base)."""
    return any(line.startswith(("<<<<<<<", ">>>>>>>", "|||||||")) for line in lines)


def _header_problem(catalog) -> bool:
    """A problem with the table head (not with one row): the table cannot be merged as rows."""
    return any(line <= catalog.header_line + 1 for line, _ in catalog.problems)


def _same(one: str | None, other: str | None) -> bool:
    if one is None or other is None:
        return one is other
    return split_cells(one) == split_cells(other)


class Result:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.conflicts: list[tuple[str, str | None, str | None]] = []  # (identity, ours, theirs)
        self.text_conflicts = 0  # conflicted hunks outside the table (plain text merge)
        self.as_text = ""  # why the whole file merged as plain text, if it did

    @property
    def clean(self) -> bool:
        return not self.conflicts and not self.text_conflicts


def merge_lines(
    base: list[str], ours: list[str], theirs: list[str], labels: tuple[str, str, str], text_merge
) -> Result:
    """Merge three versions of an INDEX; `text_merge(base, ours, theirs)` merges plain
    text and returns (lines, conflicted hunk count)."""
    result = Result()
    try:
        if any(_has_markers(lines) for lines in (base, ours, theirs)):
            # A criss-cross merge's virtual base is a merge of two bases, and holds
            # their conflicts between markers. Read as a table, it would end at the
            # first marker, and every row after it would look added on one side:
            # a row deleted since would come back. Plain text, like git, stops there.
            raise ValueError("conflict markers")
        o, t = Side(ours), Side(theirs)
        b = Side(base) if any(line.strip() for line in base) else None
        if o.header != t.header or (b is not None and b.header != o.header):
            raise ValueError("the table header changed")
    except ValueError as error:
        result.lines, result.text_conflicts = text_merge(base, ours, theirs)
        result.as_text = str(error)
        return result
    base_rows = b.rows if b is not None else {}
    before, conflicts_before = _three_way(b.before if b else [], o.before, t.before, text_merge)
    after, conflicts_after = _three_way(b.after if b else [], o.after, t.after, text_merge)
    result.text_conflicts = conflicts_before + conflicts_after
    rows = _merge_rows(base_rows, o, t, labels, result)
    result.lines = [*before, *ours[len(o.before) : len(o.before) + 2], *rows, *after]
    return result


def _three_way(base, ours, theirs, text_merge) -> tuple[list[str], int]:
    if ours == theirs or theirs == base:
        return ours, 0
    if ours == base:
        return theirs, 0
    return text_merge(base, ours, theirs)


def _merge_rows(base: dict, o: Side, t: Side, labels, result: Result) -> list[str]:
    """The merged table rows: ours in their order, then every row only theirs has, placed."""
    kept: list[list[str]] = []  # per row kept: the row, or a conflict block around it
    keys: list[str] = []  # each kept row's placement key, in step with `kept`
    for identity, line in o.rows.items():
        chosen = _pick(identity, base.get(identity), line, t.rows.get(identity), labels, result)
        if chosen:
            kept.append(chosen)
            keys.append(line_key(o.columns, line))
    for identity, line in t.rows.items():
        if identity in o.rows:
            continue
        chosen = _pick(identity, base.get(identity), None, line, labels, result)
        if chosen:
            key = line_key(o.columns, line)
            at = place(keys, key)
            kept.insert(at, chosen)
            keys.insert(at, key)
    return [line for lines in kept for line in lines]


def _pick(identity, base, ours, theirs, labels, result: Result) -> list[str]:
    """The lines one identity leaves in the table: [] (gone), [row] or a conflict block."""
    if _same(ours, theirs):
        return [ours if ours is not None else theirs] if (ours or theirs) else []
    if _same(ours, base):
        return [theirs] if theirs is not None else []
    if _same(theirs, base):
        return [ours] if ours is not None else []
    # Both sides did something different to the same row: a human decides.
    result.conflicts.append((identity, ours, theirs))
    return [
        "<" * MARKER_SIZE + f" {labels[0]}",
        *([ours] if ours is not None else []),
        "=" * MARKER_SIZE,
        *([theirs] if theirs is not None else []),
        ">" * MARKER_SIZE + f" {labels[2]}",
    ]


def merge_file_text(labels: tuple[str, str, str]):
    """A `text_merge` that runs `git merge-file -p` (this module only runs inside git work)."""

    def text_merge(base: list[str], ours: list[str], theirs: list[str]) -> tuple[list[str], int]:
        import os
        import subprocess
        import tempfile

        with tempfile.TemporaryDirectory(prefix="eco-mem-merge-") as folder:
            names = []
            for name, lines in (("ours", ours), ("base", base), ("theirs", theirs)):
                path = os.path.join(folder, name)
                with open(path, "w", encoding="utf-8", newline="\n", errors="surrogateescape") as f:
                    f.write("".join(line + "\n" for line in lines))
                names.append(path)
            command = [
                program(),
                "merge-file",
                "-p",
                "-L",
                labels[0],
                "-L",
                labels[1],
                "-L",
                labels[2],
            ]
            done = subprocess.run([*command, *names], capture_output=True)
        if done.returncode < 0 or done.returncode > 127:
            raise OSError(f"git merge-file failed: {done.stderr.decode(errors='replace').strip()}")
        text = done.stdout.decode("utf-8", "surrogateescape")
        # split("\n"), not splitlines(): a U+2028 or form feed inside a line is text.
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return lines, done.returncode

    return text_merge
