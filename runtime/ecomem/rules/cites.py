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
import posixpath
import stat
from pathlib import Path

from .. import protocol
from ..findings import ERROR, WARNING, Finding
from ..paths import resolved_inside, text_problem
from ..store.load import Entry, Store
from ..text.cites import Cite, format_value, read_cites

MAX_BYTES = 1024 * 1024  # read at most this much of a cited file
SHOWN = 60  # characters of cited text quoted back in a message
CITING_DRAWERS = ("semantic", "procedural")


class Evidence:
    """What one run has learned about cited files, so a file cited twice is read once."""

    def __init__(self, root: Path, memory_dir: str | None = None) -> None:
        self.root = os.fspath(root)
        self.real_root = os.path.realpath(self.root)
        self.memory_dir = memory_dir or protocol.MEMORY_DIR  # default: the store in use
        self.files: dict[str, tuple] = {}  # relpath -> (rule, why) or (None, data or None)
        self.modes: dict[str, int | None] = {}  # lstat of folders on the way, shared

    def problem(self, cite: Cite) -> tuple[str, str, str] | None:
        """(rule, severity, why) when the citation does not hold, else None."""
        why = text_problem(cite.path, self.memory_dir)
        if why:
            return "cite.path", ERROR, why
        path = posixpath.normpath(cite.path)
        if path not in self.files or (cite.text is not None and self.files[path][1] is None):
            self.files[path] = self._look(path, cite.text is not None)
        rule, data = self.files[path]
        if rule is not None:
            return rule, WARNING, data
        if cite.text is None or cite.text.encode("utf-8") in data:
            return None
        if len(data) > MAX_BYTES:
            why = f"larger than {MAX_BYTES // 1024} KiB and its first MiB lacks the text"
            return "cite.unreadable", WARNING, why
        return "cite.gone", WARNING, "the file does not contain the cited text now"

    def _mode(self, path: str) -> int | None:
        if path not in self.modes:
            try:
                self.modes[path] = os.lstat(path).st_mode
            except OSError:
                self.modes[path] = None
        return self.modes[path]

    def _look(self, relpath: str, read: bool) -> tuple:
        # Walk down from the root with lstat: a symlink on the way is resolved and judged,
        # never opened; without one (the usual case) the path is what it says.
        path, mode = self.root, None
        for part in relpath.split("/"):
            path = os.path.join(path, part)
            mode = self._mode(path)
            if mode is None:
                return "cite.gone", "the file does not exist"
            if stat.S_ISLNK(mode):
                return self._linked(relpath, read)
        return self._file(path, mode, read)

    def _linked(self, relpath: str, read: bool) -> tuple:
        real = os.path.realpath(os.path.join(self.root, relpath))
        if not resolved_inside(real, self.real_root):
            return "cite.gone", "leads out of the repository through a symlink; not followed"
        target = os.path.relpath(real, self.real_root).replace(os.sep, "/")
        why = text_problem(target, self.memory_dir)
        if why:
            return "cite.gone", f"is a symlink to {target}, which {why}"
        try:
            mode = os.stat(real).st_mode
        except OSError:
            return "cite.gone", "the file does not exist"
        return self._file(real, mode, read)

    def _file(self, path: str, mode: int, read: bool) -> tuple:
        if not stat.S_ISREG(mode):
            return "cite.gone", "not a regular file"
        if not read:
            return None, None
        try:
            with open(path, "rb") as handle:
                # The size first: read(MAX_BYTES + 1) would allocate 1 MiB for a small file.
                size = os.fstat(handle.fileno()).st_size
                data = handle.read(MAX_BYTES + 1) if size > MAX_BYTES else handle.read()
        except OSError as error:
            return "cite.unreadable", f"cannot read it: {error.strerror}"
        if b"\0" in data:
            return "cite.unreadable", "binary file; cite a text file"
        if b"\r" in data:  # CRLF and CR files match the LF text a line can hold
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        return None, data


def shown(cite: Cite) -> str:
    """The citation as its cites line writes it, long text cut short; only its path when
    the line gives the agent orders (the injection rule reports that line itself)."""
    from ..text.injection import scan

    if scan("", [cite.path, cite.text or ""]):
        return "text the injection rule flags (see its finding on this line)"
    if cite.text is None or len(cite.text) <= SHOWN:
        return cite.value()
    return format_value(cite.path, cite.text[: SHOWN - 3] + "...")


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
