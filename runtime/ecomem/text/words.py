"""Words as the search and the review compare them: one stemmer and one stopword list.

`find` matches a query word to a row by its stem, and `review` groups facts by the stems
of their words. With a stemmer each, one word stemmed two ways ("configuration" gave
"configur" to find and "configurat" to review), so the two readers could disagree on
whether two texts are about one thing. Both read words through this module, and the
slugs `new` makes drop the same grammar words.

Stdlib only, and no `re` at import: the store's slug maker loads it.
"""

from __future__ import annotations

# Words that carry no subject: they would match nearly every row and name no fact.
GRAMMAR = frozenset(
    """
    a an and are as at be by do does for from how i in is it of on or our the to was we
    what when where which who why with
    """.split()  # noqa: SIM905 - a word list reads best as words
)

# Suffixes stripped to reach a word's stem, longest first: cheap, and enough for the
# plurals and verb forms agents type ("translations" and "translated" both give "transl",
# "caching", "cached" and "cache" give one stem, "configuration" and "configure" "configur").
# fmt: off
SUFFIXES = ("ings", "ions", "ing", "ion", "ers", "ies", "er", "es", "ed", "ly", "s", "e")
# fmt: on

_STEMS: dict[str, str] = {}  # memory repeats its words: each is stemmed once per run


def stem(word: str) -> str:
    """The stem of one lower-case word; at least three letters are always kept."""
    found = _STEMS.get(word)
    if found is not None:
        return found
    found = word
    for suffix in SUFFIXES:
        if found.endswith(suffix) and len(found) - len(suffix) >= 3:
            found = found[: -len(suffix)] + ("y" if suffix == "ies" else "")
            break
    if len(found) > 3 and found[-1] == found[-2] and found[-1] not in "aeiouls":
        found = found[:-1]  # logging -> logg -> log, tagged -> tagg -> tag
    if found.endswith("at") and len(found) >= 7:
        found = found[:-2]  # configuration, configure, configuring -> configur
    _STEMS[word] = found
    return found
