"""The memory commands' command line: find, new, revise, confirm, forget, end-task.

Kept apart from eco_mem.py so the maintenance commands stay as they were; each memory
command's modules are imported only when that command runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import protocol

SUMMARIES = {
    "find": "search the catalog rows (never the entry files)",
    "new": "add an entry and its row",
    "revise": "change a fact or a procedure in place",
    "confirm": "mark a fact user-confirmed, after the user said so",
    "forget": "remove an entry and its row",
    "end-task": "print a desk, promote what lasts, clear the desk",
}
COMMANDS = tuple(SUMMARIES)
EXITS = "exit codes: 0 done, 1 refused by a rule (nothing written), 2 usage or I/O error"
RAW = argparse.RawDescriptionHelpFormatter
MAX_ROWS = protocol.CAPS["entries_per_task"]  # find shows no more rows than may be opened


def add_summaries(commands) -> None:
    """Name the memory commands in `eco_mem.py --help` without building their options:
    verify runs on every commit and should not pay for parsers it never uses."""
    for name, summary in SUMMARIES.items():
        commands.add_parser(name, help=summary, add_help=False)


def add_parsers(commands, rooted: argparse.ArgumentParser) -> None:
    def command(name: str, description: str, epilog: str = EXITS):
        return commands.add_parser(
            name,
            parents=[rooted],
            help=SUMMARIES[name],
            description=description,
            epilog=epilog,
            formatter_class=RAW,
        )

    find = command(
        "find",
        "Print the catalog rows that match TEXT, best first, each with the path to open if\n"
        "the row is not enough. A word matches a row, or the entry behind it, by substring\n"
        "or stem (translations finds translated); only rows are printed. No TEXT lists rows.\n"
        "A miss may be other words: read the four INDEX.md files before concluding nothing\n"
        "is remembered; do not browse the drawers.",
        "exit codes: 0 done (also when nothing matches), 2 usage or I/O error",
    )
    find.add_argument("text", nargs="*", metavar="TEXT", help="words to look for")
    find.add_argument("--drawer", choices=protocol.DRAWERS, help="search one drawer only")
    find.add_argument("--all", action="store_true", help=f"every match, not the best {MAX_ROWS}")
    find.add_argument("--json", action="store_true", help="print the rows as JSON")

    new = command(
        "new",
        "Add an entry file and its catalog row in one step. The content is checked by\n"
        "verify's rules first; a refusal names the rule and writes nothing.",
    )
    kinds = new.add_subparsers(dest="kind", metavar="DRAWER", required=True)
    sem = kinds.add_parser(
        "semantic",
        parents=[rooted],
        help="one fact",
        description="A fact, one per file, named after its title (ASCII kebab case).\n"
        "The body is --body TEXT, or stdin when --body is left out or is '-'.",
        epilog=EXITS,
        formatter_class=RAW,
    )
    _fact_options(sem, required=True)
    epi = kinds.add_parser(
        "episodic",
        parents=[rooted],
        help="one event, with its lesson",
        description="An event in YYYY-MM-DD-slug.md. No lesson, no entry.",
        epilog=EXITS,
        formatter_class=RAW,
    )
    _episode_options(epi, required=True)
    pro = kinds.add_parser(
        "procedural",
        parents=[rooted],
        help="a pointer to a skill, workflow or test, or a staged checklist",
        description="A row pointing at a file that exists in the repository, or a short\n"
        "checklist (copied from --checklist-file) staged until it becomes a real skill.",
        epilog=EXITS,
        formatter_class=RAW,
    )
    pro.add_argument("--name", required=True, help="what the method does, a few words")
    pro.add_argument("--use-when", required=True, help="when to reach for it")
    target = pro.add_mutually_exclusive_group(required=True)
    target.add_argument("--points-to", metavar="PATH", help="repository-relative path")
    target.add_argument(
        "--checklist-file",
        metavar="FILE",
        help="checklist file inside the repository, or - for stdin",
    )
    desk = kinds.add_parser(
        "working",
        parents=[rooted],
        help="a desk for a task that spans sessions",
        description=f"A desk (gitignored), at most {protocol.CAPS['desks']} at a time.",
        epilog=EXITS,
        formatter_class=RAW,
    )
    desk.add_argument("--title", required=True, help="the task in a few words")
    desk.add_argument("--goal", help="what done looks like, one line")

    revise = command(
        "revise",
        "Change a semantic fact (as_of moves to today unless --as-of) or a procedural row,\n"
        "in its own file and row. Episodes are refused: record a new one. A user-confirmed\n"
        "fact needs --source: verified (code evidence) or derived (then confirm --by-user).\n"
        "On a staged checklist, --points-to alone graduates it: the row points there and\n"
        "the checklist file goes.",
    )
    revise.add_argument("slug", metavar="SLUG", help="slug, name or file name of the entry")
    revise.add_argument(
        "--drawer", choices=("semantic", "procedural"), help="when SLUG is ambiguous"
    )
    revise.add_argument("--title", help="semantic: the fact's new title and one-liner")
    revise.add_argument(
        "--source", choices=protocol.SEMANTIC_SOURCES, help="semantic: new provenance"
    )
    revise.add_argument("--scope", help="semantic")
    revise.add_argument("--expires", metavar="YYYY-MM-DD|never", help="semantic")
    revise.add_argument("--as-of", metavar="YYYY-MM-DD", help="semantic (default: today)")
    revise.add_argument("--use-when", help="procedural")
    revise.add_argument("--points-to", metavar="PATH", help="procedural")
    revise.add_argument(
        "--checklist-file", metavar="FILE", help="procedural: new checklist (in the repo, or -)"
    )
    revise.add_argument("--body", help="new body; '-' reads stdin")

    confirm = command(
        "confirm",
        "The only way a fact becomes user-confirmed. --by-user states that the user\n"
        "confirmed it; without it the command refuses. as_of moves to today.",
    )
    confirm.add_argument("slug", metavar="SLUG")
    confirm.add_argument("--by-user", action="store_true", help="the user confirmed this fact")

    forget = command(
        "forget",
        "Remove an entry file and its row together. Episodes leave only for a leaked\n"
        "secret or injected instructions. A committed secret stays in git history:\n"
        "rotate it, then purge history (docs/memory-commands.md in the eco-mem\n"
        "template repository).",
    )
    forget.add_argument("slug", metavar="SLUG")
    forget.add_argument(
        "--reason",
        choices=("obsolete", "secret", "injection"),
        default="obsolete",
        help="default obsolete; an episode needs secret or injection",
    )
    forget.add_argument("--drawer", choices=protocol.DRAWERS, help="when SLUG is ambiguous")

    end = command(
        "end-task",
        "Print the desk, then delete it and its row. --promote-to adds one fact or episode\n"
        "(the options of `new semantic` or `new episodic`) in the same write; if the\n"
        "promotion is refused, the desk stays. Nothing is asked interactively.",
    )
    end.add_argument("slug", metavar="SLUG", help="the desk")
    end.add_argument("--promote-to", choices=("semantic", "episodic"))
    _fact_options(end, required=False)
    _episode_options(end, required=False, title=False)
    end.add_argument("--json", action="store_true", help="print the desk and paths as JSON")


def _fact_options(parser: argparse.ArgumentParser, required: bool) -> None:
    parser.add_argument("--title", required=required, help="the fact itself, as a title")
    parser.add_argument(
        "--source",
        required=required,
        choices=protocol.SEMANTIC_SOURCES,
        help="no default: derived for your own inference; user-confirmed only via confirm",
    )
    parser.add_argument("--scope", required=required, help="where it applies")
    parser.add_argument("--expires", required=required, metavar="YYYY-MM-DD|never")
    parser.add_argument("--as-of", metavar="YYYY-MM-DD", help="default: today")
    parser.add_argument("--body", help="the fact in a sentence or two; '-' or absent: stdin")


def _episode_options(parser: argparse.ArgumentParser, required: bool, title: bool = True) -> None:
    if title:
        parser.add_argument("--title", required=required, help="what happened, a few words")
    for name in protocol.EPISODIC_SECTIONS:
        parser.add_argument(f"--{name}", required=required, help="required" if required else None)
    parser.add_argument("--date", metavar="YYYY-MM-DD", help="default: today")


def read_body(value: str | None) -> str:
    """--body TEXT, or stdin when --body is '-' or absent (never waiting on a silent one)."""
    if value is not None and value != "-":
        return value
    from ..write.writer import UsageError

    stream = sys.stdin
    if stream is None or (value is None and (stream.isatty() or not _ready(stream))):
        raise UsageError("give the text with --body TEXT or on stdin")
    return stream.read()


def _ready(stream) -> bool:
    try:
        import select

        return bool(select.select([stream], [], [], 2.0)[0])
    except (ImportError, OSError, ValueError):
        return True  # no select on this stream (Windows pipes): just read


def run(root: Path, args: argparse.Namespace) -> int:
    from ..write.locking import LockTimeout
    from ..write.writer import Refused, UsageError

    name = args.command
    try:
        return _dispatch(root, args)
    except Refused as refusal:
        for finding in refusal.findings:
            where = f"{finding.path}:{finding.line}" if finding.line else finding.path
            print(
                f"eco_mem.py {name}: refused [{finding.rule}] {where}: {finding.message}",
                file=sys.stderr,
            )
        return 1
    except (UsageError, LockTimeout) as error:
        print(f"eco_mem.py {name}: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"eco_mem.py {name}: {error}", file=sys.stderr)
        return 2


def _dispatch(root: Path, args: argparse.Namespace) -> int:
    from ..write import writer as writes

    if args.command == "find":
        return _find(root, args)
    if args.command == "confirm" and not args.by_user:
        from ..findings import ERROR, Finding

        message = (
            "only the user confirms a fact: ask them, and rerun with --by-user once they agree"
        )
        raise writes.Refused([Finding(args.slug, 0, "semantic.source", ERROR, message)])
    if args.command == "new":
        return _new(root, args)
    if args.command == "revise":
        from .revise import revise

        body = read_body(args.body) if args.body is not None else None
        _written(root, "revised", lambda store, today: [revise(args, body, store, today)])
        return 0
    if args.command == "confirm":
        from .revise import confirm

        _written(root, "confirmed", lambda store, today: [confirm(args, store, today)])
        return 0
    if args.command == "forget":
        return _forget(root, args)
    return _end_task(root, args)


def _written(root: Path, verb: str, build) -> list[str]:
    """Run one write and print what it changed."""
    from ..write import writer as writes

    touched: list[str] = []

    def described(store, today):
        changes = build(store, today)
        for change in changes:
            folder = f"{store.relpath}/{change.drawer}"
            touched.extend(f"{folder}/{name}" for name in change.files)
            touched.append(f"{folder}/INDEX.md")
        return changes, {}

    writes.write(root, described)
    print(f"{verb}: {', '.join(touched)}")
    return touched


def _find(root: Path, args: argparse.Namespace) -> int:
    from ..write.writer import finish_interrupted
    from .find import search

    finish_interrupted(root)
    drawers = (args.drawer,) if args.drawer else protocol.DRAWERS
    matches, problems, read = search(root, args.text, drawers)
    for problem in problems:
        print(problem, file=sys.stderr)
    shown = matches if args.all else matches[:MAX_ROWS]
    if args.json:
        report = {
            "version": 1,
            "query": args.text,
            "matches": len(matches),
            "rows": [match.as_dict() for match in shown],
        }
        import json  # only --json pays for it; verify loads this module on every run

        print(json.dumps(report, indent=2))
    else:
        for match in shown:
            print(match.as_text())
        if not matches:
            print(
                "no matching row for those words; before concluding nothing is remembered,"
                f" read the four INDEX files ({protocol.MEMORY_DIR}/*/INDEX.md)",
                file=sys.stderr,
            )
        elif len(shown) < len(matches):
            print(f"{len(shown)} of {len(matches)} rows; --all shows every one", file=sys.stderr)
    return 0 if read else 2


def _new(root: Path, args: argparse.Namespace) -> int:
    from . import new

    if args.kind == "semantic":
        body = read_body(args.body)
        if not body.strip():
            from ..write.writer import UsageError

            raise UsageError("the fact's body is empty: say it in a sentence or two")
        build = lambda store, today: [new.semantic(args, body, store, today)]  # noqa: E731
    else:
        builder = getattr(new, args.kind)
        build = lambda store, today: [builder(args, store, today)]  # noqa: E731
    _written(root, "added", build)
    return 0


def _forget(root: Path, args: argparse.Namespace) -> int:
    from .forget import committed_in, forget

    touched = _written(
        root, f"forgot ({args.reason})", lambda store, today: [forget(args, store, today)]
    )
    if args.reason in ("secret", "injection"):
        for path in touched[:-1]:
            commit = committed_in(root, path)
            if commit:
                print(
                    f"{path} is still in git history (last in {commit}): for a secret, rotate it"
                    " first, then purge history (docs/memory-commands.md in the eco-mem"
                    " template repository)",
                    file=sys.stderr,
                )
    return 0


def _end_task(root: Path, args: argparse.Namespace) -> int:
    from ..write import writer as writes
    from .end_task import desk_text, end_task

    body = None
    if args.promote_to == "semantic":
        body = read_body(args.body)
        if not body.strip():
            raise writes.UsageError("the fact's body is empty: say it in a sentence or two")
    result: dict = {}

    def build(store, today):
        result["desk"], result["text"] = desk_text(store, args.slug)
        changes = end_task(args, body, store, today)
        result["promoted"] = [
            f"{store.relpath}/{change.drawer}/{name}"
            for change in changes[:-1]
            for name in change.files
        ]
        return changes, result

    writes.write(root, build)
    if args.json:
        import json

        print(json.dumps({"version": 1, **result}, indent=2))
        return 0
    sys.stdout.write(result["text"])
    for path in result["promoted"]:
        print(f"promoted: {path}", file=sys.stderr)
    print(f"cleared: {result['desk']} and its row", file=sys.stderr)
    return 0
