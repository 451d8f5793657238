"""The memory on disk: loading a store, parsing and writing catalog rows, entry shapes."""
