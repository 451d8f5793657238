"""Whose memory is this: what the checked-out branch brought in that no review has passed.

Memory on the default branch was merged through review, and what this clone wrote is its
own; both read as they always did. What else the branch adds or changes under a memory
folder (a desk that travelled, a fact, a catalog row) is someone else's text until the
user adopts it (`adopt`): `context` and `find` name it (slug, branch, commit, author),
never show it, since a hook's output reaches the agent as its own plan.

The default branch is the one a clone names: `refs/remotes/origin/HEAD` (set by `git
clone`), else `origin/main`, else `origin/master`. With none of them (a repository with
no remote, a CI checkout of one commit) there is nothing to compare with and everything
reads as today. When HEAD is the default's own commit nothing differs, and git is not
even asked.

A memory file is this clone's own when its bytes differ from HEAD's (a local edit no
commit made), when HEAD lacks it (never committed), or when its hash is in the clone's
record of writes (store/record.py, in the git dir: the memory commands and `adopt` note
there what they wrote). A commit made here proves nothing: a squash merge or a path
checked out from a branch is committed as plainly as a hand edit, so a desk edited by
hand and committed reads as the branch's until `adopt`. A catalog is judged row by row:
a row the default's catalog holds, or that the record or a local edit made, is read.
"""

from __future__ import annotations

import os

from ..lazy_re import lazy

HEADS = "refs/heads/"
ORIGIN = "refs/remotes/origin/"
FALLBACK = ("main", "master")
MAX_FILE = 1024 * 1024  # a larger memory file is someone else's by size alone
# Text a commit chose (a branch name, an author) is shown only when it is this plain.
PLAIN_NAME = lazy(r"[A-Za-z0-9][A-Za-z0-9._/@+-]{0,79}")
PLAIN_AUTHOR = lazy(r"[A-Za-z0-9][A-Za-z0-9 ._@'-]{0,59}")
HEX = lazy(r"[0-9a-f]{4,64}")
NOT_SHOWN = "(name not shown)"


class Origin:
    """Where one unreviewed item came from: the last commit of HEAD that changed it."""

    __slots__ = ("author", "branch", "commit", "kind", "path", "slug")

    def __init__(self, slug: str, kind: str, path: str, branch: str) -> None:
        self.slug = slug  # the entry's or desk's file stem, or a pointer row's name
        self.kind = kind  # "desk", "entry" or "row"
        self.path = path  # repository-relative: the file, or the catalog holding the row
        self.branch = branch
        self.commit = ""
        self.author = ""

    def line(self) -> str:
        """One line naming it, without a word of its text."""
        what = {"desk": "desk", "entry": "entry", "row": "catalog row"}[self.kind]
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
# What the digest calls the default branch when this clone has none to compare with.
UNKNOWN_DEFAULT = "none here: `git fetch origin` and `git remote set-head origin --auto` fetch it"


def unreviewed(root) -> Review:
    """The unreviewed memory of the work tree `root`; an empty Review when git cannot
    answer or there is no default branch to compare with."""
    from ..git import git_dir_names

    root = os.fspath(root)
    dirs = git_dir_names(root)
    if dirs is None:
        return NOTHING
    default = default_ref(dirs[1])
    if default is None and not has_remote(dirs[1]):
        return NOTHING  # a repository of its own: nothing came from anywhere else
    head = ref_commit(dirs, "HEAD")
    if not head:
        return NOTHING  # no commit yet: all memory here is this clone's, uncommitted
    if default is not None and head == ref_commit(dirs, default):
        review = Review()
        review.default = default
        return review
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


def has_remote(common: str) -> bool:
    """Whether this clone names a remote: then memory can have come from elsewhere."""
    try:
        with open(os.path.join(common, "config"), encoding="utf-8", errors="replace") as config:
            return any(line.strip().startswith('[remote "') for line in config)
    except OSError:
        return False


def default_ref(common: str) -> str | None:
    """The default branch as a ref (`refs/remotes/origin/NAME`), None when there is none."""
    from ..git import read_small

    text = read_small(os.path.join(common, "refs/remotes/origin/HEAD"))
    if text.startswith("ref:") and text[4:].strip().startswith(ORIGIN):
        return text[4:].strip()
    for name in FALLBACK:
        if _packed_or_loose(common, ORIGIN + name):
            return ORIGIN + name
    return None


def ref_commit(dirs: tuple[str, str], ref: str) -> str:
    """The commit `ref` (or HEAD) points to, read from the files git keeps; "" if unknown."""
    from ..git import read_small

    if ref == "HEAD":
        text = read_small(os.path.join(dirs[0], "HEAD"))
        if not text.startswith("ref:"):
            return text
        ref = text[4:].strip()
    return _packed_or_loose(dirs[1], ref)


def _packed_or_loose(common: str, ref: str) -> str:
    from ..git import read_small

    if ".." in ref or not ref.startswith("refs/"):
        return ""
    loose = read_small(os.path.join(common, ref))
    if loose:
        return loose
    try:
        with open(os.path.join(common, "packed-refs"), encoding="utf-8") as packed:
            for line in packed:
                commit, _, name = line.strip().partition(" ")
                if name == ref:
                    return commit
    except (OSError, UnicodeDecodeError):
        pass
    return ""


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


