"""Changing memory safely: the write gate, the lock and the all-or-nothing transaction."""
