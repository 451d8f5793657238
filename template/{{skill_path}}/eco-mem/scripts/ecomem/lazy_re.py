"""Regular expressions compiled on first use, so a rule that never runs costs nothing.

Compiling is most of what a rule costs at start-up, and most rules never get past their
literal prefilter on a clean store. `COMPILED` lists every pattern compiled so far, in
order, which is how tests prove that a clean store compiles (almost) nothing.
"""

from __future__ import annotations

import re

COMPILED: list[str] = []


class LazyPattern:
    """Stands in for `re.compile(source, flags)`; compiles on the first method call."""

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.source, self.flags)
            COMPILED.append(self.source)
        return self._compiled

    def __getattr__(self, name: str):
        # Reached once per method (search, finditer...): keep it, so later calls are a
        # plain attribute lookup.
        value = getattr(self.compiled, name)
        setattr(self, name, value)
        return value


def lazy(source: str, flags: int = 0) -> LazyPattern:
    return LazyPattern(source, flags)
