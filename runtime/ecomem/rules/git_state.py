"""Rules that need git: desks never reach the default branch, episodes are never rewritten.

Skipped quietly when git is missing or the root is not a repository: the
rest of verify still runs, and CI (which has git) enforces them.
"""

from __future__ import annotations

from pathlib import Path

from ..findings import ERROR, WARNING, Finding
from ..git import GitCall, run_git
from ..store.catalog import parse_catalog
from ..store.load import INDEX, WORKING_IGNORE, Store
from ..store.names import shown_path


def _git(root: Path, *args: str) -> str | None:
    try:
        code, output = run_git(root, *args)
    except OSError:
        return None
    return output.decode("utf-8", "replace") if code == 0 else None


def is_typo_fix(old: str, new: str) -> bool:
    """Same lines, and only a handful of characters changed."""
    import difflib

    if old.count("\n") != new.count("\n"):
        return False
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    changed = sum(
        max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"
    )
    return changed <= max(12, len(old) // 50)


def start_git_checks(store: Store, staged: bool, default_branch: str | None = None):
    """Start asking git which desks are tracked; the call returned gives the findings.

    A tracked desk travels with its task branch (`new working --travel`) and is fine
    there; on the default branch (origin/HEAD, or `default_branch`) it is an error.
    """
    if not staged and not store.drawers["working"].entries:
        return list  # no desk on disk, so none can be tracked: spare the git call
    from ..branch import on_default_branch  # only when a desk exists

    on_default, default = on_default_branch(store.root, default_branch)
    if not staged and not on_default:
        return list  # desks may travel on this branch, and nothing staged is asked
    from ..gitsetup.track import GitRefused, git_name

    try:  # git knows the folder by its own name: links on the way resolved
        working = git_name(store.root, f"{store.relpath}/working")
    except GitRefused as refusal:
        said = str(refusal)
        return lambda: [_refused(said)]
    try:
        listing = GitCall(store.root, "ls-files", "-z", "--", working)
    except OSError:
        return list
    return lambda: _tracked_desks(store, staged, listing, default if on_default else "")


def _tracked_desks(store: Store, staged: bool, listing: GitCall, default: str) -> list[Finding]:
    root = store.root
    working = f"{store.relpath}/working"
    code, output = listing.result()
    if code != 0:
        from ..git import git_dirs

        if git_dirs(root) is None:
            return []  # not a git work tree: nothing to check, as documented above
        # git refused the question: a check that did not run is no pass.
        return [_refused(f"{working} cannot be checked: git ls-files failed (exit {code})")]
    tracked = output.decode("utf-8", "replace")
    findings = []
    for path in filter(None, tracked.split("\0")):
        if default and path.rsplit("/", 1)[-1] not in (INDEX, WORKING_IGNORE):
            message = (
                f"desk is tracked on the default branch ({default}); desks travel only on task"
                f" branches: git rm --cached {shown_path(path)} and commit (end-task on the branch does it)"
            )
            findings.append(Finding(shown_path(path), 0, "working.tracked-desk", ERROR, message))
    if staged:
        findings.extend(_staged_working_rows(root, f"{working}/{INDEX}"))
        findings.extend(_staged_episode_edits(root, f"{store.relpath}/episodic"))
    return findings


def git_home_findings(root: Path) -> list[Finding]:
    """`<git dir>/eco-mem` a link or not a folder, or a git dir inside the work tree.

    The memory commands and `track` refuse to write there, and the catalog driver
    refuses to run a copy from there (gitsetup/driver.py), so catalogs merge as plain
    text: said here once, where a clean verify would otherwise hide it. Read from the
    files git keeps and an lstat or two per git dir; nothing spawned."""
    import os

    from ..git import git_dirs
    from ..git_home import HOME, safe_home
    from ..safe_open import UnsafeTarget

    dirs = git_dirs(root)
    for git_dir in dict.fromkeys(dirs or ()):  # the work tree's, then the common one
        try:
            safe_home(root, git_dir)
        except UnsafeTarget:
            home = git_dir / HOME
            relative = os.path.relpath(home, root).replace(os.sep, "/")
            shown = home.as_posix() if relative.startswith("..") else shown_path(relative)
            if os.path.islink(home) or (os.path.lexists(home) and not home.is_dir()):
                fix = (
                    "is a link or not a folder (a link into .git rendered it?): delete it"
                    f" (`rm {shown}`; a link's target is kept)"
                )
            else:
                fix = "lies in a git dir inside the work tree, not in .git: move the git dir out"
            message = (
                f"{fix}, then run `eco_mem.pyz track`; until then eco-mem keeps no state there"
                " and the catalog merge driver refuses to run (catalogs merge as plain text)"
            )
            return [Finding(shown, 0, "git.state-home", ERROR, message)]
    return []


def _refused(message: str) -> Finding:
    path, _, why = message.partition(" ")
    return Finding(path, 0, "git.refused", ERROR, why)


def _staged_working_rows(root: Path, index_path: str) -> list[Finding]:
    staged = _git(root, "diff", "--cached", "--name-only", "--relative", "--", index_path)
    if not staged:
        return []  # the commit does not touch the working INDEX
    text = _git(root, "show", f":./{index_path}")
    if text is None:
        return []
    rows = parse_catalog(text.splitlines()).rows
    message = "desks have no rows: delete the row from the working INDEX before committing"
    return [Finding(index_path, row.line, "working.staged-rows", ERROR, message) for row in rows]


def _staged_episode_edits(root: Path, episodic: str) -> list[Finding]:
    # -z keeps non-ASCII paths unquoted; --no-renames shows a renamed episode
    # as the deletion and addition it is for history's sake.
    changes = _git(
        root,
        *("diff", "--cached", "--name-status", "-z", "--no-renames", "--relative"),
        *("--diff-filter=MD", "--", episodic),
    )
    fields = (changes or "").split("\0")
    findings = []
    for status, path in zip(fields[0::2], fields[1::2]):
        if path.endswith("/" + INDEX):
            continue
        if status == "D":
            message = "a committed episode is being deleted; episodes are append-only (delete only leaked secrets)"
            findings.append(Finding(shown_path(path), 0, "episodic.deleted", WARNING, message))
            continue
        old, new = _git(root, "show", f"HEAD:./{path}"), _git(root, "show", f":./{path}")
        if old is not None and new is not None and not is_typo_fix(old, new):
            message = "a committed episode is being rewritten; fix typos only, record new events in a new file"
            findings.append(Finding(shown_path(path), 0, "episodic.rewritten", ERROR, message))
    return findings
