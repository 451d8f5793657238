"""Which `ecomem` the operator imports: the runtime of this checkout, never a host's.

The operator acts on a host that holds its own copy of the runtime, and a commit can
change that copy; importing it would run whatever a branch put there. So the runtime
folder of the checkout this package sits in goes first on sys.path, and `import
ecomem` finds the release's bytes.
"""

from __future__ import annotations

import os
import sys

CHECKOUT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The runtime's source; hosts get it built into one file (runtime_build.py).
RUNTIME = os.path.join(CHECKOUT, "runtime")


def use_release_runtime() -> None:
    """Put this checkout's runtime first on sys.path, once; refuse a second `ecomem`."""
    loaded = sys.modules.get("ecomem")
    if loaded is not None:
        where = os.path.dirname(os.path.dirname(os.path.abspath(loaded.__file__)))
        if os.path.normcase(where) != os.path.normcase(RUNTIME):
            raise ImportError(f"ecomem was already imported from {where}, not this release")
        return
    if RUNTIME not in sys.path:
        sys.path.insert(0, RUNTIME)
