"""Branches and refs, read from .git without running git: the one reader every command uses.

Two questions are asked of them, and they are answered differently on purpose:

- Which branch holds reviewed memory (store/provenance.py)? Only the branch
  `refs/remotes/origin/HEAD` names: `git clone` writes it from the remote's own
  default, and `git remote set-head origin NAME` (or `--auto`) is the clone owner's
  explicit choice. A branch's name is never enough: anyone who can push can create
  `origin/main` in a repository whose default is `master`. Without origin/HEAD the
  answer is "none known", and nothing counts as reviewed.
- Is this checkout on the default branch (verify refuses a travelling desk there; review
  calls a desk merged into it stale)? There a guess only makes a rule stricter or an
  advice louder, so without origin/HEAD the usual names `main` and `master` stand in.

verify runs on every commit, so these are small reads of the files git writes (HEAD,
loose and packed refs, the config), worktrees included. CI often checks out a commit,
not a branch (a detached HEAD: GitLab always, GitHub on pull requests). Only then are the
CI's own variables read: they name the branch being built (and GitLab's the default).
Without them a detached HEAD counts as on the default branch when its commit is that
branch's tip (refs/heads/NAME or refs/remotes/origin/NAME, loose or packed):

  GitLab          CI_DEFAULT_BRANCH names the default; the branch built is
                  CI_COMMIT_BRANCH, else CI_MERGE_REQUEST_SOURCE_BRANCH_NAME, else
                  CI_COMMIT_REF_NAME unless CI_COMMIT_TAG says it is a tag
  GitHub Actions  on pull_request(_target) events GITHUB_HEAD_REF, else GITHUB_REF_NAME
                  when GITHUB_REF_TYPE is branch; the default comes from
                  --default-branch (the workflow passes it)

An empty variable counts as unset. Paths are str or Path: the session hook reads these
without importing pathlib.
"""

from __future__ import annotations

import os

from .git import git_dirs, read_small

HEADS = "refs/heads/"
ORIGIN = "refs/remotes/origin/"
# The names taken for the default branch when no origin/HEAD says: for verify's refusal
# and review's advice only, never for what counts as reviewed.
USUAL_NAMES = ("main", "master")


def _symref(path, prefix: str) -> str | None:
    text = read_small(path)
    if text.startswith("ref:"):
        ref = text[4:].strip()
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return None


def current_branch(dirs) -> str | None:
    """The branch checked out; None when HEAD is detached or this is not a repository."""
    return _symref(os.path.join(dirs[0], "HEAD"), HEADS) if dirs else None


def default_branch(dirs) -> str | None:
    """The branch origin/HEAD names (set by `git clone` or `git remote set-head`), None
    when the clone has none: the only default this module vouches for."""
    return _symref(os.path.join(dirs[1], ORIGIN + "HEAD"), ORIGIN) if dirs else None


def reviewed_ref(dirs) -> str | None:
    """The ref whose memory passed review (`refs/remotes/origin/NAME`), None when the
    clone names no default: no other ref, whatever its name, stands for review."""
    name = default_branch(dirs)
    return ORIGIN + name if name and ref_commit(dirs, ORIGIN + name) else None


def has_remote(dirs) -> bool:
    """Whether this clone names a remote: then memory can have come from elsewhere."""
    try:
        with open(os.path.join(dirs[1], "config"), encoding="utf-8", errors="replace") as config:
            return any(line.strip().startswith('[remote "') for line in config)
    except OSError:
        return False


def ever_fetched(dirs) -> bool:
    """Whether git fetched into this repository (`git pull URL`, `git fetch PATH`): what
    it brought came from elsewhere even with no remote named."""
    return any(os.path.exists(os.path.join(folder, "FETCH_HEAD")) for folder in dirs)


def ref_commit(dirs, ref: str) -> str:
    """The commit `ref` (or HEAD) points to, read from the files git keeps; "" if unknown."""
    if ref == "HEAD":
        text = read_small(os.path.join(dirs[0], "HEAD"))
        if not text.startswith("ref:"):
            return text
        ref = text[4:].strip()
    # A ref name never holds "..", so a name with one cannot lead the read out of .git.
    if ".." in ref or not ref.startswith("refs/"):
        return ""
    return read_small(os.path.join(dirs[1], ref)) or _packed(dirs[1], {ref: ref}).get(ref, "")


def _packed(common, wanted: dict[str, str]) -> dict[str, str]:
    """{wanted[ref]: commit} for the refs of `wanted` that packed-refs lists."""
    found: dict[str, str] = {}
    try:
        with open(os.path.join(common, "packed-refs"), encoding="utf-8") as packed:
            for line in packed:
                commit, _, ref = line.strip().partition(" ")
                if ref in wanted:
                    found.setdefault(wanted[ref], commit)
    except (OSError, UnicodeDecodeError):
        pass
    return found


def tips(dirs, names: tuple[str, ...]) -> dict[str, str]:
    """{commit: branch name} of the local and origin refs of `names`, loose or packed."""
    names = tuple(name for name in names if ".." not in name and not name.startswith("/"))
    wanted = {f"{prefix}{name}": name for name in names for prefix in (HEADS, ORIGIN)}
    found = {}
    for ref, name in wanted.items():
        commit = read_small(os.path.join(dirs[1], ref))
        if commit:
            found[commit] = name
    for name, commit in _packed(dirs[1], wanted).items():
        found.setdefault(commit, name)
    return found


def ci_branches(environ) -> tuple[str | None, str | None]:
    """(the default branch, the branch being built) as the CI's variables name them."""

    def get(name: str) -> str | None:
        return environ.get(name) or None

    if get("CI_DEFAULT_BRANCH") or get("GITLAB_CI"):
        built = get("CI_COMMIT_BRANCH") or get("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME")
        if built is None and not get("CI_COMMIT_TAG"):
            built = get("CI_COMMIT_REF_NAME")
        return get("CI_DEFAULT_BRANCH"), built
    if get("GITHUB_ACTIONS"):
        if get("GITHUB_EVENT_NAME") in ("pull_request", "pull_request_target"):
            return None, get("GITHUB_HEAD_REF")
        if get("GITHUB_REF_TYPE") == "branch":
            return None, get("GITHUB_REF_NAME")
    return None, None


def likely_defaults(dirs, given: str | None = None) -> tuple[str, ...]:
    """The default branch's name as given or as origin/HEAD says, else the usual names:
    for a rule that refuses or an advice, never for what counts as reviewed."""
    known = given or default_branch(dirs)
    return (known,) if known else USUAL_NAMES


def on_default_branch(root, given: str | None = None, environ=None) -> tuple[bool, str]:
    """(is this checkout on the default branch, the default's name as judged)."""
    dirs = git_dirs(root)  # read once: every question starts from the same .git
    branch = current_branch(dirs)
    default = given or default_branch(dirs)
    if branch is None and dirs is not None:  # a detached HEAD: a commit, not a branch
        ci_default, branch = ci_branches(os.environ if environ is None else environ)
        default = given or ci_default or default
        if branch is None:
            head = read_small(os.path.join(dirs[0], "HEAD"))
            tip_of = tips(dirs, likely_defaults(dirs, default)).get(head) if head else None
            return tip_of is not None, tip_of or default or USUAL_NAMES[0]
    if default:
        return branch == default, default
    return branch in USUAL_NAMES, branch if branch in USUAL_NAMES else USUAL_NAMES[0]
