"""Whether a repository runs the scripts its release shipped, file for file.

The scripts a host holds carry no answers: every repository on a release holds the
same bytes, the bytes of the template's `template/{{skill_path}}/eco-mem/scripts/`
at the release's commit. So the release itself records what each file must be, as
the blob ids in its git tree, and a clone's tree says what it holds: two `git
ls-tree` calls, no rendering, nothing of the repository run. A difference is a hand
edit, a half-applied upgrade or a commit that changed the scripts; status names it.

Every file counts, not only the Python ones: Python imports an extension module
(`cli.cpython-311-x86_64-linux-gnu.so`) before the `cli.py` beside it, and an
`ecomem/answers.yml` there is a record only the git dir's copy may keep.
Two kinds are left out: the files the release renders per repository (`*.jinja` in
its tree, the tool settings), and `__pycache__`, which eco_mem.pyz never reads (it
keeps its bytecode outside the repository).

Releases from before the scripts stopped carrying answers render some of them per
repository (`*.py.jinja` in their tree): those are not compared.
"""

from __future__ import annotations

import subprocess

RELEASE_SCRIPTS = "template/{{skill_path}}/eco-mem/scripts"
SHOWN = 3  # changed files named in the row; the count says the rest


def script_blobs(repository: str, commit: str, folder: str) -> dict[str, str]:
    """{path under `folder`: object id} of every entry at `commit` (a link's or a
    submodule's too), `__pycache__` left out; {} when the folder is not there."""
    listed = subprocess.run(
        ["git", "-C", repository, "ls-tree", "-r", "-z", "--full-tree", commit, "--", folder],
        capture_output=True,
        check=True,
    ).stdout
    blobs = {}
    for entry in filter(None, listed.split(b"\0")):
        meta, _, path = entry.partition(b"\t")
        name = path.decode("utf-8", "surrogateescape")[len(folder) + 1 :]
        if "__pycache__" not in name.split("/"):
            blobs[name] = meta.split()[2].decode("ascii")
    return blobs


def runtime_difference(template: str, release_commit: str, tag: str, clone: str, skill: str) -> str:
    """ "" when the clone's committed scripts under `skill` (`<skill_path>/eco-mem`) are
    the release's byte for byte, else one line naming what differs."""
    shipped = script_blobs(template, release_commit, RELEASE_SCRIPTS)
    if not shipped or any(name.endswith(".py.jinja") for name in shipped):
        return ""  # a release whose scripts were rendered per repository
    rendered = {name[: -len(".jinja")] for name in shipped if name.endswith(".jinja")}
    shipped = {name: blob for name, blob in shipped.items() if not name.endswith(".jinja")}
    held = {
        name: blob
        for name, blob in script_blobs(clone, "HEAD", f"{skill}/scripts").items()
        if name not in rendered
    }
    changed = sorted(
        name for name in shipped.keys() | held.keys() if shipped.get(name) != held.get(name)
    )
    if not changed:
        return ""
    named = ", ".join(changed[:SHOWN]) + (
        f" and {len(changed) - SHOWN} more" if len(changed) > SHOWN else ""
    )
    return f"scripts differ from {tag}'s: {len(changed)} file(s) ({named})"
