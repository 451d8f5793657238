"""eco-mem's operator commands: what only whoever installs, upgrades, uninstalls or
experiments runs. They live in the template repository, never in a host, and run from
a checkout of the release being applied (`python3 -I <checkout>/ops.py COMMAND --root
HOST`), importing that checkout's runtime (runtime.py), never the host's copy.
Stdlib only, Python 3.9+ (`upgrade` imports Copier only where it runs it).
"""
