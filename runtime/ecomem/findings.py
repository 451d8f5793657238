"""What verify reports: one finding per broken rule, at one place."""

from __future__ import annotations

from collections import namedtuple

ERROR, WARNING = "error", "warning"


# A named tuple sorts by path, then line, and hashes, which is all verify needs;
# dataclasses would cost more to import than checking a whole store.
class Finding(namedtuple("Finding", "path line rule severity message")):
    """path: repository-relative, POSIX separators; line: 1-based, 0 for the whole file;
    rule: stable id such as "drift.row-without-file" (documented in docs/verify.md);
    severity: ERROR or WARNING; message: one line that says how to fix it."""

    __slots__ = ()

    def as_text(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.severity} [{self.rule}] {self.message}"

    def as_dict(self) -> dict:
        return dict(self._asdict())
