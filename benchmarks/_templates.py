"""The baseline template that benchmarks/copy.py and benchmarks/update.py compare against.

Ours is this working tree, snapshotted with tests.helpers.snapshot_template.
The baseline lands the same files: same relative paths, same byte sizes (of
what ours renders with default answers, tasks skipped). It has none of ours'
machinery: no questions, no Jinja in names or contents, no _jinja_extensions,
no tasks, no migrations; a symlink in ours is a plain file of the same size
there. Its one templated file is the answers file, under the same `_answers_file`
name, because `copier update` needs it and ours writes it too.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Collection
from pathlib import Path

import copier

from tests.helpers import ANSWERS, build_files, commit_all, git, init_repo

ANSWERS_TEMPLATE = "{{_copier_conf.answers_file}}.jinja"
PLAIN_COPIER_YML = f"_subdirectory: template\n_answers_file: {ANSWERS}\n"
# Ours, minus its one filter (which needs our extension): the same bytes for the same answers.
PLAIN_ANSWERS = "# Written by Copier.\n{{ _copier_answers | to_nice_yaml -}}\n"


def rendered_sizes(template_repo: Path, vcs_ref: str) -> dict[str, int]:
    """Relative path -> byte size of each file ours renders, the answers file left out."""
    with tempfile.TemporaryDirectory(prefix="eco-mem-layout-") as tmp:
        copier.run_copy(
            str(template_repo),
            tmp,
            defaults=True,
            unsafe=True,
            quiet=True,
            skip_tasks=True,
            vcs_ref=vcs_ref,
        )
        sizes = _walk(Path(tmp), Path(tmp))
    sizes.pop(ANSWERS)
    return sizes


def _walk(root: Path, folder: Path) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for item in os.scandir(folder):
        relpath = Path(item.path).relative_to(root).as_posix()
        if item.is_symlink():  # a link to a folder counts as one small file
            sizes[relpath] = len(os.readlink(item.path))
        elif item.is_dir():
            sizes.update(_walk(root, Path(item.path)))
        else:
            sizes[relpath] = item.stat().st_size
    return sizes


def filler(relpath: str, size: int, version: str) -> str:
    """Deterministic plain text of exactly `size` bytes; `version` changes only line 1."""
    lines = [f"plain baseline file {relpath} ({version})\n"]
    while sum(map(len, lines)) < size:
        lines.append(f"filler line {len(lines):05d} of a file with no templating at all\n")
    return "".join(lines)[:size]


def plain_template(
    repo: Path, tag: str, sizes: dict[str, int], changed: Collection[str] = ()
) -> Path:
    """Commit the baseline into `repo` and tag it; `changed` files get new first lines."""
    if not (repo / ".git").exists():
        init_repo(repo)
    files = {"copier.yml": PLAIN_COPIER_YML, f"template/{ANSWERS_TEMPLATE}": PLAIN_ANSWERS}
    for relpath, size in sizes.items():
        version = tag if relpath in changed else "v1"
        files[f"template/{relpath}"] = filler(relpath, size, version)
    build_files(repo, files)
    commit_all(repo, f"plain template {tag}")
    git(repo, "tag", tag)
    return repo
