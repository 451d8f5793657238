"""`review --suggest-cites`: for a verified fact that cites nothing, the one tracked file
and line its key words point at, as a `revise --cite` command. It writes nothing.

Key words are the tools a fact's title or one-liner names ("Ruff is the only linter":
ruff). A file is a candidate when one of its lines holds every key word; the fact gets
a suggestion only when one file is (or, of several, one project manifest is): a guess
spread over five files helps nobody. Reads are bounded: tracked files only (`git
ls-files`), at most MAX_FILES of them, each at most MAX_BYTES, never through a link
and never out of the repository; memory and the skill's own files are not evidence.
"""

from __future__ import annotations

import os
import re
import stat

from .. import protocol, safe_open
from ..errors import UsageError
from ..text.cites import format_value

MAX_FILES = 5000
MAX_BYTES = 256 * 1024
MAX_LINE = 120
MANIFESTS = frozenset(
    """
    pyproject.toml setup.cfg setup.py tox.ini noxfile.py package.json tsconfig.json
    Cargo.toml go.mod Gemfile pom.xml build.gradle Makefile Dockerfile
    .pre-commit-config.yaml .eslintrc.json .prettierrc renovate.json
    """.split()  # noqa: SIM905 - a word list reads best as words
)


def tracked(root: str) -> list[str]:
    from ..git import run_git

    try:
        code, output = run_git(root, "ls-files", "-z", "--cached", "--")
    except OSError:
        return []
    if code != 0:
        return []
    own = (protocol.MEMORY_DIR.rstrip("/") + "/", protocol.SKILL_DIR.rstrip("/") + "/")
    files = [path for path in output.decode("utf-8", "replace").split("\0") if path]
    return [path for path in files if not path.startswith(own)][:MAX_FILES]


def read_bounded(root: str, relpath: str) -> list[str] | None:
    """The file's lines, or None when it is a link, not regular, too big or not text."""
    try:
        real = safe_open.target(root, os.path.join(root, relpath))
        fd = os.open(real, os.O_RDONLY | safe_open.NOFOLLOW | safe_open.NONBLOCK)
    except (OSError, UsageError):
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return None
        data = os.read(fd, MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if b"\0" in data:
        return None
    return data.decode("utf-8", "replace").splitlines()


class Suggester:
    """Reads each tracked file once, on the first fact that needs it."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._files: list[str] | None = None
        self._lines: dict[str, list[str] | None] = {}

    def files(self) -> list[str]:
        if self._files is None:
            self._files = tracked(self.root)
        return self._files

    def lines(self, relpath: str) -> list[str] | None:
        if relpath not in self._lines:
            self._lines[relpath] = read_bounded(self.root, relpath)
        return self._lines[relpath]

    def cite(self, keys: list[str]) -> str | None:
        """`PATH "LINE"` for the one file whose line holds every key word, else None."""
        if not keys:
            return None
        patterns = [re.compile(rf"(?<![\w-]){re.escape(key)}(?![\w-])", re.I) for key in keys]
        found: dict[str, str] = {}
        for relpath in self.files():
            best = None
            for line in self.lines(relpath) or ():
                text = line.strip()
                fits = 3 <= len(text) <= MAX_LINE and (best is None or len(text) < len(best))
                if fits and all(p.search(text) for p in patterns):
                    best = text
            if best is not None:
                found[relpath] = best
        if len(found) > 1:
            found = {
                path: line for path, line in found.items() if path.rsplit("/", 1)[-1] in MANIFESTS
            }
        if len(found) != 1:
            return None
        ((relpath, line),) = found.items()
        return format_value(relpath, line)


def key_words(fact) -> list[str]:
    """The words of a fact's title and one-liner that name its tools, as written."""
    from .text import WORD, concept

    names = frozenset().union(*(statement.names for statement in fact.heads))
    keys: dict[str, None] = {}
    for text in fact.head_texts:
        for word in WORD.findall(text):
            lowered = word.lower()
            if concept(lowered) in names or lowered in names:
                keys.setdefault(lowered)
    return list(keys)
