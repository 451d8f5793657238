"""One function per review finding kind. Each reads the loaded store and returns Items;
none writes, and none runs what it suggests. docs/review.md says, for each, what it
looks at and what it misses: precision first, a report people learn to ignore is
worse than none.
"""

from __future__ import annotations

import os
import posixpath
from datetime import date
from shlex import quote

from .. import protocol
from ..store.catalog import NO_FILE, cell_path
from ..store.dates import parse_iso
from ..store.fields import read_fields
from ..store.load import INDEX, Store
from ..text.cites import read_cites
from . import pairs, text

KINDS = (
    "evidence-gone",
    "uncited",
    "expired",
    "unconfirmed",
    "duplicate",
    "contradiction",
    "path-gone",
    "pointer-gone",
    "stale-desk",
    "near-cap",
    "load",
)
DEFAULTS = protocol.REVIEW_DEFAULTS  # extensions/protocol.py, the one source
BYTES_PER_TOKEN = 4  # a rough English-text average; the budget is in bytes
SUGGESTED_ROWS = 3  # rows a near-cap finding names to look at first


class Item:
    """One finding: its kind, the entries (repository-relative) it concerns, one sentence
    why, and the eco_mem.pyz command that would act on it (never run by review)."""

    __slots__ = ("command", "entries", "kind", "message")

    def __init__(self, kind: str, entries: list[str], message: str, command: str) -> None:
        self.kind, self.entries, self.message, self.command = kind, entries, message, command

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "entries": self.entries,
            "message": self.message,
            "command": self.command,
        }

    def key(self) -> tuple:
        return KINDS.index(self.kind), self.entries


class Fact:
    """A semantic entry with what the heuristics compare."""

    def __init__(self, relpath: str, slug: str, lines: list[str], one_liner: str) -> None:
        self.relpath, self.slug, self.lines = relpath, slug, lines
        self.fields = {name: value for name, (_, value) in read_fields(lines).items()}
        self.cites = read_cites(lines)[0]
        self.title = text.title_of(lines)
        self.prose = text.prose_lines(lines)  # path_gone reads the same lines
        prose = [line for line in self.prose if not line.startswith("# ")]
        heads = [self.title] + ([one_liner] if one_liner and one_liner != self.title else [])
        self.head_texts = heads
        said = text.statements(heads)
        self.heads = set(said)
        self.title_words = text.words(said)
        said += text.statements(prose)
        self.statements = said
        self.words = text.words(said)
        self.values = frozenset().union(*(statement.values for statement in said))
        self.names = frozenset().union(*(statement.names for statement in said))


def slug_of(row_cells, file: str) -> str:
    name = cell_path(row_cells[0]) if row_cells else ""
    return name if name and name != NO_FILE else file[:-3]


class Review:
    """The store and what several checks share: facts, git's file list, thresholds."""

    def __init__(
        self, store: Store, today: date, thresholds: dict, suggest_cites: bool = False
    ) -> None:
        self.store, self.root, self.today, self.limits = store, store.root, today, thresholds
        self.suggest_cites = suggest_cites
        self._listing: set[str] | None = None
        self._listed = False
        self.facts: list[Fact] = []
        self.slugs: dict[str, str] = {}  # entry relpath -> the name commands take
        for name in ("semantic", "procedural", "episodic"):
            drawer = store.drawers.get(name)
            if drawer is None:
                continue
            columns = drawer.catalog.columns
            rows = {}
            for row in drawer.catalog.rows:
                file = cell_path(row.get(columns, "file"))
                rows[file] = row
                if file not in ("", NO_FILE):
                    self.slugs[f"{drawer.relpath}/{file}"] = slug_of(row.cells, file)
            if name != "semantic":
                continue
            for entry in drawer.entries.values():
                if entry.lines is None:
                    continue
                row = rows.get(entry.name)
                one_liner = row.get(columns, "one-liner") if row else ""
                slug = self.slugs.setdefault(entry.relpath, entry.name[:-3])
                self.facts.append(Fact(entry.relpath, slug, entry.lines, one_liner))

    def slug(self, relpath: str) -> str:
        return quote(self.slugs.get(relpath, relpath.rsplit("/", 1)[-1][:-3]))

    def listing(self) -> set[str] | None:
        """Every file git tracks or would add here, asked once and only when needed."""
        if not self._listed:
            self._listed = True
            from ..git import run_git

            try:
                code, output = run_git(
                    self.root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"
                )
            except OSError:
                code, output = 1, b""
            if code == 0:
                self._listing = set(output.decode("utf-8", "replace").split("\0")) - {""}
        return self._listing


