"""`eco_mem.pyz verify`: every rule, run over the store, reported one way."""

from __future__ import annotations

import sys
from pathlib import Path

from .. import protocol
from ..errors import UsageError
from ..experiment_clone import is_experiment_clone
from ..findings import ERROR, WARNING, Finding
from ..gitsetup import track as tracking
from ..rules import registry
from ..rules.git_state import git_home_findings, start_git_checks
from ..store.dates import date, parse_iso
from ..store.load import load_store

HELP = "check the memory store"
DESCRIPTION = """\
Check the eco-mem store: structure, catalog rows against files, caps,
semantic provenance, episode lessons, procedural pointers, and the write
gate's mechanical rules (secret-shaped values, card numbers, IBANs and SSNs,
chat transcripts, text that tries to instruct the agent). Nothing outside the
memory folder is read.
"""
EPILOG = """\
exit codes:
  0  no errors (warnings may be printed; --strict makes them count)
  1  at least one finding that counts
  2  usage or I/O error

--json prints one object:
  {"version": 1, "root": str, "memory": str, "ok": bool,
   "stores": [str],   # every store checked: the root's memory folder, then packages'
   "counts": {"error": int, "warning": int},
   "findings": [{"path": str, "line": int, "rule": str,
                 "severity": "error"|"warning", "message": str}],
   "notes": [str]}   # rules that could not run here, and why
  line is 1-based, 0 when the finding is about a whole file.
"""


