"""`eco_mem.py verify`: every rule, run over the store, reported one way."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from .. import protocol
from ..experiment import key as experiment_key
from ..findings import ERROR, WARNING, Finding
from ..install import track as tracking
from ..rules import injection, personal_data, secret_shapes, transcripts
from ..rules.caps import check_caps
from ..rules.drift import check_drift
from ..rules.episodic import check_episodic
from ..rules.git_state import start_git_checks
from ..rules.procedural import check_pointers
from ..rules.semantic import check_semantic
from ..store.dates import parse_iso
from ..store.load import Store, load_store

CONTENT_RULES = (secret_shapes.scan, personal_data.scan, transcripts.scan, injection.scan)


def collect(
    root: Path,
    today: date,
    staged: bool = False,
    notes: list[str] | None = None,
    default_branch: str | None = None,
) -> list[Finding]:
    """Every finding for the store under `root`; rules that could not run add to `notes`."""
    store, findings = load_store(root)
    if store.drawers:
        # Both git questions go out first: git answers on the other core
        # while the rules below run.
        hidden = tracking.HiddenCheck(root)
        git_rules = start_git_checks(store, staged, default_branch)
        findings += _check_store(store, today)
        findings += git_rules()
        try:
            findings += hidden.findings()
        except tracking.NotAWorkTree as why:
            if notes is not None:
                notes.append(f"git.ignored skipped: not a git work tree ({why})")
    return sorted(set(findings))


def _check_store(store: Store, today: date) -> list[Finding]:
    findings = check_caps(store)
    for drawer in store.drawers.values():
        findings += check_drift(drawer)
        documents = [(entry.relpath, entry.lines) for entry in drawer.entries.values()]
        documents.append((drawer.index_relpath, drawer.index_lines))
        for relpath, lines in documents:
            if lines is not None:
                for scan in CONTENT_RULES:
                    findings += scan(relpath, lines)
    findings += check_semantic(store.drawers["semantic"], today)
    findings += check_episodic(store.drawers["episodic"])
    findings += check_pointers(store.drawers["procedural"], store.root)
    return findings


def run(root: Path, args: argparse.Namespace) -> int:
    if experiment_key.key_path(root).is_file():
        # An agent-experiment clone: record memory access times before anything is read.
        from ..experiment.atime import snapshot_before_verify

        snapshot_before_verify(root)
    today = date.today()
    if args.today:
        parsed = parse_iso(args.today)
        if parsed is None:
            print(f"eco_mem.py verify: --today {args.today!r} is not YYYY-MM-DD", file=sys.stderr)
            return 2
        today = parsed
    notes: list[str] = []
    try:
        findings = collect(
            root, today, staged=args.staged, notes=notes, default_branch=args.default_branch
        )
    except OSError as error:
        print(f"eco_mem.py verify: {error}", file=sys.stderr)
        return 2
    counts = {ERROR: 0, WARNING: 0}
    for finding in findings:
        counts[finding.severity] += 1
    failing = counts[ERROR] + (counts[WARNING] if args.strict else 0)
    if args.json:
        import json  # only machine readers pay for it

        report = {
            "version": 1,
            "root": str(root),
            "memory": protocol.MEMORY_DIR,
            "ok": failing == 0,
            "counts": counts,
            "findings": [finding.as_dict() for finding in findings],
            "notes": notes,
        }
        print(json.dumps(report, indent=2))
    else:
        for finding in findings:
            print(finding.as_text())
        for note in notes:
            print(f"eco-mem verify: note: {note}", file=sys.stderr)
        verdict = (
            "clean" if not findings else f"{counts[ERROR]} error(s), {counts[WARNING]} warning(s)"
        )
        print(f"eco-mem verify: {verdict}", file=sys.stderr)
    return 1 if failing else 0
