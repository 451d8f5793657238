"""What git needs in the host to keep memory: ignore re-includes, the catalog merge driver,
its attributes, and the marked blocks they write. Runs in the host (verify, track, writes).
"""
