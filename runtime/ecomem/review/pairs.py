"""Which facts repeat each other and which disagree, without comparing every pair.

Two statements are about one thing when, after the synonyms of `synonyms`, one's
subject words are all among the other's and the other adds at most one word (two when
they share two or more). About one thing, they are a duplicate when they state the
same values, names and polarity; a contradiction when they state another number with
the same unit, the opposite polarity, or swap one tool name for another. Facts of
different scopes (services, packages, languages) are never a pair.

Cost: statements meet only through an inverted index. The smaller statement's subject
lies (nearly always) inside the larger one's, so looking a statement up by its rarest
subject word finds the statements it could pair with; a word more than BLOCK_CAP statements share
is too common to say what a statement is about, and is never looked up. Near-identical
text is found the same way, through the rarest words of each fact (prefix filtering).
The work is then bounded by statements x BLOCK_CAP, whatever the store holds.
"""

from __future__ import annotations

from math import ceil

from .text import TOOL_NAMES

BLOCK_CAP = 48  # statements (or facts) one index word may lead to before it is too common
# Subject words (units of its numbers aside) a body sentence must share with the other
# before it can contradict it: a title says what a fact is about, a body sentence often
# leans on its title ("It takes 10 minutes").
BODY_SUBJECT = 2
OWNER_CAP = 16  # facts one sentence may sit in before it is boilerplate, not a claim
DUPLICATE_TITLES = 0.75  # Jaccard of title words at or above which two facts repeat
DUPLICATE_BODIES = 0.6  # the same over title and body together
DUPLICATE, CONTRADICTION = "duplicate", "contradiction"


class Work:
    """How many statement pairs and fact pairs were judged: the bound tests check."""

    def __init__(self) -> None:
        self.statements = 0
        self.facts = 0


def scope_key(fact) -> str:
    return " ".join(fact.fields.get("scope", "").lower().split())


def same_scope(first, second) -> bool:
    return scope_key(first) == scope_key(second)


def close(one: frozenset, other: frozenset) -> bool:
    """One subject inside the other, the other adding one word (two when they share two)."""
    common = len(one & other)
    if not common:
        return False
    extra_one, extra_other = len(one - other), len(other - one)
    return min(extra_one, extra_other) == 0 and max(extra_one, extra_other) <= (
        1 if common < 2 else 2
    )


def _numbers_clash(one: frozenset, other: frozenset) -> tuple[str, str] | None:
    """The numbers two statements give for one unit, when each gives one the other lacks."""
    for unit in {unit for unit, _ in one} & {unit for unit, _ in other}:
        mine = {value for u, value in one if u == unit}
        theirs = {value for u, value in other if u == unit}
        if mine - theirs and theirs - mine:
            return ", ".join(sorted(mine)), ", ".join(sorted(theirs))
    return None


def judge(one, other, work: Work) -> tuple[str, str] | None:
    """(kind, why) for two statements, or None when they are about different things."""
    work.statements += 1
    # A name the other side states is one here too, even as a sentence's first word.
    names_one = one.names | (one.concepts & other.names)
    names_other = other.names | (other.concepts & one.names)
    if names_one == names_other and close(one.subject, other.subject):
        if one.negated == other.negated:
            if one.typed == other.typed:
                content = len(one.subject & other.subject) + len(one.values)
                return (DUPLICATE, "say the same thing") if content >= 2 else None
            clash = _numbers_clash(one.typed, other.typed)
            units = {unit for unit, _ in one.typed | other.typed}
            if clash and close(one.subject - units, other.subject - units):
                return CONTRADICTION, f"state {clash[0]} and {clash[1]} about the same thing"
            return None
        if one.typed == other.typed:
            return CONTRADICTION, "one says it holds, the other that it does not"
        return None
    mine, theirs = names_one - names_other, names_other - names_one
    if (
        mine
        and theirs
        and mine | theirs <= TOOL_NAMES  # "API" or "Staging" differing is another subject
        and not (one.step or other.step)
        and one.typed == other.typed
        and one.negated == other.negated
        and close(one.subject - names_one, other.subject - names_other)
    ):
        shown = ", ".join(sorted(mine)), ", ".join(sorted(theirs))
        return CONTRADICTION, f"name {shown[0]} and {shown[1]} for the same thing"
    return None


def _also_says(fact, statement, other_statement) -> bool:
    """Whether `fact` also states, about the same subject, what `other_statement` does:
    steps 1, 2 and 3 listed in two facts, or a rule and its exception, are no clash."""
    if other_statement.values and other_statement.values <= fact.values:
        return True
    if other_statement.names - statement.names and other_statement.names <= fact.names:
        return True
    return any(
        said is not statement
        and said.negated == other_statement.negated
        and said.negated != statement.negated
        and close(said.subject, other_statement.subject)
        for said in fact.statements
    )


def _shared_subject(one, other) -> int:
    units = {unit for unit, _ in one.typed} | {unit for unit, _ in other.typed}
    return len((one.subject & other.subject) - units)


def _domain(statement) -> frozenset:
    return statement.concepts or statement.names


