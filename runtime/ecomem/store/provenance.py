"""Whose memory is this: what no review passed and no memory command of this clone wrote.

Memory reaches the agent as its own only when it is one of:

- reviewed: it is the default branch's, as `git diff` against that branch sees it; the
  default is the branch origin/HEAD names (branch.reviewed_ref), never a branch taken
  for the default by its name;
- written here: its bytes hash to a value in this clone's record of writes
  (store/record.py, in the git dir, where no commit reaches: the memory commands and
  `adopt --take` note there what they wrote);
- the template's own: a catalog's header and separator rows as the INDEX contract
  writes them (store/contracts.py), whichever commit brought them.

Anything else under a memory folder (a desk, an entry, a catalog row) is someone else's
text until the user adopts it: `context` and `find` name it (slug, path, branch, commit,
author) and never show it, since a hook's output reaches the agent as its own plan.
Where a file sits in git says nothing about who wrote it: a merge stopped on a conflict,
`merge --squash`, `merge --no-commit`, `cherry-pick -n` and `checkout BRANCH -- PATH`
all leave a branch's memory uncommitted, differing from HEAD or missing from it, exactly
as an edit by hand does; and a squash or a path checked out is then committed as plainly
as that edit; and `git restore --source=BRANCH`, `git show BRANCH:PATH > PATH` or a patch
applied leave no trace at all. So a hand edit is named as well, a desk's too, until
`adopt` shows it and the user takes it: the agent updates its desk through `revise SLUG
--progress/--next`, which notes the new bytes, so only recorded bytes are ever its own.

Without a known default (a clone made by `git init` and `git fetch`, a shallow CI
checkout) nothing is reviewed, and all memory this clone did not write is named; the
digest says how to name the default. A repository that names no remote and never fetched
holds only what was made in it, and reads as it always did.

Cost: one `git ls-tree` and one `git diff --name-only` of the default's memory folders
(git's index knows which files are untouched, so only the others are read and hashed),
one `git cat-file --batch` for the default's catalogs that differ, and for at most
MAX_ASKED named items one `cat-file --batch` of HEAD's versions and a `git log` each.
"""

from __future__ import annotations

import os

from ..branch import ORIGIN
from ..lazy_re import lazy

MAX_FILE = 1024 * 1024  # a larger memory file is someone else's by size alone
# Text a commit chose (a branch name, an author) is shown only when it is this plain.
PLAIN_NAME = lazy(r"[A-Za-z0-9][A-Za-z0-9._/@+-]{0,79}")
PLAIN_AUTHOR = lazy(r"[A-Za-z0-9][A-Za-z0-9 ._@'-]{0,59}")
HEX = lazy(r"[0-9a-f]{4,64}")
NOT_SHOWN = "(name not shown)"


class Origin:
    """Where one unreviewed item came from: the last commit of HEAD that changed it."""

    __slots__ = ("author", "branch", "commit", "kind", "path", "slug", "uncommitted")

    def __init__(self, slug: str, kind: str, path: str, branch: str) -> None:
        self.slug = slug  # the entry's or desk's file stem, or a pointer row's name
        self.kind = kind  # "desk", "entry" or "row"
        self.path = path  # repository-relative: the file, or the catalog holding the row
        self.branch = branch
        self.commit = ""
        self.author = ""
        self.uncommitted = False  # HEAD lacks it: a merge, a checkout or an edit, not committed

    def line(self) -> str:
        """One line naming it, without a word of its text."""
        what = {"desk": "desk", "entry": "entry", "row": "catalog row"}[self.kind]
        if self.uncommitted:
            return f"{what} `{self.slug}` ({self.path}) on branch {self.branch}, not committed"
        return (
            f"{what} `{self.slug}` ({self.path}) from branch {self.branch},"
            f" commit {self.commit or '?'} by {self.author or '?'}"
        )

    def as_dict(self) -> dict:
        return {
            "slug": self.slug,
            "kind": self.kind,
            "path": self.path,
            "branch": self.branch,
            "commit": self.commit,
            "author": self.author,
        }


