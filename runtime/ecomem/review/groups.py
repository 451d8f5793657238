"""A tidy's listing: every fact as one line, the facts that may be about one thing grouped.

`review`'s duplicate and contradiction checks speak only when the words line up; facts
reworded by different people slip past them, and an agent then read every entry to find
them (issue 46: 66 KB read for a 12 KB store). Here review does the mechanical part and
leaves the judgement to the reader: every fact is one line (path, title, scope, as_of,
source, the numbers and names it states), which is what a reader compares, and the facts
a heuristic thinks may be about one thing come first, in groups. The reader decides what
is a duplicate or a contradiction, from the lines, and opens an entry only to decide.

Two facts share a group when they share two words of their titles, or share a scope and
one title word, or share a scope and a kind of value (sizes in MB or KB, times in
minutes or hours, shares, money). A word
that more than COMMON facts share says nothing about what a fact is about and joins
none. Groups are connected: a fact joins a group through any one member.
"""

from __future__ import annotations

from .pairs import scope_key
from .synonyms import TOOLS

COMMON = 6  # facts one title word may join before it is too common to mean one subject
MAX_VALUES = 4


class Group:
    __slots__ = ("facts", "why")

    def __init__(self, facts: list, why: list[str]) -> None:
        self.facts = facts
        self.why = why  # the words, scopes and units that joined it


# Units of one kind of value (as review's text module spells them): two facts that give a
# size in MB and in KB may state one limit twice, or two limits that disagree.
KINDS = {
    "size": ("b", "byt", "kb", "kib", "mb", "mib", "gb", "gib", "tb"),
    "time": (
        *("ms", "millisecond", "s", "sec", "second", "minimum", "min", "minut"),
        *("h", "hr", "hrs", "hour", "day", "week", "month"),
    ),
    "share": ("%", "percent", "pct"),
    "money": ("eur", "euro", "usd", "dollar", "cent", "gbp"),
}
KIND_OF = {unit: kind for kind, found in KINDS.items() for unit in found}


def units(fact) -> frozenset[str]:
    """The kinds of value a fact states (size, time...), else the unit words themselves."""
    return frozenset(
        KIND_OF.get(unit, unit) for said in fact.statements for unit, _ in said.typed if unit
    )


def candidate_groups(facts: list) -> list[Group]:
    parent = list(range(len(facts)))
    why: dict[int, set[str]] = {}

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    def join(one: int, other: int, reason: str) -> None:
        first, second = root(one), root(other)
        if first != second:
            parent[second] = first
            why.setdefault(first, set()).update(why.pop(second, set()))
        why.setdefault(first, set()).add(reason)

    by_word: dict[str, list[int]] = {}
    for index, fact in enumerate(facts):
        for word in fact.title_words:
            by_word.setdefault(word, []).append(index)
    shared: dict[tuple[int, int], list[str]] = {}
    for word, holders in by_word.items():
        if len(holders) > COMMON:
            continue
        for at, one in enumerate(holders):
            for other in holders[at + 1 :]:
                shared.setdefault((one, other), []).append(word)
    scopes = [scope_key(fact) for fact in facts]
    for (one, other), words in shared.items():
        same_scope = scopes[one] and scopes[one] == scopes[other]
        if len(words) >= 2 or same_scope:
            join(one, other, ", ".join(sorted(words)))
    by_scope_unit: dict[tuple[str, str], list[int]] = {}
    for index, fact in enumerate(facts):
        for unit in units(fact):
            if scopes[index]:
                by_scope_unit.setdefault((scopes[index], unit), []).append(index)
    for (scope, unit), holders in by_scope_unit.items():
        if 1 < len(holders) <= COMMON:
            for other in holders[1:]:
                join(holders[0], other, f"{unit} in {scope}")
    members: dict[int, list] = {}
    for index, fact in enumerate(facts):
        members.setdefault(root(index), []).append(fact)
    return [
        Group(sorted(found, key=lambda fact: fact.relpath), sorted(why.get(key, ())))
        for key, found in sorted(members.items())
        if len(found) > 1
    ]


WITHHELD = "[withheld: verify flags this text as addressed to the agent]"


def shown(fact, value: str) -> str:
    """Memory text as a reader may see it: a title or scope that reads as an order is
    withheld, as find withholds a row's cell."""
    from ..text.injection import scan

    return WITHHELD if scan(fact.relpath, [value]) else value


MAX_NAMES = 4


