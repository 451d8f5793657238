"""What verify reports: one finding per broken rule, at one place."""

from __future__ import annotations

from dataclasses import asdict, dataclass

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True, order=True)
class Finding:
    path: str  # repository-relative, POSIX separators
    line: int  # 1-based; 0 when the finding is about the file as a whole
    rule: str  # stable id, e.g. "drift.row-without-file"; documented in README
    severity: str  # ERROR or WARNING
    message: str  # one line that says how to fix it

    def as_text(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.severity} [{self.rule}] {self.message}"

    def as_dict(self) -> dict:
        return asdict(self)
