"""Which facts read like a rule every change follows: candidates for the `[always]` mark.

A store written before rows could be marked holds its conventions as plain facts, and
`find` then shows a convention only to a task whose words name it (a store from an
earlier release gave 37% of the conventions its tasks needed, issue 46). Review cannot
know which facts bind every change; it can name those that are worded like a rule (a
must, a never, an order in the imperative) for the user to confirm. Precision first:
a fact that only describes ("Staging listens on 6543") is never named.
"""

from __future__ import annotations

from ..text.words import GRAMMAR

# Words that make a sentence a rule wherever they stand.
BINDING = ("always", "never", "must", "mustn't", "shall", "do not", "don't", "only ever")
# A rule said of every change: "each commit", "every pull request", "all new code".
EVERY = ("every", "each", "all", "any")
WORK = frozenset(
    """
    change changes commit commits pr prs pull release code function functions test
    tests file files module modules endpoint endpoints migration migrations message
    messages string strings handler handlers query queries dependency dependencies
    """.split()  # noqa: SIM905 - a word list reads best as words
)
# Verbs that open an order about code or process: "Use gettext for ...", "Run ruff ...";
# and "No", which opens a ban ("No raw SQL outside migrations").
IMPERATIVE = frozenset(
    """
    use run wrap add keep write put call prefer avoid name raise log format commit store
    import return follow document validate check make never always do squash rebase sign
    tag bump pin lint type annotate prefix suffix review test no
    """.split()  # noqa: SIM905 - a word list reads best as words
)


def rule_words(texts: list[str]) -> str | None:
    """The words that make one of `texts` (a title, a row's text, the sentences of the
    first body line) read as a rule, quoted; None when none does."""
    for text in texts:
        lowered = f" {text.lower().strip()} "
        for phrase in BINDING:
            if f" {phrase} " in lowered or f" {phrase}," in lowered:
                return f"'{phrase}'"
        words = [word.strip(".,;:()`'\"") for word in lowered.split()]
        for at, word in enumerate(words[:-1]):
            if word in EVERY and any(later in WORK for later in words[at + 1 : at + 4]):
                return f"'{word} {words[at + 1]}'"
        # The sentence's first word, unless it is code (`make reindex` rebuilds it).
        first = next((word for word in words if word and word not in GRAMMAR), "")
        if words and words[0] == first and first in IMPERATIVE and lowered[1:2] != "`":
            return f"'{first}' first, an order"
    return None
