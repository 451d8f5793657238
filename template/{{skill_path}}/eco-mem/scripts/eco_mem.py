#!/usr/bin/env python3
"""eco-mem maintenance commands. Stdlib only, Python 3.9+.

  verify    check the memory store: catalogs vs files, caps, fields, write gate
  blocks    write or refresh the eco-mem blocks in AGENTS.md and CLAUDE.md
  track     keep git from ignoring the skill and the memory (a block in .gitignore)
  upgrade   run `copier update` for eco-mem and refuse to report success over conflicts
  catalog-migrate   (run by copier migrations) carry catalog rows across a header change
  experiment  plant and score the recall, laundering and injection experiments
  restore-indexes   (run by copier migrations) put back drawer INDEX files a team deleted

Memory commands (the primary way to read and change memory; see SKILL.md):
  find      search catalog rows, never entry files
  new       add an entry and its row: semantic | episodic | procedural | working
  revise    change a fact or a procedure in its own file and row
  confirm   mark a fact user-confirmed (--by-user)
  forget    remove an entry and its row (--reason obsolete | secret | injection)
  end-task  print a desk, promote what lasts, clear the desk

Exit codes: 0 ok, 1 findings (verify), conflicts (upgrade) or refused by a rule (memory
commands, nothing written), 2 usage or I/O error.
Run `eco_mem.py COMMAND --help` for each command's options.
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

if __name__ == "__main__" and sys.argv[1:2] == ["merge-catalog"]:
    # git's merge driver, a new process per conflicted catalog inside a merge:
    # skip the command line parser and all it imports (see commands/merge_catalog.py).
    from ecomem.commands import merge_catalog

    if merge_catalog.is_driver_call(sys.argv[1:]):
        sys.exit(merge_catalog.drive(sys.argv[2:]))

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
