"""Roll eco-mem out to many repositories with all-repos, and report what happened.

Three all-repos programs, each taking `-C/--config-filename` and `--template`:

  python -m eco_mem_fleet.install   copy the template into repos that lack it
  python -m eco_mem_fleet.upgrade   run `ops.py upgrade` where a repo is behind
  python -m eco_mem_fleet.status    installed?, which version, verify result, per cloned repo

Each runs only its own checkout of `--template` (own_scripts.py), never a repository's scripts.
"""
