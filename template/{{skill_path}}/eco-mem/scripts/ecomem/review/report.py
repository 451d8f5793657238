"""review's three outputs: one line per finding, Markdown for a CI job summary or an
issue, and JSON for the fleet and other machines."""

from __future__ import annotations

from .checks import KINDS, Item, tokens

MARKDOWN_SPECIALS = set("\\`*_[]<>|@~&")


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


def as_text(items: list[Item], facts: dict) -> str:
    lines = [
        f"{item.kind}: {', '.join(item.entries)}: {item.message} (acts on it: {item.command})"
        for item in items
    ]
    return "\n".join([*lines, verdict(facts)])


def escape(value: str) -> str:
    """Memory-derived text as plain Markdown: no link, mention, tag or table cell break."""
    return "".join(f"\\{char}" if char in MARKDOWN_SPECIALS else char for char in value)


def code(value: str) -> str:
    """`value` as one code span: a backtick inside could close it, so it becomes a quote."""
    return "`" + value.replace("`", "'").replace("\n", " ") + "`"


def as_markdown(items: list[Item], facts: dict, today: str, mem: str) -> str:
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
    for item in items:
        if item.kind != current:
            current = item.kind
            out += ["", f"### {item.kind}", ""]
        entries = ", ".join(code(entry) for entry in item.entries)
        out.append(
            f"- {entries}: {escape(item.message)}. Acts on it: {code('mem ' + item.command)}"
        )
    return "\n".join(out) + "\n"
