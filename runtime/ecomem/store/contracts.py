"""The drawer INDEX contracts and the memory folder's small files, written once.

The template renders every store's INDEX.md and these files from this module
(extensions/protocol.py loads it by its path), `init` writes a package store from
it, and verify compares what a store holds with it. The text is the same in every
repository; only the link to SKILL.md, a path relative to the drawer, depends on
where the skill and the store are, and `contract` writes it when asked.

No import of the package at load time: the template loads this file on its own.
"""

from __future__ import annotations

INTRO = {
    "working": """\
# Working memory: what is happening now

The desk for tasks in progress: goal, constraints, progress, next step, and
the paths and tool results still open.

- **In**: one desk per active task, at most {desks}, each at most {desk_lines} lines.
- **Never**: chat logs, secrets, anything meant to outlive the task.
- **Ages**: cleared at task end, after lasting parts are relayed to the other
  drawers. Desks are gitignored, or travel with their task branch
  (`new working --travel`); never on the default branch.
- **Listed**: by their files. The open desks are the `*.md` files beside this
  one (`find` lists them first), so the table below stays empty and opening
  or ending a desk changes no tracked file.
""",
    "semantic": """\
# Semantic memory: what is true

Confirmed facts about this repository, its people and its tools, one fact per file.

- **In**: a fact with {fields}, at most {semantic_lines} lines.
  `source` is one of {sources}; a `derived` fact is never a hard constraint.
- **Never**: guesses recorded as confirmed, secrets, transcripts, stories
  (episodic), step-by-step methods (procedural).
- **Ages**: revised in place with a new `as_of`; stale once `expires` passes.
- **Always**: a row whose one-liner starts with `[always]` is a rule every change
  follows (`[always: src/api/**]`: every change there); `find` prints it at every load.
""",
    "episodic": """\
# Episodic memory: what happened before

Events worth learning from, one per file: {sections}.

- **In**: a failure or success someone could repeat or avoid, with its lesson,
  at most {episodic_lines} lines.
- **Never**: events without a lesson, chat transcripts, secrets.
- **Ages**: append-only. A new event is a new file; typo fixes are fine,
  rewriting what happened is not.
""",
    "procedural": """\
# Procedural memory: how the work is done here

Pointers to the skills, workflows and tests that already encode a method.

- **In**: a row pointing at an existing file (its `file` is `-`), or a short
  checklist of at most {procedural_lines} lines, proven more than once,
  staged here until it becomes a real skill.
- **Never**: copies of skill bodies, one-off tricks, secrets.
- **Ages**: a staged checklist leaves once it graduates; the row then points
  at its new home.
- **Always**: a row whose use when starts with `[always]` is a rule every change
  follows (`[always: src/api/**]`: every change there); `find` prints it at every load.
""",
}
LINK = "\nRules for reading and writing: [eco-mem skill]({link}/SKILL.md).\n\n## Catalog\n\n"

WORKING_IGNORE = """\
# Desks are scratch space for the task in progress, kept out of git: a desk that
# travels with its task branch is added past this with `git add -f`, never on the
# default branch.
*
!.gitignore
!INDEX.md
"""
SEARCH_IGNORE = """\
# ripgrep (and other tools that read .ignore files) skips the drawers in repo-wide
# searches, so entry text never reaches an agent that went around the INDEX. git does
# not read this file: the drawers stay tracked. Search memory by its catalog rows:
#   python3 {skill_dir}/scripts/eco_mem.pyz find WORDS
*
"""
# The host tools' own settings at the memory root: the commands own this folder.
TOOL_FILES = {
    ".markdownlint.yaml": """\
# eco-mem's memory commands write this folder, in the shape verify checks; catalog
# rows are one long table line each. markdownlint's rules stay off here.
default: false
""",
    ".oxfmtrc.json": '{ "ignorePatterns": ["**"] }\n',
    ".prettierrc.yaml": """\
# eco-mem's memory commands write this folder. Prettier formats only files here that
# ask for it with a @format pragma: aligning a catalog table rewrites every row on
# each new one, and parallel branches then conflict on rows they never touched.
requirePragma: true
""",
    "biome.jsonc": """\
// eco-mem's memory commands write this folder: Biome leaves it alone, so no catalog
// table is re-aligned (every row rewritten) on each new row.
{
  "root": false,
  "formatter": { "enabled": false },
  "linter": { "enabled": false },
  "assist": { "enabled": false }
}
""",
}


