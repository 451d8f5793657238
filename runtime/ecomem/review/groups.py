"""Candidate groups for a tidy: the facts a reader should compare, with their rows.

`review`'s duplicate and contradiction checks speak only when the words line up; facts
reworded by different people slip past them. A tidy then read every entry to find them.
Here review does the mechanical part and leaves the judgement: facts that may be about
one thing are grouped, and each member is shown as its row plus its scope and the
numbers it states, which is what a reader compares. Only a group's members need opening.

Two facts share a group when they share two words of their titles, or share a scope and
one title word, or share a scope and a kind of value (sizes in MB or KB, times in
minutes or hours, shares, money). A word
that more than COMMON facts share says nothing about what a fact is about and joins
none. Groups are connected: a fact joins a group through any one member.
"""

from __future__ import annotations

from .pairs import scope_key

COMMON = 6  # facts one title word may join before it is too common to mean one subject
MAX_GROUP = 8  # members shown per group; a larger group is listed with its size
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


def member_line(fact) -> str:
    """One line a reader compares: the entry, its title, scope and the numbers it states."""
    values = sorted(fact.values)[:MAX_VALUES]
    numbers = f" | values: {', '.join(values)}" if values else ""
    scope = shown(fact, fact.fields.get("scope", "") or "-")
    return f"  {fact.relpath} | {shown(fact, fact.title)} | scope: {scope}{numbers}"


def as_text(groups: list[Group]) -> str:
    if not groups:
        return "eco-mem review --tidy: no facts that may be about one thing"
    lines = [
        f"eco-mem review --tidy: {len(groups)} group(s) of facts that may be about one thing."
        " Compare each group's rows; open an entry only to decide. Every change (deletes"
        " included) is the user's call: ask before revise or forget."
    ]
    for number, group in enumerate(groups, 1):
        joined = "; ".join(reason(group, why) for why in group.why[:3]) or "-"
        lines.append(f"group {number} ({len(group.facts)} facts; shared: {joined})")
        lines += [member_line(fact) for fact in group.facts[:MAX_GROUP]]
        if len(group.facts) > MAX_GROUP:
            lines.append(f"  {len(group.facts) - MAX_GROUP} more in this group: `review --json`")
    return "\n".join(lines)


def reason(group: Group, why: str) -> str:
    """A reason the group formed (title words, a scope): memory text, judged like a title."""
    return shown(group.facts[0], why)


def as_dicts(groups: list[Group]) -> list[dict]:
    return [
        {
            "shared": [reason(group, why) for why in group.why],
            "facts": [
                {
                    "path": fact.relpath,
                    "title": shown(fact, fact.title),
                    "scope": shown(fact, fact.fields.get("scope", "")),
                    "values": sorted(fact.values),
                }
                for fact in group.facts
            ],
        }
        for group in groups
    ]
