"""One outcome per repository, written by whichever process handled it.

all-repos runs the fix in worker processes (`-j`) and swallows failures (it
prints "Errored" and exits 0), so each worker writes its repository's outcome
to a file in a shared folder, and the parent reads them all back at the end.
A repository that never got a final outcome failed somewhere we could not
see (clone, commit, push): it is reported as failed, never as fine.
"""

from __future__ import annotations

import csv
import dataclasses
import fcntl
import hashlib
import json
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

# Results that make the run exit non-zero.
BAD_RESULTS = ("failed", "conflict")


@dataclasses.dataclass
class Outcome:
    repo: str
    action: str  # install | upgrade
    before: str = "-"
    after: str = "-"
    result: str = (
        "failed"  # installed | upgraded | conflict | failed | skipped | dry-run | unchanged
    )
    conflicts: list[str] = dataclasses.field(default_factory=list)
    message: str = ""
    pushed: bool = False
    # The host's own checks (--host-checks): "passed", "failed", "unchecked" (asked for,
    # could not run: the note says why), or "" (not asked, or the repository has none).
    checks: str = ""
    # What eco-mem left for the operator to do by hand in this repository ("to do: ...").
    advice: str = ""
    final: bool = False

    def note(self) -> str:
        """The row's note: the message, then the advice."""
        return "; ".join(filter(None, (self.message, self.advice)))

    def as_json(self) -> dict:
        fields = dataclasses.asdict(self)
        del fields["final"]
        return fields


class Ledger:
    """The shared folder of outcomes, plus the list of finished repositories, in order."""

    def __init__(self, folder: str, total: int) -> None:
        self.folder, self.total = folder, total

    def _path(self, repo: str) -> Path:
        return Path(self.folder) / (hashlib.sha1(repo.encode()).hexdigest() + ".json")

    @property
    def finished_path(self) -> Path:
        return Path(self.folder) / "progress"

    def write(self, outcome: Outcome) -> None:
        path = self._path(outcome.repo)
        scratch = path.with_suffix(f".{os.getpid()}.tmp")
        scratch.write_text(json.dumps(dataclasses.asdict(outcome)), encoding="utf-8")
        os.replace(scratch, path)  # readers never see half a record

    def read(self, repo: str) -> Outcome | None:
        path = self._path(repo)
        if not path.is_file():
            return None
        return Outcome(**json.loads(path.read_text(encoding="utf-8")))

    def finish(self, outcome: Outcome) -> None:
        """Record the final outcome, then add the repository to the finished list."""
        outcome.final = True
        self.write(outcome)
        with open(self.finished_path, "a", encoding="utf-8") as finished:
            fcntl.flock(finished, fcntl.LOCK_EX)  # workers finish concurrently
            finished.write(outcome.repo + "\n")


class Progress(threading.Thread):
    """Print "[i/N] repo: result ..." as repositories finish, from the parent process.

    Workers only append to the ledger's finished list; this thread reads it, so
    the lines reach the operator's terminal even while the workers' own output
    goes to the log file, whatever way multiprocessing starts them.
    """

    def __init__(self, ledger: Ledger, stream: TextIO) -> None:
        super().__init__(daemon=True)
        self.ledger, self.stream = ledger, stream
        self.shown = 0
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(0.2):
            self.show_new()
        self.show_new()

    def show_new(self) -> None:
        try:
            text = self.ledger.finished_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        names = text.split("\n")[:-1]  # a line still being written has no newline yet
        for repo in names[self.shown :]:
            self.shown += 1
            outcome = self.ledger.read(repo) or Outcome(repo, "?")
            print(f"[{self.shown}/{self.ledger.total}] {describe(outcome)}", file=self.stream)
        self.stream.flush()

    def stop(self) -> None:
        self.stopping.set()
        self.join()
        if self.stream is not sys.stderr:
            self.stream.close()


def describe(outcome: Outcome) -> str:
    line = (
        f"{outcome.repo}: {outcome.result} ({outcome.action} {outcome.before} -> {outcome.after})"
    )
    if outcome.conflicts:
        line += " conflicts: " + ", ".join(outcome.conflicts)
    if outcome.note():
        line += f" - {outcome.note()}"
    return line


