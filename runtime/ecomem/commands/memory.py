"""What the memory commands share: their exit codes, the options a fact and an episode
take (new and end-task both accept them), the body read from stdin, and the line
that says what a write changed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import protocol
from ..errors import UsageError

EXITS = "exit codes: 0 done, 1 refused by a rule (nothing written), 2 usage or I/O error"
MAX_ROWS = protocol.CAPS["entries_per_task"]  # find shows no more rows than may be opened
FACT_OPTIONS = ("title", "source", "scope", "expires", "as_of", "cite")
EPISODE_OPTIONS = ("date", *protocol.EPISODIC_SECTIONS)


def fact_options(parser: argparse.ArgumentParser, required: bool, stated: bool = False) -> None:
    """The options of a fact; `stated` adds --stated-by-user, which stands for --source."""
    parser.add_argument("--title", required=required, help="the fact itself, as a title")
    source = parser.add_mutually_exclusive_group(required=required) if stated else parser
    source.add_argument(
        "--source",
        required=required and not stated,
        choices=protocol.SEMANTIC_SOURCES,
        help="derived for your own inference, verified for what you checked; user-confirmed"
        + (" only with --stated-by-user or confirm" if stated else " only via confirm"),
    )
    if stated:
        source.add_argument(
            "--stated-by-user",
            action="store_true",
            help="the user stated it (a team rule, a fact): stored user-confirmed in this call",
        )
    parser.add_argument("--scope", required=required, help="where it applies")
    parser.add_argument("--expires", required=required, metavar="YYYY-MM-DD|never")
    parser.add_argument("--as-of", metavar="YYYY-MM-DD", help="default: today")
    parser.add_argument("--body", help="the fact in a sentence or two; '-' or absent: stdin")
    cite_option(parser, "")
    always_option(parser)


def always_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--always",
        nargs="?",
        const="",
        metavar="PATHS",
        help="every change follows it: the load step prints its row whatever the task's"
        " words; with PATHS (comma-separated folders or globs: 'src/api/**,*.sql') only"
        " for a task that touches them. Marks the row [always]",
    )


def always_mark(text: str, given: str | None) -> str:
    """The row text with the mark --always asks for (store/always.py); unchanged without it."""
    if given is None:
        return text
    from ..store.always import MAX_PATTERNS, mark_of, marked

    patterns = [part.strip() for part in given.split(",") if part.strip()]
    text = marked(text, patterns)
    if (
        mark_of(text) is None
        or len(patterns) > MAX_PATTERNS
        or any(pattern.startswith("/") or ".." in pattern.split("/") for pattern in patterns)
    ):
        raise UsageError(
            f"--always {given!r}: at most {MAX_PATTERNS} repository-relative paths or globs,"
            " comma-separated, each of letters, digits and . _ - / * ? only, without '..'"
        )
    return text


def cite_option(parser: argparse.ArgumentParser, prefix: str) -> None:
    parser.add_argument(
        "--cite",
        action="append",
        metavar="'PATH \"TEXT\"'",
        help=f"{prefix}the evidence, a repository file and optionally text it contains now"
        " (repeatable; syntax of the cites field, references/entry-shapes.md)",
    )


def episode_options(parser: argparse.ArgumentParser, required: bool, title: bool = True) -> None:
    if title:
        parser.add_argument("--title", required=required, help="what happened, a few words")
    for name in protocol.EPISODIC_SECTIONS:
        parser.add_argument(f"--{name}", required=required, help="required" if required else None)
    parser.add_argument("--date", metavar="YYYY-MM-DD", help="default: today")


def refuse_options(args: argparse.Namespace, names, why: str) -> None:
    """Stop when any of `names` was given: an option that does not apply is never dropped
    in silence, because the caller believes it took effect."""
    given = [
        "--" + name.replace("_", "-")
        for name in names
        if getattr(args, name, None) not in (None, False)
    ]
    if given:
        raise UsageError(
            f"{', '.join(given)} {'does' if len(given) == 1 else 'do'} not apply {why}"
        )


def read_body(value: str | None) -> str:
    """--body TEXT, or stdin when --body is '-' or absent (never waiting on a silent one)."""
    if value is not None and value != "-":
        return value
    stream = sys.stdin
    if stream is None or (value is None and (stream.isatty() or not _ready(stream))):
        raise UsageError("give the text with --body TEXT or on stdin")
    # Bytes, decoded here: a text stream may hand over undecodable bytes as surrogates,
    # which only fail later, when the entry is written.
    data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError("the text on stdin is not UTF-8; memory files are UTF-8") from None


def _ready(stream) -> bool:
    try:
        import select

        return bool(select.select([stream], [], [], 2.0)[0])
    except (ImportError, OSError, ValueError):
        return True  # no select on this stream (Windows pipes): just read


def nonempty_body(value: str | None) -> str:
    body = read_body(value)
    if not body.strip():
        raise UsageError("the fact's body is empty: say it in a sentence or two")
    return body


def written(root: Path, verb: str, build) -> list[str]:
    """Run one write and print the files it changed."""
    from ..store.load import INDEX
    from ..write import writer

    touched: list[str] = []

    def described(store, today):
        changes = build(store, today)
        for change in changes:
            folder = f"{store.relpath}/{change.drawer}"
            touched.extend(f"{folder}/{name}" for name in change.files)
            if change.index_lines is not None:  # a desk has no row
                touched.append(f"{folder}/{INDEX}")
        return changes, {}

    writer.write(root, described)
    print(f"{verb}: {', '.join(touched)}")
    return touched
