#!/usr/bin/env python3
"""eco-mem: the commands for this repository's agent memory. Stdlib only, Python 3.9+.

`eco_mem.py --help` lists every command (their table is ecomem/commands/__init__.py);
`eco_mem.py COMMAND --help` gives one command's options. Exit codes: 0 ok, 1 findings,
conflicts, or refused by a rule (nothing written), 2 usage or I/O error.
"""

import os
import sys

# The package sits beside this file. Cache its bytecode outside the host repo
# (no __pycache__ folders in the skill), yet keep the cache: compiling on every
# run would cost more than verify itself.
if sys.pycache_prefix is None:
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    sys.pycache_prefix = os.path.join(cache_home, "eco-mem", "pycache")
    # PYTHONDONTWRITEBYTECODE exists to keep __pycache__ out of source trees;
    # the prefix above already does that, so caching stays on.
    sys.dont_write_bytecode = False

from ecomem.cli import main

if __name__ == "__main__":
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # `eco_mem.py find … | head`: the reader left early. Say nothing more (not
        # even at exit, hence the dup2) and report an I/O error, not a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 2
    sys.exit(code)
