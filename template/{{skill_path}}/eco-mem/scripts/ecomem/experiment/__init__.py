"""The agent experiment kit: plant a memory in a clone, then score what the agent did."""

import os

# The answer key's name in an experiment clone's .git/ (key.py reads and writes it).
# Here, in the package face, because verify asks on every run whether it is in such a
# clone, and that question should not cost a module.
KEY_NAME = "eco-mem-experiment.json"


def is_experiment_clone(root) -> bool:
    return os.path.isfile(os.path.join(root, ".git", KEY_NAME))
