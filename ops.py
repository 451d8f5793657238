#!/usr/bin/env python3
"""eco-mem's operator commands, run from a checkout of a release (never from a host):

    python3 -I <eco-mem checkout>/ops.py COMMAND --root HOST

`ops.py --help` lists the commands (eco_mem_ops/cli.py). Stdlib only, Python 3.9+.
Named ops.py, not operator.py: Python puts this folder first on sys.path when it runs
a script without -I, and a file named operator.py would shadow the standard library.
"""

import os
import sys

# Bytecode is written beside this checkout's modules, as Python does: Copier renders only
# its template/ folder (copier.yml's _subdirectory), so no host gets it. Compiling them
# afresh cost every run 0.04 to 0.09 s of CPU, as much as most commands themselves.

# A relative PATH entry (an empty one, as in a PATH ending in `:`, or `.`) names the folder
# a program runs in, and ops.py runs in the host (`--root .`, Copier's tasks, the fleet's
# clone): a `git` or `copier` a commit put there would be what runs. Keep the absolute
# entries, for this process and every program it starts.
os.environ["PATH"] = os.pathsep.join(
    filter(os.path.isabs, os.environ.get("PATH", os.defpath).split(os.pathsep))
)

HERE = os.path.dirname(os.path.abspath(__file__))
# Under -I the script's folder is not on sys.path; put it there for eco_mem_ops. The
# release's runtime (`ecomem`) goes first by eco_mem_ops.runtime.
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from eco_mem_ops.cli import main  # noqa: E402 - after sys.path holds this checkout

if __name__ == "__main__":
    sys.exit(main())