def evidence_gone(review: Review) -> list[Item]:
    if not any(fact.cites for fact in review.facts) and not _procedures_cite(review.store):
        return []
    from ..rules.cites import check_cites

    items, seen = [], set()
    for finding in check_cites(review.store):
        if finding.rule not in ("cite.gone", "cite.unreadable") or finding.path in seen:
            continue
        seen.add(finding.path)
        why = finding.message.split("; ")[0]
        message = f"{why}; re-check it against the code before anyone relies on it"
        command = f"revise {review.slug(finding.path)} --cite 'PATH \"TEXT\"'"
        items.append(Item("evidence-gone", [finding.path], message, command))
    return items


def _procedures_cite(store: Store) -> bool:
    drawer = store.drawers.get("procedural")
    return (
        any("cites" in line for entry in drawer.entries.values() for line in entry.lines or ())
        if drawer
        else False
    )


def uncited(review: Review) -> list[Item]:
    items = []
    suggester = None
    if review.suggest_cites:
        from .suggest import Suggester

        suggester = Suggester(str(review.root))
    for fact in review.facts:
        if fact.fields.get("source") == "verified" and not fact.cites:
            message = "a verified fact that cites nothing; no machine can re-check it"
            command = f"revise {review.slug(fact.relpath)} --cite 'PATH \"TEXT\"'"
            if suggester is not None:
                from .suggest import key_words

                cite = suggester.cite(key_words(fact))
                if cite is not None:
                    message += f"; its key words are in {cite.split(' ', 1)[0]}, check that line"
                    command = f"revise {review.slug(fact.relpath)} --cite {quote(cite)}"
            items.append(Item("uncited", [fact.relpath], message, command))
    return items


def expired(review: Review) -> list[Item]:
    items = []
    for fact in review.facts:
        until = parse_iso(fact.fields.get("expires", ""))
        if until is not None and until < review.today:
            message = f"expired on {until.isoformat()}; a hint until someone confirms it again"
            command = f"revise {review.slug(fact.relpath)} --expires YYYY-MM-DD"
            items.append(Item("expired", [fact.relpath], message, command))
    return items


def unconfirmed(review: Review) -> list[Item]:
    days = review.limits["unconfirmed_days"]
    items = []
    for fact in review.facts:
        since = parse_iso(fact.fields.get("as_of", ""))
        if fact.fields.get("source") != "derived" or since is None:
            continue
        age = (review.today - since).days
        if age > days:
            message = f"a derived guess, {age} days old and never confirmed (threshold {days})"
            command = f"confirm {review.slug(fact.relpath)} --by-user"
            items.append(Item("unconfirmed", [fact.relpath], message, command))
    return items


SOURCE_STRENGTH = {"verified": 2, "user-confirmed": 2, "derived": 0}


def _strength(fact: Fact) -> int:
    """verified with a citation a machine re-checks, then verified or user-confirmed,
    then a derived guess."""
    source = fact.fields.get("source", "")
    return SOURCE_STRENGTH.get(source, 0) + (1 if source == "verified" and fact.cites else 0)


def _contradiction(review: Review, first: Fact, second: Fact, why: str) -> Item:
    older, newer = sorted(
        (first, second), key=lambda fact: (fact.fields.get("as_of", ""), fact.relpath)
    )

    def said(fact: Fact) -> str:
        return f"{fact.slug} ({fact.fields.get('as_of', '?')}, {fact.fields.get('source', '?')})"

    message = f"{why}; newer {said(newer)}, older {said(older)}"
    if _strength(newer) != _strength(older):
        stronger = max((newer, older), key=_strength)
        message += f"; the stronger source is {stronger.slug}"
    else:
        message += "; neither source is stronger"
    message += "; ask the user which holds"
    command = f"revise {review.slug(newer.relpath)} --body TEXT"
    return Item("contradiction", sorted([first.relpath, second.relpath]), message, command)


