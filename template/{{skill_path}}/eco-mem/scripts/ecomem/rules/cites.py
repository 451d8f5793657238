"""Citations: the evidence a fact or a checklist names must still be where it says.

A citation is checked against the work tree as it is now; no git call. Rule ids:

  cite.malformed   the cites line cannot be read (error)
  cite.path        the path can never be evidence: absolute, climbing out, in .git or
                   in the memory folder (error)
  cite.gone        the evidence is gone: the file is missing, is not a regular file,
                   leads out of the repository through a symlink (never followed), or
                   no longer contains the cited text (warning)
  cite.unreadable  the text cannot be looked for: a binary file, or a file over 1 MiB
                   whose first MiB lacks it (warning)

verify reports the warnings without failing; `verify --strict` fails on them. The write
gate refuses all four, so a command never writes a citation that does not hold now.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .. import protocol
from ..findings import ERROR, WARNING, Finding
from ..paths import inside, not_a_repo_file
from ..store.cites import Cite, read_cites
from ..store.load import Entry, Store

MAX_BYTES = 1024 * 1024  # read at most this much of a cited file
SHOWN = 60  # characters of cited text quoted back in a message
CITING_DRAWERS = ("semantic", "procedural")


class Evidence:
    """What one run has learned about cited files, so a file cited twice is read once."""

    def __init__(self, root: Path, memory_dir: str = protocol.MEMORY_DIR) -> None:
        self.root = root
        self.real_root = root.resolve()
        self.memory_dir = memory_dir
        self.files: dict[str, tuple] = {}  # relpath -> (rule, why) or (None, data or None)

    def problem(self, cite: Cite) -> tuple[str, str, str] | None:
        """(rule, severity, why) when the citation does not hold, else None."""
        why = not_a_repo_file(cite.path, self.memory_dir)
        if why:
            return "cite.path", ERROR, why
        if cite.path not in self.files:
            self.files[cite.path] = self._look(cite.path, cite.text is not None)
        rule, data = self.files[cite.path]
        if rule is not None:
            return rule, WARNING, data
        if cite.text is None:
            return None
        if data is None:  # first looked at for a bare citation: read it now
            self.files[cite.path] = self._look(cite.path, True)
            rule, data = self.files[cite.path]
            if rule is not None:
                return rule, WARNING, data
        if cite.text.encode("utf-8") in data:
            return None
        if len(data) > MAX_BYTES:
            why = f"larger than {MAX_BYTES // 1024} KiB and its first MiB lacks the text"
            return "cite.unreadable", WARNING, why
        return "cite.gone", WARNING, "the file does not contain the cited text now"

    def _look(self, relpath: str, read: bool) -> tuple:
        path = self.root / relpath
        if not inside(path, self.root):
            return "cite.gone", "leads out of the repository through a symlink; not followed"
        real = Path(os.path.realpath(path))
        target = real.relative_to(self.real_root).as_posix() if real != self.real_root else "."
        if not_a_repo_file(target, self.memory_dir):
            return "cite.gone", f"is a symlink to {target}, which cannot be evidence"
        try:
            mode = os.stat(path).st_mode
        except OSError:
            return "cite.gone", "the file does not exist"
        if not stat.S_ISREG(mode):
            return "cite.gone", "not a regular file"
        if not read:
            return None, None
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_BYTES + 1)
        except OSError as error:
            return "cite.unreadable", f"cannot read it: {error.strerror}"
        if b"\0" in data:
            return "cite.unreadable", "binary file; cite a text file"
        if b"\r" in data:  # CRLF and CR files match the LF text a line can hold
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        return None, data


def shown(cite: Cite) -> str:
    if cite.text is None:
        return cite.path
    text = cite.text if len(cite.text) <= SHOWN else cite.text[: SHOWN - 3] + "..."
    return f'{cite.path} "{text}"'


def check_entry(entry: Entry, evidence: Evidence, writing: bool = False) -> list[Finding]:
    if entry.lines is None:
        return []
    cites, problems = read_cites(entry.lines)
    findings = [
        Finding(entry.relpath, line, "cite.malformed", ERROR, why) for line, why in problems
    ]
    slug = entry.name[:-3]
    for cite in cites:
        found = evidence.problem(cite)
        if found is None:
            continue
        rule, severity, why = found
        if rule == "cite.path":
            fix = "cite a file of the repository's own"
        elif writing:
            fix = "cite a file, and text it holds, as they are now"
        else:
            fix = (
                f"re-check the {'fact' if entry.drawer == 'semantic' else 'checklist'} against"
                f" the code, then `revise {slug} --cite ...` or `forget {slug}`"
            )
        message = f"cites {shown(cite)}: {why}; {fix}"
        findings.append(Finding(entry.relpath, cite.line, rule, severity, message))
    return findings


def check_cites(store: Store, only: set[str] | None = None) -> list[Finding]:
    """Findings for every citing entry, or (the write gate) only those in `only`."""
    evidence = Evidence(store.root, store.relpath)
    findings: list[Finding] = []
    for name in CITING_DRAWERS:
        drawer = store.drawers.get(name)
        for entry in drawer.entries.values() if drawer else ():
            if only is None or entry.relpath in only:
                findings += check_entry(entry, evidence, writing=only is not None)
    return findings
