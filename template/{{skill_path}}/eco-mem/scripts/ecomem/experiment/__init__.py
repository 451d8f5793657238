"""The agent experiment kit: plant a memory in a clone, then score what the agent did."""