def duplicates_and_contradictions(review: Review) -> list[Item]:
    facts = review.facts
    parent = list(range(len(facts)))

    def find(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    cited: dict[tuple, int] = {}
    items = []
    for i, first in enumerate(facts):
        for cite in first.cites:
            if cite.text is not None:
                j = cited.setdefault((posixpath.normpath(cite.path), cite.text), i)
                if j != i:
                    parent[find(i)] = find(j)
    work = pairs.Work()
    clashes, repeats = pairs.statement_pairs(facts, work)
    for (i, j), why in sorted(clashes.items()):
        items.append(_contradiction(review, facts[i], facts[j], why))
    for i, j in sorted(repeats | pairs.near_identical(facts, clashes, work)):
        if (i, j) not in clashes:
            parent[find(j)] = find(i)
    review.work = work
    groups: dict[int, list[Fact]] = {}
    for index, fact in enumerate(facts):
        groups.setdefault(find(index), []).append(fact)
    for group in groups.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda fact: (fact.fields.get("as_of", ""), fact.relpath))
        keep, rest = group[0], group[1:]
        message = (
            f"{len(group)} facts say nearly the same thing; keep one ({keep.slug}),"
            " fold in what the others add, forget the rest"
        )
        command = f"forget {review.slug(rest[0].relpath)} --reason obsolete"
        items.append(Item("duplicate", sorted(fact.relpath for fact in group), message, command))
    return items


def _exists(review: Review, relpath: str, path: str) -> bool | None:
    """Whether `path`, named in entry `relpath`, exists; None when that cannot be told."""
    if path.startswith(("./", "../")):
        path = posixpath.join(posixpath.dirname(relpath), path)
    normal = posixpath.normpath(path)
    if normal.startswith("../") or normal in ("..", "."):
        return None  # outside the repository: not ours to judge
    if os.path.lexists(os.path.join(review.root, normal)):
        return True
    listing = review.listing()
    if listing is None:
        return None if "/" not in normal else False
    if "/" not in normal:
        return any(file == normal or file.endswith("/" + normal) for file in listing)
    suffix, folder = "/" + normal, normal.rstrip("/") + "/"
    return any(
        file.endswith(suffix) or file.startswith(folder) or ("/" + folder) in file
        for file in listing
    )


def path_gone(review: Review) -> list[Item]:
    items = []
    sources: list[tuple[str, list[str]]] = []
    for fact in review.facts:
        sources.append((fact.relpath, fact.prose))
    procedural = review.store.drawers.get("procedural")
    if procedural is not None:
        for entry in procedural.entries.values():
            if entry.lines is not None:
                sources.append((entry.relpath, text.prose_lines(entry.lines)))
    semantic = review.store.drawers.get("semantic")
    if semantic is not None:  # the one-liners agents read first
        columns = semantic.catalog.columns
        for row in semantic.catalog.rows:
            file = cell_path(row.get(columns, "file"))
            if file not in ("", NO_FILE):
                sources.append((f"{semantic.relpath}/{file}", [row.get(columns, "one-liner")]))
    missing: dict[str, list[str]] = {}
    for relpath, lines in sources:
        for path in text.named_paths(lines):
            if _exists(review, relpath, path) is False and path not in missing.setdefault(
                relpath, []
            ):
                missing[relpath].append(path)
    for relpath, paths in missing.items():
        if paths:
            shown = ", ".join(paths[:3])
            message = f"names {shown}, which the repository does not hold now"
            items.append(
                Item("path-gone", [relpath], message, f"revise {review.slug(relpath)} --body TEXT")
            )
    return items