def _compare(root: str, dirs: tuple[str, str], default: str) -> Review:
    from ..git import GitCall
    from .record import read_record, row_digest
    from .stores import all_stores

    folders = [folder for folder in all_stores(root) if folder]
    head_call = _tree(root, "HEAD", folders)
    # No default branch here (a shallow or single-branch clone): nothing counts as
    # reviewed, and the digest says how to fetch one.
    default_call = _tree(root, default, folders) if default else None
    # What differs from HEAD in the work tree, as git sees it (line-end conversion and
    # filters applied): an edit made here. Bytes alone would not do: a committed
    # `.gitattributes` can make a checkout differ from its blob.
    edited_calls = [
        GitCall(root, "diff", "--name-only", "-z", "HEAD", "--", *group)
        for group in batches(folders)
    ]
    head, base = _listing(head_call), _listing(default_call) if default_call else {}
    listed = set()
    for call in edited_calls:
        code, out = call.result()
        if code != 0:
            raise Unanswered
        listed.update(out.decode("utf-8", "surrogateescape").split("\0"))
    edited = _really_edited(root, listed - {""})
    review = Review()
    review.default = default[len(ORIGIN) :] if default else UNKNOWN_DEFAULT
    changed = {path: blob for path, blob in head.items() if base.get(path) != blob}
    if not changed:
        return review
    record = read_record(root)
    branch = branch_name(dirs)
    catalogs = []
    for path in sorted(changed):
        full = os.path.join(root, path)
        if not os.path.lexists(full):
            continue  # removed here: nothing to read
        if path.endswith("/INDEX.md"):
            catalogs.append(path)
            continue
        if path in edited or not path.endswith(".md"):
            continue  # this clone's edit, or no memory file a reader opens
        data = _read(full)  # None: a link, a folder, too large; named, never read
        if data is None or ("file", _digest(data), path) not in record:
            drawer = path.rsplit("/", 2)[-2]
            kind = "desk" if drawer == "working" else "entry"
            review.files[path] = Origin(path.rsplit("/", 1)[-1][:-3], kind, path, branch)
    if catalogs:
        wanted = [base[path] for path in catalogs if path in base]
        wanted += [head[path] for path in catalogs if path in edited]
        texts = _blobs(root, wanted)
        for path in catalogs:
            data = _read(os.path.join(root, path))
            if data is None:
                continue  # find and verify report a catalog they cannot read
            reviewed = set(table_lines(texts.get(base.get(path, ""), "")))
            committed = set(table_lines(texts.get(head[path], ""))) if path in edited else None
            rows = {}
            for line in table_lines(data.decode("utf-8", "replace")):
                if line in reviewed or ("row", row_digest(line), path) in record:
                    continue
                if committed is not None and line not in committed:
                    continue  # a row edited here, after HEAD
                rows[line] = Origin(row_slug(line), "row", path, branch)
            if rows:
                review.rows[path] = rows
    _commits(root, dirs, review)
    return review


def _really_edited(root: str, listed: set[str]) -> set[str]:
    """The paths of `listed` whose bytes differ from HEAD's blob as checkout writes it.

    `git diff` also lists a file a committed attribute rewrites on checkout (`ident`
    expands `$Id$`): a branch could pass its memory off as an edit made here that way."""
    from ..git import GitCall

    if not listed:
        return set()
    paths = sorted(listed)
    # One git each (a batch stops at the first path in git 2.39), started RUNNING at a
    # time before any is waited on: a branch can make many files look edited, and a
    # process each at once would run out of file descriptors.
    checked_out = {}
    for start in range(0, len(paths), RUNNING):
        window = paths[start : start + RUNNING]
        calls = [(path, GitCall(root, "cat-file", "--filters", f"HEAD:{path}")) for path in window]
        for path, call in calls:
            code, out = call.result()
            if code == 0:  # else not in HEAD: an edit of this clone's
                checked_out[path] = out
    edited = set()
    for path in paths:
        data = _read(os.path.join(root, path))
        if path not in checked_out or data is None or data != checked_out[path]:
            edited.add(path)
    return edited


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


def _digest(data: bytes) -> str:
    from .record import digest

    return digest(data)


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


def branch_name(dirs: tuple[str, str]) -> str:
    from ..git import read_small

    text = read_small(os.path.join(dirs[0], "HEAD"))
    if not text.startswith("ref:"):
        return "(a detached HEAD)"
    name = text[4:].strip()
    name = name[len(HEADS) :] if name.startswith(HEADS) else name
    return plain(name, PLAIN_NAME)


def plain(text: str, shape) -> str:
    """`text` when it is plain enough to show an agent, else NOT_SHOWN."""
    if not shape.fullmatch(text):
        return NOT_SHOWN
    from ..text.injection import scan

    return NOT_SHOWN if scan("provenance", [text]) else text


MAX_ASKED = 20  # commits looked up; past them an item is named without one
RUNNING = 32  # git processes started together for the edited files


def _commits(root: str, dirs: tuple[str, str], review: Review) -> None:
    """Fill in each item's last commit and author (git log, one call per path). A commit
    names where an item came from, never who wrote it: a squash merge, `cherry-pick -n`
    or `checkout BRANCH -- PATH` commits a branch's memory here as plainly as a hand
    edit does, so only the record of writes and a local edit make memory this clone's."""
    from ..git import GitCall

    paths = list(dict.fromkeys([*review.files, *review.rows]))[:MAX_ASKED]
    calls = {
        path: GitCall(root, "log", "-1", "--format=%H%x00%an", "HEAD", "--", path) for path in paths
    }
    for path, call in calls.items():
        code, out = call.result()
        commit, _, author = out.decode("utf-8", "replace").strip().partition("\0")
        if code != 0 or not HEX.fullmatch(commit):
            continue
        author = plain(author, PLAIN_AUTHOR)
        for origin in [review.files.get(path), *review.rows.get(path, {}).values()]:
            if origin is not None:
                origin.commit, origin.author = commit[:7], author