class Review:
    """What the checked-out branch brought in unreviewed, asked once per command."""

    def __init__(self) -> None:
        self.files: dict[str, Origin] = {}  # repo-relative path -> its origin
        self.rows: dict[str, dict[str, Origin]] = {}  # catalog path -> {row line: origin}
        self.default = ""  # the default branch compared with ("" when none)

    def __bool__(self) -> bool:
        return bool(self.files or self.rows)

    def file(self, relpath: str) -> Origin | None:
        return self.files.get(relpath)

    def row(self, index_relpath: str, line: str) -> Origin | None:
        return self.rows.get(index_relpath, {}).get(line.strip())

    def every(self) -> list[Origin]:
        """Every unreviewed item, desks first, each once (a row beside its entry is one)."""
        items = list(self.files.values())
        named = {(item.slug, item.path.rsplit("/", 2)[-2]) for item in items}
        for index, rows in self.rows.items():
            drawer = index.rsplit("/", 2)[-2]
            for origin in rows.values():
                if (origin.slug, drawer) not in named:
                    named.add((origin.slug, drawer))
                    items.append(origin)
        return sorted(items, key=lambda item: (item.kind != "desk", item.path, item.slug))


NOTHING = Review()
# What the digest calls the default branch when this clone names none.
UNKNOWN_DEFAULT = (
    "none known here, so none of it counts as reviewed: `git remote set-head origin --auto`"
    " asks the remote for its default"
)


def unreviewed(root) -> Review:
    """The unreviewed memory of the work tree `root`; an empty Review outside git, and in
    a repository that names no remote and never fetched."""
    from ..branch import ever_fetched, has_remote, reviewed_ref
    from ..git import git_dir_names

    root = os.fspath(root)
    dirs = git_dir_names(root)
    if dirs is None:
        return NOTHING
    default = reviewed_ref(dirs)
    if default is None and not has_remote(dirs) and not ever_fetched(dirs):
        return NOTHING  # a repository of its own: nothing came from anywhere else
    try:
        return _compare(root, dirs, default)
    except Exception:  # whatever stopped the comparison (git, a limit, a bug) fails closed
        # Memory may have come from elsewhere and git could not say which: none of it is
        # shown as this clone's (a command line too long for many stores, git missing).
        return Unknown(default)


class Unanswered(Exception):
    """git refused a question the comparison needs."""


class Unknown(Review):
    """Every memory file and row, when the branch could not be compared: each is named,
    none is shown, and `adopt` has nothing it could vouch for."""

    def __init__(self, default: str | None) -> None:
        super().__init__()
        self.default = default[len(ORIGIN) :] if default else UNKNOWN_DEFAULT

    def __bool__(self) -> bool:
        return True

    def file(self, relpath: str) -> Origin | None:
        stem = relpath.rsplit("/", 1)[-1]
        kind = "desk" if "/working/" in f"/{relpath}" else "entry"
        return Origin(stem[:-3] if stem.endswith(".md") else NOT_SHOWN, kind, relpath, UNANSWERED)

    def row(self, index_relpath: str, line: str) -> Origin | None:
        return Origin(row_slug(line), "row", index_relpath, UNANSWERED)

    def every(self) -> list[Origin]:
        from .. import protocol

        return [Origin("all memory", "entry", protocol.MEMORY_DIR, UNANSWERED)]


UNANSWERED = "(not compared: git could not answer; run `git status`, then verify)"
# Bytes of paths one git command line carries: far below any system's limit (E2BIG).
ARGS_BYTES = 64 * 1024


def batches(items: list[str], limit: int = ARGS_BYTES) -> list[list[str]]:
    """`items` in groups that fit one git call: each item and its separator add up to at
    most `limit` bytes (a command line's paths, or the lines fed to its stdin)."""
    groups, size = [[]], 0
    for item in items:
        if groups[-1] and size + len(item) + 1 > limit:
            groups.append([])
            size = 0
        groups[-1].append(item)
        size += len(item) + 1
    return groups


def _tree(root: str, ref: str, folders: list[str]) -> list:
    from ..git import GitCall

    return [GitCall(root, "ls-tree", "-r", "-z", ref, "--", *group) for group in batches(folders)]


def _listing(calls: list) -> dict[str, str]:
    """{path: blob id} from `git ls-tree -r -z`; Unanswered when git refused."""
    found = {}
    for call in calls:
        code, out = call.result()
        if code != 0:
            raise Unanswered
        for item in out.decode("utf-8", "surrogateescape").split("\0"):
            meta, tab, path = item.partition("\t")
            parts = meta.split()
            if tab and len(parts) == 3 and parts[1] == "blob":
                found[path] = parts[2]
    return found


