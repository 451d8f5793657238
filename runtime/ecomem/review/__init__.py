"""`review`: the store read as a whole, for rot no single write can show.

`text` turns an entry into what the heuristics compare (statements, subject words,
values, path-shaped names), `checks` holds one function per finding kind, and
`report` prints the result as text, Markdown or JSON. Nothing here writes.
"""
