"""Roll eco-mem out to many repositories with all-repos, and report what happened.

Three all-repos programs, each taking `-C/--config-filename` and `--template`:

  python -m eco_mem_fleet.install   copy the template into repos that lack it
  python -m eco_mem_fleet.upgrade   run `ops.py upgrade` where a repo is behind
  python -m eco_mem_fleet.status    installed?, which version, verify result, per cloned repo

Each runs only its own checkout of `--template` (own_scripts.py), never a repository's scripts.
"""

import os

# A relative PATH entry (an empty one, as in a PATH ending in `:`, or `.`) names the folder
# a program runs in, and all-repos runs each fix in a repository's clone: a `git` a commit
# put there would be what runs, token and all. Kept: the absolute entries, for this process
# and every program it starts (tests/test_operator_host_modules.py).
os.environ["PATH"] = os.pathsep.join(
    filter(os.path.isabs, os.environ.get("PATH", os.defpath).split(os.pathsep))
)