# The host tools' settings in the skill folder (<skill_path>/eco-mem): vendored text
# that `copier update` replaces, left alone by every formatter.
SKILL_TOOL_FILES = {
    ".markdownlint.yaml": """\
# eco-mem's skill is vendored text that `copier update` replaces; eco-mem checks it
# in its own repository. markdownlint's rules stay off here.
default: false
""",
    ".oxfmtrc.json": '{ "ignorePatterns": ["**"] }\n',
    ".prettierrc.yaml": """\
# eco-mem's skill is vendored text: `copier update` replaces it, so a formatter's
# rewrite here would turn each upgrade into a conflict. Prettier formats only files
# here that ask for it with a @format pragma.
requirePragma: true
""",
    "biome.jsonc": """\
// eco-mem's skill is vendored text that `copier update` replaces: Biome leaves it
// alone, so a host's format run never turns an upgrade into a conflict.
{
  "root": false,
  "formatter": { "enabled": false },
  "linter": { "enabled": false },
  "assist": { "enabled": false }
}
""",
}
# The same for the scripts folder (<skill_path>/eco-mem/scripts); its `.ignore` names
# the skill folder, so it is formatted with it.
SCRIPTS_TOOL_FILES = {
    ".ignore": """\
# typos, ripgrep and other tools that read .ignore files skip eco-mem's runtime file
# in repo-wide runs: it is a zip, whose text a search would show as a binary match
# and a spell checker would "fix". git does not read this file. The runtime's source
# is the template's runtime/ folder; {skill_dir}/scripts/eco_mem.pyz runs it.
*
""",
    "_typos.toml": """\
# eco-mem's runtime, eco_mem.pyz, is a zip of uncompressed Python that typos reads as
# text (it holds Unicode letter names, country codes, word stems and injection
# phrases, all typos to a spell checker): typos leaves the files here unread, also
# when a hook names them. A walk from the host root does not read this file; .ignore
# beside it covers that.
[default]
check-file = false
""",
}
# Every host tool settings file eco-mem ships, by the folder it sits in: "memory" is
# each store's root (the root's, and each package's from `init`), "skill" and "scripts"
# the skill folder and its scripts. The template renders each from this table
# (extensions/protocol.py) and verify holds each to it (store/load.py, for every store;
# rules/tool_settings.py, for the skill). A file dropped from the release is dropped here.
SHIPPED_TOOL_FILES = {
    "memory": {".ignore": SEARCH_IGNORE, **TOOL_FILES},
    "skill": SKILL_TOOL_FILES,
    "scripts": SCRIPTS_TOOL_FILES,
}


def tool_files(place: str, skill_dir: str) -> dict[str, str]:
    """{name: text} of the tool settings eco-mem ships to `place` (SHIPPED_TOOL_FILES),
    for the skill at `skill_dir`."""
    return {
        name: text.format(skill_dir=skill_dir) if name == ".ignore" else text
        for name, text in SHIPPED_TOOL_FILES[place].items()
    }


def contract_text(drawer: str, skill_dir: str, memory_dir: str, protocol) -> str:
    """Drawer `drawer`'s INDEX.md up to and with its catalog header, for the store at
    `memory_dir`, linking to the skill at `skill_dir`; `protocol` is protocol.py."""
    columns = protocol.CATALOG_COLUMNS[drawer]
    intro = INTRO[drawer].format(
        **protocol.CAPS,
        fields=_code_list(protocol.SEMANTIC_FIELDS),
        sources=_code_list(protocol.SEMANTIC_SOURCES),
        sections=", ".join(protocol.EPISODIC_SECTIONS),
    )
    header = "| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|\n"
    return intro + LINK.format(link=relative(skill_dir, f"{memory_dir}/{drawer}")) + header


def search_ignore(skill_dir: str) -> str:
    return tool_files("memory", skill_dir)[".ignore"]


def _code_list(values) -> str:
    return ", ".join(f"`{value}`" for value in values)


def relative(target: str, start: str) -> str:
    """posixpath.relpath for two repo-relative folders, without asking for the working
    folder (verify computes one per drawer of every store)."""
    to, at = target.split("/"), start.split("/")
    common = 0
    while common < min(len(to), len(at)) and to[common] == at[common]:
        common += 1
    return "/".join([".."] * (len(at) - common) + to[common:]) or "."


def contract(memory_dir: str, drawer: str) -> str:
    """The INDEX contract of `drawer` in the store at `memory_dir` (the root's or a
    package's), for this repository's skill."""
    from .. import protocol

    return contract_text(drawer, protocol.SKILL_DIR, memory_dir, protocol)


_LINES: dict = {}


def contract_lines(memory_dir: str, drawer: str) -> list[str]:
    """`contract` as the loader's lines, computed once per store and drawer."""
    key = (memory_dir, drawer)
    if key not in _LINES:
        _LINES[key] = contract(memory_dir, drawer).splitlines()
    return _LINES[key]
