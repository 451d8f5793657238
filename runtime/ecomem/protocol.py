"""The protocol's numbers and names, and this repository's answers.

The numbers are the same in every repository on a release. The template renders
SKILL.md and the INDEX files from this very module (extensions/protocol.py loads it
by its path), so a cap is written here once and nowhere else.

The answers (where the skill and the memory live, whether desks travel, ...) differ
per repository. They are not written into these scripts: store.answers.settle(root)
reads them from the repository's answers file when a command starts and sets them here. So every repository on a
release holds these scripts byte for byte as the release has them, and an upgrade
that changes no script changes none in the host.

Stdlib only, and no import of the package at load time: the template loads this file
on its own.
"""

# Copier's answers file for eco-mem (copier.yml's `_answers_file`).
ANSWERS_FILE = ".copier-answers.eco-mem.yml"

DRAWERS = ("working", "semantic", "episodic", "procedural")
CAPS = {
    "desks": 3,  # active working desks at one time
    "desk_lines": 80,
    "semantic_lines": 30,
    "episodic_lines": 40,
    "procedural_lines": 40,  # a staging checklist's body
    "catalog_rows": 40,  # past this, archive dead rows before adding one
    "entries_per_task": 5,  # entry files opened per task, the desk not counted
    # Bytes the rows marked [always] print with their entries' prose (rules/always_budget.py):
    # the store's 40-row cap with 15 rules for every change and 8 for folders fits.
    "always_bytes": 8192,
}
SEMANTIC_FIELDS = ("as_of", "source", "scope", "expires")
SEMANTIC_SOURCES = ("user-confirmed", "verified", "derived")
EPISODIC_SECTIONS = ("context", "action", "result", "lesson")
# The last column of every catalog names the entry file inside the drawer.
CATALOG_COLUMNS = {
    "working": ("desk", "goal", "file"),
    "semantic": ("slug", "one-liner", "as_of", "source", "file"),
    "episodic": ("date", "event", "lesson", "file"),
    "procedural": ("name", "use when", "points to", "file"),
}
# `review`'s thresholds and their defaults: days before a derived fact counts as
# unconfirmed, days before a desk is stale, the percent of a catalog's cap that is
# near it, and the always-loaded surface's budget in bytes.
REVIEW_DEFAULTS = {"unconfirmed_days": 90, "desk_days": 14, "near_cap": 90, "load_budget": 20000}

# This repository's answers, filled by store.answers.settle before a command runs.
SKILL_DIR = ""  # <skill_path>/eco-mem
ROOT_MEMORY_DIR = ""  # the root's store
# The store a command acts on: store/stores.py points it at a package store
# (`eco_mem.pyz init PATH`) when one is chosen.
MEMORY_DIR = ""
CLAUDE_CODE = False
DESKS_TRAVEL = False
VERIFY_COMMAND = ""
# The team's own review thresholds ("unconfirmed_days=60,desk_days=7"), "" for the defaults.
REVIEW_THRESHOLDS = ""
SETTLED: dict = {}  # the answers these came from, as answers_file.settings gave them
