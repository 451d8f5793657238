"""The failures a command may end in on purpose, each with its exit code.

Commands raise these; only the boundary in cli.py prints them, as one line that
names the command. Anything else that escapes a command is a bug, and the boundary
says where to report it instead of showing a traceback.
"""

from __future__ import annotations

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class CommandError(Exception):
    """A foreseen reason to stop; the message is the line the user sees."""

    exit_code = EXIT_USAGE


class UsageError(CommandError):
    """The command cannot be carried out as asked, or I/O failed (exit 2)."""


class Refused(CommandError):
    """A rule or a check says no and nothing was written (exit 1).

    Given findings, each prints on its own line with its rule id; given a message,
    that one line prints."""

    exit_code = EXIT_FINDINGS

    def __init__(self, why) -> None:
        self.findings = [] if isinstance(why, str) else list(why)
        super().__init__(why if isinstance(why, str) else self._first(self.findings))

    @staticmethod
    def _first(findings: list) -> str:
        return findings[0].message if findings else "refused"