def quiet_progress() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns, two spaces apart, a dashed rule under the header."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(str(cell).ljust(width) for cell, width in zip(cells, widths)).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])


def summary(outcomes: Sequence[Outcome]) -> str:
    rows = [
        (
            o.repo,
            o.action,
            f"{o.before} -> {o.after}",
            f"{o.result} (unchecked)" if o.checks == "unchecked" else o.result,
            ", ".join(o.conflicts) or "-",
            o.note() or "-",
        )
        for o in outcomes
    ]
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.result] = counts.get(outcome.result, 0) + 1
    tally = ", ".join(f"{count} {result}" for result, count in sorted(counts.items()))
    unchecked = sum(o.checks == "unchecked" for o in outcomes)
    if unchecked:  # pushed, but the host checks the operator asked for did not run
        tally += f" ({unchecked} unchecked: their host checks did not run, see the note)"
    advised = sum(bool(o.advice) for o in outcomes)
    if advised:
        tally += f"; {advised} with a to-do for you in the note"
    headers = ("repo", "action", "from -> to", "result", "files in conflict", "note")
    counted = f"{len(outcomes)} {'repository' if len(outcomes) == 1 else 'repositories'}"
    return table(headers, rows) + f"\n{counted}: {tally or 'none'}"


def write_jsonl(path: str, outcomes: Sequence[Outcome]) -> None:
    with open(path, "w", encoding="utf-8") as report:
        for outcome in outcomes:
            report.write(json.dumps(outcome.as_json()) + "\n")


def exit_code(outcomes: Sequence[Outcome]) -> int:
    return 1 if any(o.result in BAD_RESULTS for o in outcomes) else 0


# `status --report FILE`: the same rows as a file, its format chosen by the suffix.
REPORT_FORMATS = (".md", ".json", ".csv")
REVIEW_KINDS = (
    *("evidence-gone", "uncited", "expired", "unconfirmed", "duplicate", "contradiction"),
    *("path-gone", "pointer-gone", "stale-desk", "near-cap", "load"),
)
DRAWERS = ("working", "semantic", "episodic", "procedural")


def status_columns(row: dict) -> dict[str, object]:
    """One repository's status as flat columns: verify, then entries and findings by name."""
    flat: dict[str, object] = {
        key: row.get(key)
        for key in ("repo", "installed", "version", "newest", "verify_exit", "errors", "warnings")
    }
    flat["ok"] = row.get("ok")
    entries, findings = row.get("entries"), row.get("findings")
    for drawer in DRAWERS:
        flat[f"entries_{drawer}"] = None if entries is None else entries.get(drawer, 0)
    kinds = list(REVIEW_KINDS) + [k for k in findings or {} if k not in REVIEW_KINDS]
    for kind in kinds:
        flat[f"findings_{kind}"] = None if findings is None else findings.get(kind, 0)
    flat["findings"] = None if findings is None else sum(findings.values())
    flat["load_bytes"] = row.get("load_bytes")
    flat["problem"] = row.get("problem", "")
    flat["host_checks"] = row.get("host_checks", "")
    return flat


def write_status_report(path: str, rows: Sequence[dict]) -> None:
    """Write `rows` (status as_json objects, in order) as Markdown, JSON or CSV."""
    suffix = os.path.splitext(path)[1].lower()
    flat = [status_columns(row) for row in rows]
    headers = list(status_columns({}))
    for line in flat:  # a newer install may report a kind this fleet does not know yet
        headers += [key for key in line if key not in headers]
    with open(path, "w", encoding="utf-8", newline="") as out:
        if suffix == ".json":
            json.dump({"repos": list(rows)}, out, indent=2)
            out.write("\n")
        elif suffix == ".csv":
            writer = csv.DictWriter(out, fieldnames=headers, restval="")
            writer.writeheader()
            for line in flat:
                writer.writerow({k: "" if v is None else v for k, v in line.items()})
        else:

            def cell(value: object) -> str:
                text = "-" if value is None else str(value)
                return text.replace("|", "\\|").replace("\n", " ")

            out.write("| " + " | ".join(headers) + " |\n")
            out.write("|" + "---|" * len(headers) + "\n")
            for line in flat:
                out.write("| " + " | ".join(cell(line.get(h)) for h in headers) + " |\n")