def add_arguments(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print findings as JSON (schema below)")
    parser.add_argument(
        "--staged",
        action="store_true",
        help="also check what is staged in git: desk rows, desks, rewritten episodes",
    )
    parser.add_argument("--strict", action="store_true", help="warnings count as findings too")
    parser.add_argument(
        "--default-branch",
        metavar="NAME",
        help="the branch desks never reach (default: origin/HEAD, else main or master;"
        " on a detached HEAD, CI variables or the tip commit decide, see branch.py)",
    )
    parser.add_argument(
        "--today", metavar="YYYY-MM-DD", help="date to judge expiry by (default: today)"
    )


# The options above, as quick_args reads them.
QUICK_FLAGS = {"--json": "json", "--staged": "staged", "--strict": "strict"}
QUICK_VALUES = {"--root": "root", "--default-branch": "default_branch", "--today": "today"}


class QuickArgs:
    """What argparse's Namespace holds for verify: the command and each option."""

    def __init__(self) -> None:
        self.command = "verify"
        for dest in QUICK_FLAGS.values():
            setattr(self, dest, False)
        for dest in QUICK_VALUES.values():
            setattr(self, dest, None)


def quick_args(argv: list[str]) -> QuickArgs | None:
    """verify's options read without argparse (cli.quick_args), or None to leave them
    to argparse. Only whole option names are taken, and values that neither are empty
    nor begin with `-`: there argparse reads the same. Anything else (--help, `--js`,
    a missing value, an extra word) is argparse's to answer or refuse."""
    args = QuickArgs()
    words = iter(argv)
    for word in words:
        name, equals, value = word.partition("=")
        if not equals and word in QUICK_FLAGS:
            setattr(args, QUICK_FLAGS[word], True)
        elif name in QUICK_VALUES:
            value = value if equals else next(words, "")
            if not value or value.startswith("-"):
                return None
            setattr(args, QUICK_VALUES[name], value)
        else:
            return None
    return args


def collect(
    root: Path,
    today: date,
    staged: bool = False,
    notes: list[str] | None = None,
    default_branch: str | None = None,
) -> list[Finding]:
    """Every finding for every store under `root` (the root's and each package's, as git's
    index lists them); rules that could not run add to `notes`."""
    from ..rules.runtime_file import runtime_file_findings
    from ..rules.tool_settings import tool_settings_findings
    from ..store import stores

    findings: list[Finding] = (
        git_home_findings(root) + tool_settings_findings(root) + runtime_file_findings(root)
    )
    if protocol.CLAUDE_CODE:
        from ..rules.skill_link import skill_link_findings

        findings += skill_link_findings(root)
    hidden = None
    known = stores.all_stores(root)
    refused = stores.refused_stores(root)
    if refused:
        findings.append(refused_finding(refused))
    touched = _staged_stores(root, known) if staged and len(known) > 1 else set(known)
    loaded, listing = [], {}
    for memory_dir in known:
        stores.use(memory_dir)
        store, found = load_store(root)
        findings += found
        listing.update(store.listing)
        if store.drawers:
            loaded.append(store)
    if loaded:
        # Both git questions go out first: git answers on the other core while the
        # rules below run. One ignore check covers every store's paths.
        hidden = tracking.HiddenCheck(root, listing)
    for store in loaded:
        stores.use(store.relpath)
        # A package store nothing is staged in has no staged rows or episode edits to
        # check: its git questions are skipped, not asked 80 times over.
        in_commit = staged and (store.relpath in touched or store.relpath == stores.ROOT)
        git_rules = start_git_checks(store, in_commit, default_branch)
        findings += registry.check_store(store, today)
        findings += git_rules()
    stores.use(stores.ROOT)
    if hidden is not None:
        try:
            findings += hidden.findings()
        except tracking.NotAWorkTree as why:
            if notes is not None:
                notes.append(f"git.ignored skipped: not a git work tree ({why})")
        except tracking.GitRefused as refusal:  # a check that could not run is no pass
            path, _, message = str(refusal).partition(" ")
            findings.append(Finding(path, 0, "git.refused", ERROR, message))
    return sorted(set(findings))


def refused_finding(count: int) -> Finding:
    """One error for every folder that looks like a package store under a path that fails
    stores.is_store_package: counted, never named (a path can hold any text)."""
    from ..store.names import STORE_WITHHELD
    from ..store.stores import ROOT

    many = count > 1
    message = (
        f"{count} folder{'s' if many else ''} with drawer catalogs under a path that is not"
        " plain (each part ASCII letters, digits, '.', '_', '-'; no leading '-', no .git,"
        f" no order): not read as {'package stores' if many else 'a package store'};"
        f" `git ls-files -z '*/{ROOT}/*/INDEX.md'` lists {'them' if many else 'it'}:"
        " rename or delete"
    )
    return Finding(f"{STORE_WITHHELD}/{ROOT}", 0, "structure.store-name", ERROR, message)


def _staged_stores(root: Path, known: list[str]) -> set[str]:
    """The stores that hold a staged change (one `git diff --cached` for all of them)."""
    from ..git import run_git

    try:
        code, out = run_git(root, "diff", "--cached", "--name-only", "-z", "--no-renames")
    except OSError:
        return set(known)
    if code != 0:
        return set(known)
    paths = out.decode("utf-8", "replace").split("\0")
    return {store for store in known if any(path.startswith(store + "/") for path in paths)}


def stores_checked(root: Path) -> list[str]:
    from ..store.stores import all_stores

    return all_stores(root)


def run(root: Path, args) -> int:
    if is_experiment_clone(root):
        # An agent-experiment clone: record memory access times before anything is read.
        from ..experiment_clone import snapshot_before_verify

        snapshot_before_verify(root)
    today = date.today()
    if args.today:
        parsed = parse_iso(args.today)
        if parsed is None:
            raise UsageError(f"--today {args.today!r} is not YYYY-MM-DD")
        today = parsed
    notes: list[str] = []
    findings = collect(
        root, today, staged=args.staged, notes=notes, default_branch=args.default_branch
    )
    counts = {ERROR: 0, WARNING: 0}
    for finding in findings:
        counts[finding.severity] += 1
    failing = counts[ERROR] + (counts[WARNING] if args.strict else 0)
    if args.json:
        from ..json_out import dumps  # json.dumps's text, without importing json

        report = {
            "version": 1,
            "root": str(root),
            "memory": protocol.MEMORY_DIR,
            "stores": stores_checked(root),
            "ok": failing == 0,
            "counts": counts,
            "findings": [finding.as_dict() for finding in findings],
            "notes": notes,
        }
        print(dumps(report, indent=2))
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