def _compare(root: str, dirs: tuple[str, str], default: str | None) -> Review:
    from ..git import GitCall
    from .record import digest, read_record, row_digest
    from .stores import all_stores

    folders = [folder for folder in all_stores(root) if folder]
    on_disk = memory_files(root, folders)
    base, differs = {}, set()
    if default and on_disk:  # no default known: nothing is reviewed
        # The default's blob ids, and what git sees differ from them in the work tree
        # (its index knows which files are untouched, so those are never read here).
        listing = _tree(root, default, folders)
        asked = ("diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", default, "--")
        diffs = [GitCall(root, *asked, *group) for group in batches(folders)]
        base = _listing(listing)
        for call in diffs:
            code, out = call.result()
            if code != 0:
                raise Unanswered
            differs.update(out.decode("utf-8", "surrogateescape").split("\0"))
    review = Review()
    review.default = default[len(ORIGIN) :] if default else UNKNOWN_DEFAULT
    record = read_record(root) if on_disk else set()
    label = branch_label(dirs)
    catalogs = {}
    for path in sorted(on_disk):
        if path in base and path not in differs:
            continue  # the default's bytes, as git sees them: reviewed
        data = _read(os.path.join(root, path))  # None: a link, a folder, too large
        if path.endswith("/INDEX.md"):
            if data is not None:  # find and verify report a catalog they cannot read
                catalogs[path] = data
            continue
        if data is None or ("file", digest(data), path) not in record:
            drawer = path.rsplit("/", 2)[-2]
            kind = "desk" if drawer == "working" else "entry"
            review.files[path] = Origin(path.rsplit("/", 1)[-1][:-3], kind, path, label)
    texts = _blobs(root, [base[path] for path in catalogs if path in base])
    for path, data in catalogs.items():
        # A row is read when the default's catalog holds it, this clone wrote it, or the
        # template writes it (the table's header and separator): named otherwise.
        known = set(table_lines(texts.get(base.get(path, ""), "")))
        known.update(template_rows(path))
        rows = {}
        for line in table_lines(data.decode("utf-8", "replace")):
            if line not in known and ("row", row_digest(line), path) not in record:
                rows[line] = Origin(row_slug(line), "row", path, label)
        if rows:
            review.rows[path] = rows
    _commits(root, dirs, review)
    return review


def memory_files(root: str, folders: list[str]) -> list[str]:
    """Every `.md` file (or link) under the drawers of the stores `folders`, repository-
    relative: what a reader may open, listed without reading it."""
    from .. import protocol
    from .place import refused

    found = []
    for folder in folders:
        for drawer in protocol.DRAWERS:
            # The readers' rule: a folder a link takes out of its place is never read
            # (a drawer linked to / would have this walk the whole disk).
            if refused(root, folder, drawer):
                continue
            top = os.path.join(root, folder, drawer)
            for where, subfolders, names in os.walk(top):
                subfolders[:] = [name for name in subfolders if name != ".git"]
                relative = os.path.relpath(where, root).replace(os.sep, "/")
                found += [f"{relative}/{name}" for name in names if name.endswith(".md")]
    return found


def template_rows(index_relpath: str) -> list[str]:
    """The table lines the template itself writes into this catalog (its header and
    separator, from the INDEX contract): never someone else's memory."""
    from .. import protocol
    from .contracts import contract

    store, drawer = index_relpath.rsplit("/", 2)[:2]
    if drawer not in protocol.DRAWERS:
        return []
    return table_lines(contract(store, drawer))


def table_lines(text: str) -> list[str]:
    from .record import table_lines

    return table_lines(text)


def row_slug(line: str) -> str:
    """A row's name to show: its entry file's stem, else its first cell; each only when
    slug-shaped (a row's text is someone else's until adopted)."""
    from .catalog import split_cells
    from .names import is_slug

    cells = [cell.strip().strip("`") for cell in split_cells(line)]
    for cell in reversed(cells):
        if cell.endswith(".md") and is_slug(cell[:-3]):
            return cell[:-3]
    first = cells[0] if cells else ""
    return first if first and is_slug(first) else NOT_SHOWN


