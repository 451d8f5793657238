"""Every verify rule, listed once: `verify` and the write gate both run this list.

Three kinds of rule, by what they look at:

- file rules (`file.*`): a document's bytes; they decide whether it is text at all.
  The loader runs them on what is on disk, the gate on the bytes a write would produce.
- content rules: one document's lines (entries and INDEX files alike).
- drawer and store rules: a drawer's entries and catalog together, or the whole store.

A rule added here is run by both, so a write never adds a finding verify would print.
"""

from __future__ import annotations

from ..findings import Finding
from ..store.dates import date
from ..store.load import Drawer, Store
from ..text import injection
from ..text.textfile import decode
from . import personal_data, secret_shapes, transcripts
from .always_budget import check_always_budget
from .caps import check_caps
from .drift import check_drift
from .episodic import check_episodic
from .procedural import check_pointers
from .semantic import check_semantic

# No annotations from collections.abc here: verify imports this module on every commit.
# (relpath, lines) -> findings, run on every readable document.
CONTENT_RULES = (secret_shapes.scan, personal_data.scan, transcripts.scan, injection.scan)
# (store, drawer, today) -> findings, run on every drawer.
DRAWER_RULES = (lambda store, drawer, today: check_drift(drawer),)
# The same, run only on the drawer named.
KIND_RULES = {
    "semantic": lambda store, drawer, today: check_semantic(drawer, today),
    "episodic": lambda store, drawer, today: check_episodic(drawer),
    "procedural": lambda store, drawer, today: check_pointers(drawer, store.root, store.relpath),
}
# (store, touched) -> findings, run once. `touched` is None for verify; the gate passes the
# entries a write changes, so a rule that reads files outside memory (citations) reads
# only theirs.
STORE_RULES = (
    lambda store, touched: check_caps(store),
    lambda store, touched: check_always_budget(store, each_row=touched is not None),
    lambda store, touched: _cites(store, touched),
)


def _cites(store: Store, touched: set[str] | None) -> list[Finding]:
    """Citations, read only when some entry cites: most stores have none, and verify
    should not pay for the citation modules then."""
    drawers = (store.drawers.get(name) for name in ("semantic", "procedural"))
    # One search per entry, not a Python step per line: a line holds "cites" exactly
    # when the entry's lines joined by newlines do.
    if not any(
        "cites" in "\n".join(entry.lines or ())
        for drawer in drawers
        if drawer is not None
        for entry in drawer.entries.values()
    ):
        return []
    from .cites import check_cites

    return check_cites(store, only=touched)


def file_rules(relpath: str, lines: list[str]) -> tuple[list[str] | None, list[Finding]]:
    """The `file.*` rules on the bytes a write of `lines` produces, and the lines a later
    load would read back from them (None when verify would not read them as text)."""
    from ..store.rows import file_text  # the gate's, not verify's

    # surrogatepass: text that cannot be stored as UTF-8 gives bytes that file.encoding
    # reports, rather than an exception here.
    return decode(file_text(lines).encode("utf-8", "surrogatepass"), relpath)


def check_drawer(store: Store, drawer: Drawer, today: date) -> list[Finding]:
    findings: list[Finding] = []
    for rule in DRAWER_RULES:
        findings += rule(store, drawer, today)
    documents = [(entry.relpath, entry.lines) for entry in drawer.entries.values()]
    documents.append((drawer.index_relpath, _past_the_contract(store, drawer)))
    for relpath, lines in documents:
        if lines is not None:
            for scan in CONTENT_RULES:
                findings += scan(relpath, lines)
    kind = KIND_RULES.get(drawer.name)
    if kind is not None:
        findings += kind(store, drawer, today)
    return findings


def _past_the_contract(store: Store, drawer: Drawer) -> list[str] | None:
    """The INDEX lines the content rules need to read: a contract exactly as the template
    renders it is our own text, so its lines are blanked (line numbers kept). A repository
    with many package stores would otherwise scan the same contract once per drawer."""
    lines = drawer.index_lines
    if not lines:
        return lines
    from ..store.contracts import contract_lines

    known = contract_lines(store.relpath, drawer.name)
    if lines[: len(known)] != known:
        return lines  # edited by hand: read every line
    if len(lines) == len(known):
        return None  # the contract alone (a working INDEX: desks have no rows)
    return [""] * len(known) + lines[len(known) :]


def check_store(
    store: Store,
    today: date,
    drawers: list[str] | None = None,
    touched: set[str] | None = None,
) -> list[Finding]:
    """Every rule but the file rules (the loader ran those) and git's (see git_state).
    `drawers` limits the drawer rules to those drawers; store rules always run."""
    findings: list[Finding] = []
    for rule in STORE_RULES:
        findings += rule(store, touched)
    for name in drawers if drawers is not None else list(store.drawers):
        findings += check_drawer(store, store.drawers[name], today)
    return findings
