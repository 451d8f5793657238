"""The memory on disk: loading a store, parsing and writing catalog rows, entry shapes."""

# Each drawer's catalog file; named here so a reader of one drawer need not load the store.
INDEX = "INDEX.md"