def pointer_gone(review: Review) -> list[Item]:
    drawer = review.store.drawers.get("procedural")
    if drawer is None:
        return []
    from ..rules.procedural import check_pointers

    by_line = {row.line: row for row in drawer.catalog.rows}
    columns = drawer.catalog.columns
    items = []
    for finding in check_pointers(drawer, review.root, review.store.relpath):
        row = by_line.get(finding.line)
        if finding.rule != "procedural.pointer-missing" or row is None:
            continue
        name = cell_path(row.cells[0])
        file = cell_path(row.get(columns, "file"))
        entry = (
            f"{drawer.relpath}/{file}"
            if file not in ("", NO_FILE)
            else f"{drawer.index_relpath}#{name}"
        )
        target = cell_path(row.get(columns, "points to"))
        message = f"points to {target}, which does not exist now"
        items.append(
            Item("pointer-gone", [entry], message, f"revise {quote(name)} --points-to PATH")
        )
    return items


def stale_desks(review: Review, default_branch: str | None) -> list[Item]:
    working = review.store.drawers.get("working")
    if working is None or not working.entries:
        return []
    days = review.limits["desk_days"]
    items, flagged = [], set()
    for entry in working.entries.values():
        try:
            touched = date.fromtimestamp(
                os.lstat(os.path.join(review.root, entry.relpath)).st_mtime
            )
        except OSError:
            continue
        age = (review.today - touched).days
        if age > days:
            flagged.add(entry.relpath)
            message = f"untouched for {age} days (threshold {days}); finish the task or clear it"
            items.append(
                Item("stale-desk", [entry.relpath], message, f"end-task {quote(entry.name[:-3])}")
            )
    for relpath, default in _merged_travelling_desks(review, default_branch):
        if relpath in flagged:
            continue
        name = relpath.rsplit("/", 1)[-1][:-3]
        message = f"travels on a branch already merged into {default}; the task is done"
        items.append(Item("stale-desk", [relpath], message, f"end-task {quote(name)}"))
    return items


def _merged_travelling_desks(review: Review, given: str | None) -> list[tuple[str, str]]:
    from ..branch import HEADS, ORIGIN, current_branch, likely_defaults, ref_commit
    from ..git import git_dirs, run_git

    dirs = git_dirs(review.root)
    if dirs is None:
        return []
    branch = current_branch(dirs)
    candidates = likely_defaults(dirs, given)
    if branch is None or branch in candidates:
        return []
    working = review.store.drawers["working"].relpath
    try:
        code, output = run_git(
            review.root, "ls-tree", "-r", "-z", "--name-only", "HEAD", "--", working
        )
        if code != 0:
            return []
        desks = [
            path
            for path in output.decode("utf-8", "replace").split("\0")
            if path.endswith(".md") and not path.endswith("/" + INDEX)
        ]
        if not desks:
            return []
        head = ref_commit(dirs, "HEAD")
        for name in candidates:
            for ref in (ORIGIN + name, HEADS + name):
                tip = ref_commit(dirs, ref)
                if not tip:
                    continue
                if head == tip:
                    return []  # nothing of this branch is its own yet
                code, _ = run_git(review.root, "merge-base", "--is-ancestor", "HEAD", ref)
                return [(path, name) for path in desks] if code == 0 else []
    except OSError:
        return []
    return []


