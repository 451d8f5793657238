"""Text as its reader sees it: one spelling for lookalike characters, the markup a
Markdown renderer hides, a file's lines within their bounds, a table row's cells, the
cites line, and whether a line gives the agent orders (the injection rule).

Below the store: the store's readers ask whether a file name reads as an order before
they show it, so nothing here imports the store, the rules or anything above them.
"""