def _read(path: str) -> bytes | None:
    """A memory file's bytes: a regular file of at most MAX_FILE bytes, never a link."""
    try:
        if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) > MAX_FILE:
            return None
        with open(path, "rb") as handle:
            return handle.read(MAX_FILE + 1)
    except OSError:
        return None


def _blobs(root: str, ids: list[str]) -> dict[str, str]:
    """{blob id: its text} from `git cat-file --batch`, in calls its stdin takes."""
    from ..git import MAX_INPUT, GitCall

    texts = {}
    for group in batches(list(dict.fromkeys(ids)), MAX_INPUT):
        if not group:
            continue
        given = "\n".join(group).encode() + b"\n"
        code, out = GitCall(root, "cat-file", "--batch", given=given).result()
        if code != 0:
            raise Unanswered
        at = 0
        while at < len(out):
            end = out.find(b"\n", at)
            header = out[at:end].split()
            if len(header) != 3:
                raise Unanswered
            size = int(header[2])
            texts[header[0].decode()] = out[end + 1 : end + 1 + size].decode("utf-8", "replace")
            at = end + 1 + size + 1
    return texts


def branch_label(dirs: tuple[str, str]) -> str:
    """The checked-out branch as an origin line shows it."""
    from ..branch import current_branch

    name = current_branch(dirs)
    return "(a detached HEAD)" if name is None else plain(name, PLAIN_NAME)


def plain(text: str, shape) -> str:
    """`text` when it is plain enough to show an agent, else NOT_SHOWN."""
    if not shape.fullmatch(text):
        return NOT_SHOWN
    from ..text.injection import scan

    return NOT_SHOWN if scan("provenance", [text]) else text


MAX_ASKED = 20  # commits looked up; past them an item is named without one


def _commits(root: str, dirs: tuple[str, str], review: Review) -> None:
    """Fill in each item's last commit and author (git log, one call per path, at most
    MAX_ASKED), or mark it not committed when HEAD does not hold it as it is now (a
    merge, a checkout or an edit in progress). A commit names where an item came from,
    never who wrote it: a squash merge, `cherry-pick -n` or `checkout BRANCH -- PATH`
    commits a branch's memory here as plainly as a hand edit does, so only the record of
    writes makes it this clone's."""
    from ..git import MAX_INPUT, GitCall

    paths = list(dict.fromkeys([*review.files, *review.rows]))[:MAX_ASKED]
    paths = [path for path in paths if "\n" not in path]
    if not paths:
        return
    given = "".join(f"HEAD:{path}\n" for path in paths).encode("utf-8", "surrogateescape")
    in_head = GitCall(root, "cat-file", "--batch", given=given) if len(given) <= MAX_INPUT else None
    calls = {
        path: GitCall(root, "log", "-1", "--format=%H%x00%an", "HEAD", "--", path) for path in paths
    }
    committed = _head_texts(in_head, paths)
    for path, call in calls.items():
        code, out = call.result()
        commit, _, author = out.decode("utf-8", "replace").strip().partition("\0")
        if code != 0 or not HEX.fullmatch(commit):
            continue
        author = plain(author, PLAIN_AUTHOR)
        for origin in [review.files.get(path), *review.rows.get(path, {}).values()]:
            if origin is not None:
                origin.commit, origin.author = commit[:7], author
    for path in paths:
        held = committed.get(path)
        origin = review.files.get(path)
        if origin is not None and (held is None or held != _read(os.path.join(root, path))):
            origin.uncommitted = True
        rows = review.rows.get(path, {})
        lines = set(table_lines(held.decode("utf-8", "replace"))) if held is not None else set()
        for line, origin in rows.items():
            origin.uncommitted = line not in lines


def _head_texts(call, paths: list[str]) -> dict[str, bytes]:
    """{path: HEAD's bytes} from `git cat-file --batch` fed `HEAD:PATH` lines, in order;
    a path HEAD lacks is left out (git answers `HEAD:PATH missing`)."""
    if call is None:
        return {}
    code, out = call.result()
    texts, at = {}, 0
    for path in paths:
        end = out.find(b"\n", at)
        if code != 0 or end < 0:
            break
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3 or not header[2].isdigit():
            continue  # HEAD lacks it: `HEAD:PATH missing`, no content follows
        size = int(header[2])
        if header[1] == b"blob":
            texts[path] = out[at : at + size]
        at += size + 1
    return texts
