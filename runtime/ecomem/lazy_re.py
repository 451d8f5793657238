"""Regular expressions compiled on first use, so a rule that never runs costs nothing.

Compiling is most of what a rule costs at start-up, and most rules never get past their
literal prefilter on a clean store. `COMPILED` lists every pattern compiled so far, in
order, which is how tests prove that a clean store compiles (almost) nothing.
"""

from __future__ import annotations

COMPILED: list[str] = []
# re.MULTILINE's value, so a rule module can pass the flag without importing re itself:
# a reader that never compiles a pattern (the session digest on a clean desk) never
# loads re, which costs more than the rest of that reader together.
MULTILINE = 8


class LazyPattern:
    """Stands in for `re.compile(source, flags)`; compiles on the first method call."""

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self._compiled = None

    @property
    def compiled(self):
        """The compiled pattern (an re.Pattern), compiled now if this is the first use."""
        if self._compiled is None:
            import re

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
