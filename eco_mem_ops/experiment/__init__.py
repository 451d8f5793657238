"""The agent experiment kit: plant a memory in a clone, then score what the agent did.

The agent runs the clone's own find and verify; what they record for the kit (access-time
snapshots, beside the answer key in `.git/`) is the runtime's ecomem/experiment_clone.py.
"""

from ecomem.experiment_clone import KEY_NAME, is_experiment_clone

__all__ = ["KEY_NAME", "is_experiment_clone"]
