"""The commands of eco_mem.py, one module each: its arguments and how it runs."""
