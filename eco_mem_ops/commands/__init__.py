"""The operator's commands, one module each, with the runtime's command conventions
(HELP, DESCRIPTION, EPILOG, add_arguments, run(root, args); ROOTED = False when the
module adds --root itself). `track` is the runtime's own module, run from this
release's runtime: Copier's tasks call it here so that they never run the host's copy.
"""

from __future__ import annotations

TABLE = {
    # Finishing a copy or an update in the host (copier.yml's tasks and migrations).
    "blocks": "eco_mem_ops.commands.blocks",
    "track": "ecomem.commands.track",
    "restore-indexes": "eco_mem_ops.commands.restore_indexes",
    "catalog-migrate": "eco_mem_ops.commands.catalog_migrate",
    # Taking an install forward or out.
    "upgrade": "eco_mem_ops.commands.upgrade",
    "uninstall": "eco_mem_ops.commands.uninstall",
    # Measuring it against an agent (docs/experiments.md).
    "experiment": "eco_mem_ops.commands.experiment",
    # Building the release's runtime file from this checkout (no host involved).
    "build-runtime": "eco_mem_ops.commands.build_runtime",
}
# The commands that act on this checkout alone: no host answers to load first.
HOSTLESS = frozenset({"build-runtime"})


def load(name: str):
    """The module of command `name`, imported only now (with __import__, as the runtime's
    table does: `python -X importtime` then lists it)."""
    return __import__(TABLE[name], fromlist=["run"])
