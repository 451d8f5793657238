"""The protocol's mechanical caps: how many desks, how long an entry, how many rows."""

from __future__ import annotations

from .. import protocol
from ..findings import ERROR, Finding
from ..store.load import Store

LINE_CAPS = {
    "working": ("desk_lines", "caps.desk-lines", "split the task or prune finished progress"),
    "semantic": ("semantic_lines", "caps.semantic-lines", "one fact per file; split it"),
    "episodic": ("episodic_lines", "caps.episodic-lines", "keep the lesson, trim the narrative"),
    "procedural": ("procedural_lines", "caps.procedural-lines", "graduate it into a real skill"),
}


def check_caps(store: Store) -> list[Finding]:
    caps = protocol.CAPS
    findings: list[Finding] = []
    for name, drawer in store.drawers.items():
        cap_key, rule, advice = LINE_CAPS[name]
        limit = caps[cap_key]
        for entry in drawer.entries.values():
            if entry.lines is not None and len(entry.lines) > limit:
                message = f"{len(entry.lines)} lines, cap is {limit}; {advice}"
                findings.append(Finding(entry.relpath, limit + 1, rule, ERROR, message))
        rows = drawer.catalog.rows
        if len(rows) > caps["catalog_rows"]:
            message = f"{len(rows)} rows, cap is {caps['catalog_rows']}; delete dead rows and their files first"
            findings.append(
                Finding(
                    drawer.index_relpath,
                    rows[caps["catalog_rows"]].line,
                    "caps.catalog-rows",
                    ERROR,
                    message,
                )
            )
    desks = (
        sorted(store.drawers["working"].entries.values(), key=lambda entry: entry.name)
        if "working" in store.drawers
        else []
    )
    if len(desks) > caps["desks"]:
        message = f"{len(desks)} desks, cap is {caps['desks']}; finish or clear a task first"
        findings.append(Finding(desks[caps["desks"]].relpath, 0, "caps.desks", ERROR, message))
    return findings
