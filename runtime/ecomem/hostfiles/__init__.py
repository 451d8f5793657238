"""The parts of host files that runtime commands write: eco-mem's blocks in AGENTS.md and
CLAUDE.md, and a package store's files (`init`). The operator's `blocks` (eco_mem_ops)
calls the same code from the release's runtime."""