def names_of(fact) -> list[str]:
    """The names a fact states, as written: code spans and tools, then capitalised words
    inside a sentence (Redis, PagerDuty), each once."""
    from .text import CODE_SPAN, WORD

    found: dict[str, None] = {}
    for line in fact.prose:
        for span in CODE_SPAN.findall(line):
            found.setdefault(span.strip())
        for sentence in line.split(". "):
            for word in WORD.findall(sentence)[1:]:
                if (word[:1].isupper() and not word.isupper()) or word.lower() in TOOLS:
                    found.setdefault(word)
    return [name for name in found if name][:MAX_NAMES]


FIELDS = ("scope", "as_of", "source")


def usual(facts: list) -> dict[str, str]:
    """The value most facts give each of scope, as_of and source: said once in the
    header, and on a fact's line only where it differs."""
    found = {}
    for name in FIELDS:
        counts: dict[str, int] = {}
        for fact in facts:
            value = fact.fields.get(name, "") or "-"
            counts[value] = counts.get(value, 0) + 1
        found[name] = max(sorted(counts), key=counts.get) if counts else "-"
    return found


def member_line(fact, folder: str = "", usual_fields: dict | None = None) -> str:
    """One line a reader judges from: the fact's path, its title (left out when the slug
    spells its words), its scope, as_of and source where they differ from the usual
    ones, and the numbers and names its body adds. `folder` is left off the path: the
    header names it once."""
    from ..store.shapes import slugify

    path = (
        fact.relpath[len(folder) :] if folder and fact.relpath.startswith(folder) else fact.relpath
    )
    path = path[:-3] if path.endswith(".md") else path
    parts = [path]
    if slugify(fact.title, 10**6) != path.rsplit("/", 1)[-1]:
        parts.append(shown(fact, fact.title))
    for name in FIELDS:
        value = fact.fields.get(name, "") or "-"
        if usual_fields is None or value != usual_fields[name]:
            parts.append(f"{name}: {shown(fact, value)}")
    title = fact.title.lower()
    values = [value for value in sorted(fact.values) if value not in title][:MAX_VALUES]
    if values:
        parts.append(", ".join(values))
    names = [name for name in names_of(fact) if name.lower() not in title]
    if names:
        parts.append(shown(fact, ", ".join(names)))
    return "  " + " | ".join(parts)


def as_text(groups: list[Group], facts: list, folder: str = "") -> str:
    """Every fact, one line each: the groups first, then the facts no heuristic grouped.
    The reader, not a word list, decides what is a duplicate or a contradiction."""
    if not facts:
        return "eco-mem review --tidy: no facts"
    where = f" in {folder}" if folder else ""
    common = usual(facts)
    said = ", ".join(f"{name} {shown(facts[0], common[name])}" for name in FIELDS)
    lines = [
        f"eco-mem review --tidy: {len(facts)} facts{where}, one a line: slug | title (unless"
        f" the slug spells it) | scope, as_of, source where not the usual ({said}) | the"
        f" numbers and names the body adds. {len(groups)} group(s) may be about one thing."
        " Judge duplicates and contradictions from these lines; open an entry only to"
        " decide. Every change (deletes included) is the user's call: ask before revise"
        " or forget."
    ]
    grouped = set()
    for number, group in enumerate(groups, 1):
        joined = "; ".join(reason(group, why) for why in group.why[:3]) or "-"
        lines.append(f"group {number} ({len(group.facts)} facts; shared: {joined})")
        lines += [member_line(fact, folder, common) for fact in group.facts]
        grouped.update(id(fact) for fact in group.facts)
    rest = sorted((fact for fact in facts if id(fact) not in grouped), key=lambda f: f.relpath)
    if rest:
        lines.append(f"not grouped ({len(rest)} facts)")
        lines += [member_line(fact, folder, common) for fact in rest]
    return "\n".join(lines)


def reason(group: Group, why: str) -> str:
    """A reason the group formed (title words, a scope): memory text, judged like a title."""
    return shown(group.facts[0], why)


def as_dict(fact) -> dict:
    return {
        "path": fact.relpath,
        "title": shown(fact, fact.title),
        "scope": shown(fact, fact.fields.get("scope", "")),
        "as_of": fact.fields.get("as_of", ""),
        "source": fact.fields.get("source", ""),
        "values": sorted(fact.values),
        "names": [shown(fact, name) for name in names_of(fact)],
    }


def as_dicts(groups: list[Group]) -> list[dict]:
    return [
        {
            "shared": [reason(group, why) for why in group.why],
            "facts": [as_dict(fact) for fact in group.facts],
        }
        for group in groups
    ]