def statement_pairs(facts: list, work: Work) -> tuple[dict, set]:
    """({(i, j): why} contradictions, {(i, j)} duplicates of title or one-liner), i < j."""
    nodes: dict[tuple, int] = {}
    said: list = []
    owners: list[list[int]] = []
    heads: list[set[int]] = []
    for index, fact in enumerate(facts):
        for statement in fact.statements:
            if not _domain(statement):
                continue
            signature = (statement.concepts, statement.names, statement.typed, statement.negated)
            node = nodes.get(signature)
            if node is None:
                node = nodes[signature] = len(said)
                said.append(statement)
                owners.append([])
                heads.append(set())
            if not owners[node] or owners[node][-1] != index:
                owners[node].append(index)
            if statement in fact.heads:
                heads[node].add(index)
    clashes: dict[tuple[int, int], str] = {}
    repeats: set[tuple[int, int]] = set()
    for node, titled in enumerate(heads):  # one title worded alike in several facts
        ordered = sorted(titled)
        if len(said[node].subject) + len(said[node].values) < 2:
            continue
        for i in ordered[1:]:
            if same_scope(facts[ordered[0]], facts[i]):
                repeats.add((ordered[0], i))
    postings: dict[str, list[int]] = {}
    for node, statement in enumerate(said):
        if len(owners[node]) <= OWNER_CAP:
            for word in statement.subject:
                postings.setdefault(word, []).append(node)
    judged: set[tuple[int, int]] = set()
    for node, statement in enumerate(said):
        if len(owners[node]) > OWNER_CAP:
            continue
        key = min(_domain(statement), key=lambda word: (len(postings[word]), word))
        if len(postings[key]) > BLOCK_CAP:
            continue
        for other in postings[key]:
            pair_of_nodes = (min(node, other), max(node, other))
            if other == node or pair_of_nodes in judged:
                continue
            judged.add(pair_of_nodes)
            verdict = judge(statement, said[other], work)
            if verdict is None:
                continue
            kind, why = verdict
            for i in owners[node]:
                for j in owners[other]:
                    if i == j or not same_scope(facts[i], facts[j]):
                        continue
                    pair = (min(i, j), max(i, j))
                    if kind == DUPLICATE:
                        if i in heads[node] and j in heads[other]:
                            repeats.add(pair)
                    elif pair not in clashes:
                        if not (i in heads[node] and j in heads[other]) and (
                            _shared_subject(statement, said[other]) < BODY_SUBJECT
                        ):
                            continue  # "It takes 10 minutes" in a body: about what?
                        first, second = facts[i], facts[j]
                        if not (
                            _also_says(first, statement, said[other])
                            or _also_says(second, said[other], statement)
                        ):
                            clashes[pair] = why
    return clashes, repeats


def _jaccard(first: frozenset, second: frozenset) -> float:
    union = first | second
    return len(first & second) / len(union) if union else 0.0


def _prefix(words: frozenset, counts: dict, threshold: float) -> list[str]:
    """The rarest words of a set: any set as similar as `threshold` shares one of them."""
    size = len(words) - ceil(threshold * len(words)) + 1
    return sorted(words, key=lambda word: (counts[word], word))[:size]


def near_identical(facts: list, skip: dict, work: Work) -> set[tuple[int, int]]:
    """{(i, j)}: facts whose titles share three quarters of their words, or title and
    body six tenths, unless each title names something the other does not."""
    counts: dict[str, int] = {}
    for fact in facts:
        for word in fact.words | fact.title_words:
            counts[word] = counts.get(word, 0) + 1
    postings: dict[str, list[int]] = {}
    probes: list[set[str]] = []
    for index, fact in enumerate(facts):
        probe = set()
        if len(fact.words) >= 4:
            probe.update(_prefix(fact.words, counts, DUPLICATE_BODIES))
        if len(fact.title_words) >= 3:
            probe.update(_prefix(fact.title_words, counts, DUPLICATE_TITLES))
        probes.append(probe)
        for word in probe:
            postings.setdefault(word, []).append(index)
    found: set[tuple[int, int]] = set()
    for i, probe in enumerate(probes):
        seen: set[int] = set()
        for word in probe:
            listed = postings[word]
            if len(listed) > BLOCK_CAP:
                continue
            for j in listed:
                if j <= i or j in seen:
                    continue
                seen.add(j)
                work.facts += 1
                first, second = facts[i], facts[j]
                if (i, j) in skip or not same_scope(first, second):
                    continue
                if first.values != second.values:  # alike in words, not in what they state
                    continue
                if (
                    first.title_words - second.title_words
                    and second.title_words - first.title_words
                ):
                    continue  # each title names something the other does not: two subjects
                small = min(len(first.title_words), len(second.title_words))
                if (
                    small >= 3
                    and _jaccard(first.title_words, second.title_words) >= DUPLICATE_TITLES
                ) or (
                    min(len(first.words), len(second.words)) >= 4
                    and _jaccard(first.words, second.words) >= DUPLICATE_BODIES
                ):
                    found.add((i, j))
    return found
