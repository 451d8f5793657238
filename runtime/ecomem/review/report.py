"""review's three outputs: one line per finding, Markdown for a CI job summary or an
issue, and JSON for the fleet and other machines."""

from __future__ import annotations

from .checks import KINDS, Item, tokens

MARKDOWN_SPECIALS = set("\\`*_[]<>|@~&")
# Kinds a legacy store has by the dozen (facts older than citations, dates nobody
# kept): past GROUP_OVER of one kind, the text and Markdown reports give one line with
# the count and the first SHOWN slugs, so the few findings that matter stay visible.
# --json still lists each.
GROUPED = ("uncited", "expired", "unconfirmed")
GROUP_OVER = 3
SHOWN = 3
GROUP_MESSAGES = {
    "uncited": "verified facts that cite nothing",
    "expired": "facts past their expires date",
    "unconfirmed": "derived guesses never confirmed",
}


def grouped(items: list[Item], each: tuple = ()) -> list[tuple[Item, list[Item]]]:
    """Each item with the items it stands for: itself alone, or a whole legacy kind
    (unless the kind is in `each`: --suggest-cites shows every uncited fact's line)."""
    counts: dict[str, int] = {}
    for item in items:
        counts[item.kind] = counts.get(item.kind, 0) + 1
    out, done = [], set()
    for item in items:
        if item.kind in GROUPED and item.kind not in each and counts[item.kind] > GROUP_OVER:
            if item.kind not in done:
                done.add(item.kind)
                out.append((item, [other for other in items if other.kind == item.kind]))
        else:
            out.append((item, [item]))
    return out


def _slug(item: Item) -> str:
    return item.command.split()[1] if len(item.command.split()) > 1 else item.entries[0]


def group_line(members: list[Item]) -> tuple[str, str]:
    """(what, command) for a whole kind: the count, the first slugs, one example."""
    first = members[0]
    names = ", ".join(_slug(item) for item in members[:SHOWN])
    more = f" and {len(members) - SHOWN} more" if len(members) > SHOWN else ""
    what = f"{len(members)} {GROUP_MESSAGES[first.kind]}: {names}{more} (--json lists each)"
    return what, first.command


def summary(counts: dict, items: list[Item], load_bytes: int, limits: dict) -> dict:
    found = {kind: 0 for kind in KINDS}
    for item in items:
        found[item.kind] += 1
    return {
        "entries": counts,
        "findings": found,
        "load_bytes": load_bytes,
        "load_tokens": tokens(load_bytes),
        "load_budget": limits["load_budget"],
        "thresholds": dict(limits),
    }


def verdict(facts: dict) -> str:
    entries = sum(facts["entries"].values())
    load = (
        f"always-loaded {facts['load_bytes']} bytes (~{facts['load_tokens']} tokens)"
        f" of a {facts['load_budget']}-byte budget"
    )
    found = sum(facts["findings"].values())
    if not found:
        return f"eco-mem review: healthy; {entries} entries, {load}"
    kinds = ", ".join(f"{n} {kind}" for kind, n in facts["findings"].items() if n)
    return f"eco-mem review: {found} finding(s) ({kinds}); {entries} entries, {load}"


def as_text(
    items: list[Item], facts: dict, suggest_cites: bool = False, candidates: tuple = ()
) -> str:
    """One line per finding, the rule candidates, then the summary line, always last."""
    lines = []
    for item, members in grouped(items, ("uncited",) if suggest_cites else ()):
        if len(members) > 1:
            what, command = group_line(members)
            lines.append(f"{item.kind}: {what} (acts on the first: {command})")
        else:
            lines.append(
                f"{item.kind}: {', '.join(item.entries)}: {item.message}"
                f" (acts on it: {item.command})"
            )
    told = candidates_text(list(candidates))
    return "\n".join([*lines, *([told.rstrip("\n")] if told else []), verdict(facts)])


def escape(value: str) -> str:
    """Memory-derived text as plain Markdown: no link, mention, tag or table cell break."""
    return "".join(f"\\{char}" if char in MARKDOWN_SPECIALS else char for char in value)


def code(value: str) -> str:
    """`value` as one code span: a backtick inside could close it, so it becomes a quote."""
    return "`" + value.replace("`", "'").replace("\n", " ") + "`"


def as_markdown(
    items: list[Item], facts: dict, today: str, mem: str, suggest_cites: bool = False
) -> str:
    out = [f"## eco-mem memory review, {today}", ""]
    found = sum(facts["findings"].values())
    if found:
        out.append(
            f"{found} finding(s). Each is a question for a person: nothing was changed,"
            f" and each command below is what would act on it (`mem` is `{mem}`)."
        )
    else:
        out.append("Healthy: no finding.")
    out += ["", "| drawer | entries |", "|---|---|"]
    out += [f"| {name} | {count} |" for name, count in facts["entries"].items()]
    out += ["", "| finding | count |", "|---|---|"]
    out += [f"| {kind} | {count} |" for kind, count in facts["findings"].items()]
    out += [
        "",
        f"Always loaded: {facts['load_bytes']} bytes (~{facts['load_tokens']} tokens),"
        f" budget {facts['load_budget']} bytes.",
    ]
    current = None
    for item, members in grouped(items, ("uncited",) if suggest_cites else ()):
        if item.kind != current:
            current = item.kind
            out += ["", f"### {item.kind}", ""]
        if len(members) > 1:
            what, command = group_line(members)
            out.append(f"- {escape(what)}. Acts on the first: {code('mem ' + command)}")
            continue
        entries = ", ".join(code(entry) for entry in item.entries)
        out.append(
            f"- {entries}: {escape(item.message)}. Acts on it: {code('mem ' + item.command)}"
        )
    return "\n".join(out) + "\n"


CANDIDATES = (
    "rules to confirm: no row is marked [always] yet, and these facts read like rules"
    " every change follows. Ask the user which are; each command marks one, so find"
    " prints it whatever the task's words:"
)


def candidates_text(items: list[Item]) -> str:
    """The rule candidates after the report, one line each; "" when there are none."""
    if not items:
        return ""
    lines = [CANDIDATES]
    lines += [f"- {', '.join(item.entries)}: {item.message} ({item.command})" for item in items]
    return "\n".join(lines) + "\n"


def candidates_markdown(items: list[Item], mem: str) -> str:
    if not items:
        return ""
    out = ["", "### rules to confirm", "", escape(CANDIDATES), ""]
    for item in items:
        entries = ", ".join(code(entry) for entry in item.entries)
        out.append(f"- {entries}: {escape(item.message)}. {code('mem ' + item.command)}")
    return "\n".join(out) + "\n"