def near_cap(review: Review) -> list[Item]:
    from ..write.gate import retire_candidates  # the rows `new` names when a catalog is full

    cap = protocol.CAPS["catalog_rows"]
    at = -(-cap * review.limits["near_cap"] // 100)  # ceiling: 90% of 40 is 36 rows
    items = []
    for name in ("semantic", "episodic", "procedural"):
        drawer = review.store.drawers.get(name)
        if drawer is None or len(drawer.catalog.rows) < at:
            continue
        first = retire_candidates(drawer, review.today, SUGGESTED_ROWS)
        message = (
            f"{len(drawer.catalog.rows)} of {cap} rows; look first at {', '.join(first)};"
            " git history keeps what leaves"
        )
        target = first[0].split(" (")[0] if first else ""
        if name == "episodic":  # forget refuses old episodes: file and row go by hand
            command = f"git rm {quote(f'{drawer.relpath}/{target}.md')} (and its row)"
        else:
            command = f"forget {quote(target)} --reason obsolete"
        items.append(Item("near-cap", [drawer.index_relpath], message, command))
    return items


def load(review: Review) -> tuple[int, list[Item]]:
    """The bytes of SKILL.md and the four catalogs (what an agent reads when `find`
    prints nothing and it goes on to write), and a finding when over budget."""
    surface = [f"{protocol.SKILL_DIR}/SKILL.md"]
    surface += [drawer.index_relpath for drawer in review.store.drawers.values()]
    sizes = {}
    for relpath in surface:
        try:
            sizes[relpath] = os.stat(os.path.join(review.root, relpath)).st_size
        except OSError:
            continue
    total = sum(sizes.values())
    budget = review.limits["load_budget"]
    if total <= budget:
        return total, []
    longest = None
    for name in ("semantic", "procedural"):
        drawer = review.store.drawers.get(name)
        for row in drawer.catalog.rows if drawer else ():
            size = sum(len(cell) for cell in row.cells)
            if longest is None or size > longest[0]:
                longest = (size, cell_path(row.cells[0]))
    message = (
        f"SKILL.md and the catalogs take {total} bytes (~{tokens(total)} tokens), over the"
        f" {budget}-byte budget; shorten the longest rows or retire dead ones"
    )
    command = f"revise {quote(longest[1])} --title SHORTER" if longest else "find"
    ordered = sorted(sizes, key=lambda relpath: -sizes[relpath])
    return total, [Item("load", ordered, message, command)]


def rule_candidates(review: Review) -> list[Item]:
    """Facts worded like a rule every change follows, in a store that marks no row
    `[always]` (one from an earlier release): the user says which bind every change.
    A store that marks any row has chosen its rules, so the rest are not asked again.
    Candidates are no finding: nothing has rotted, and review's exit code is unchanged."""
    from ..store.always import CELL, mark_of, scope_folder
    from .rule_like import rule_words

    for name, column in CELL.items():
        drawer = review.store.drawers.get(name)
        if drawer is None or column not in drawer.catalog.columns:
            continue
        at = drawer.catalog.columns.index(column)
        if any(len(row.cells) > at and mark_of(row.cells[at]) for row in drawer.catalog.rows):
            return []
    items = []
    for fact in review.facts:
        first = next((line for line in fact.prose if not line.startswith("# ")), "")
        why = rule_words([*fact.head_texts, *text.SENTENCE_END.split(first.lstrip("-* "))])
        if why is None:
            continue
        folder = scope_folder(fact.fields.get("scope", ""))
        mark = f" --always {quote(folder + '/**')}" if folder else " --always"
        message = (
            f"reads like a rule every change follows ({why}); if the user says it is one,"
            " mark it so find prints it, in full, whatever the task's words"
        )
        items.append(
            Item(
                "rule-candidate",
                [fact.relpath],
                message,
                f"revise {review.slug(fact.relpath)}{mark}",
            )
        )
    return items


def tokens(size: int) -> int:
    return -(-size // BYTES_PER_TOKEN)


def run_all(review: Review, default_branch: str | None = None) -> tuple[list[Item], int]:
    items = evidence_gone(review)
    items += uncited(review)
    items += expired(review)
    items += unconfirmed(review)
    items += duplicates_and_contradictions(review)
    items += path_gone(review)
    items += pointer_gone(review)
    items += stale_desks(review, default_branch)
    items += near_cap(review)
    size, over = load(review)
    items += over
    return sorted(items, key=Item.key), size


def entries_per_drawer(store: Store) -> dict[str, int]:
    counts = {}
    for name, drawer in store.drawers.items():
        if name == "working":
            counts[name] = len(drawer.entries)
        else:
            files = len(drawer.entries)
            pointers = sum(
                1
                for row in drawer.catalog.rows
                if cell_path(row.get(drawer.catalog.columns, "file")) in ("", NO_FILE)
            )
            counts[name] = files + pointers
    return counts
