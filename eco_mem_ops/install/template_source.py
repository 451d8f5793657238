"""Which template this clone trusts `upgrade` to run, kept where no commit reaches.

The answers file is committed, so its `_src_path` is whatever the last commit
says: a one-line edit on a branch would make `upgrade` run another template
with `--trust` (its tasks and migrations execute on this machine). The source
a person chose (the install's task, or `upgrade --template SRC`) is recorded
in the clone's common git dir instead; `upgrade` runs a source only when the
answers file and that record agree.
"""

from __future__ import annotations

import os
from pathlib import Path

from ecomem import protocol
from ecomem.errors import UsageError
from ecomem.git import git_dirs, run_git

RECORD = os.path.join("eco-mem", "template-source")
# How Copier (copier._vcs.get_repo, 9.x) reads a source: its gh:/gl: shortcuts first,
# then anything ending in `.git` or starting with one of these prefixes is a URL for
# git (`git+` dropped, `.git` added to an https one); everything else is a local path.
SHORTCUTS = {"gh:": "https://github.com", "gl:": "https://gitlab.com"}
URL_PREFIXES = ("git@", "git://", "git+", "https://github.com/", "https://gitlab.com/")


def refuse_option(what: str, value: str) -> None:
    """Data that reaches git or Copier as an argument must never read as an option, and
    holds nothing two readers could split or trim differently."""
    if value.startswith("-"):
        raise UsageError(f"{what} {value!r} starts with '-': refused, it would read as an option")
    if not value.isprintable() or value != value.strip():
        raise UsageError(f"{what} holds a space at an edge or a control character: refused")


def location(source: str, root: Path) -> str:
    """Where git's clone goes when Copier is given `source` in `root`: a remote URL as
    git gets it, or the absolute path a local one leads to, links resolved.

    Modelled on Copier's own reading rather than on how the string looks: a source the
    trust check reads one way and Copier another (`git+foo` is `foo` to Copier) would
    run a template nobody checked. A UsageError for a `file:` URL, whose host part and
    %-escapes git reads by rules of its own."""
    why = not_modelled(source)
    if why:
        raise UsageError(f"template source {source}: {why}")
    url, as_url = copier_url(source)
    if not as_url:
        local = os.path.expanduser(url) if url.startswith("~") else url
        return os.path.realpath(os.path.join(root, local))
    # Copier clones an existing path as a local repository whatever it looks like, and
    # git clone tries its argument as a path before it reads `host:path`: a folder a
    # commit adds under the very name of a remote source is what would run.
    if os.path.lexists(os.path.join(root, url)):
        return os.path.realpath(os.path.join(root, url))
    return _where_git_goes(url, root)


def not_modelled(source: str) -> str:
    """Why `location` will not read `source`, or "": a `file:` URL, whose host part and
    %-escapes git reads by rules of its own (a path names the same template plainly)."""
    if copier_url(source)[0].startswith("file:"):
        return "a file: URL, which git reads by its own rules; name the template by its path"
    return ""


def copier_url(source: str) -> tuple[str, bool]:
    """(what Copier, copier._vcs.get_repo, hands git for `source`; whether it takes it as
    a URL): gh:/gl: shortcuts expanded, then anything ending in `.git` or starting with
    a URL prefix is a URL, `git+` dropped and `.git` added to an https one. Anything
    else is a local path, unchanged."""
    url = source
    for short, base in SHORTCUTS.items():
        if url.startswith(short):
            rest = url[len(short) :]
            rest = rest[1:] if rest.startswith("/") else rest
            url = f"{base}/{rest}" if rest.endswith(".git") else f"{base}/{rest}.git"
            break
    if not (url.endswith(".git") or url.startswith(URL_PREFIXES)):
        return url, False
    if url.startswith("git+"):
        return url[len("git+") :], True
    if url.startswith("https://") and not url.endswith(".git"):
        return url + ".git", True
    return url, True


def _where_git_goes(url: str, root: Path) -> str:
    """git's own reading of a clone URL that names no existing path: a scheme, scp-like
    `host:path` (a colon before any slash), or else a local path from git's folder."""
    if "://" in url:
        return url
    colon, slash = url.find(":"), url.find("/")
    if colon != -1 and (slash == -1 or colon < slash):
        return url
    return os.path.realpath(os.path.join(root, url))


def is_remote(where: str) -> bool:
    """Whether a `location` is a URL or scp-like remote, not a path on this machine."""
    return not os.path.isabs(where)


def same_template(one: str, other: str) -> bool:
    """Whether two locations name one template. Records made before Copier's reading
    was modelled kept a `git+` prefix, and gh:/gl: expanded without `.git`: on GitHub
    and GitLab `x` and `x.git` are one repository (elsewhere they may be two)."""

    def key(where: str) -> str:
        if not is_remote(where):
            return where  # a real path: compared whole
        where = where[len("git+") :] if where.startswith("git+") else where
        hosted = where.startswith(tuple(f"{base}/" for base in SHORTCUTS.values()))
        return where[: -len(".git")] if hosted and where.endswith(".git") else where

    return key(one) == key(other)


def _record_path(root: Path) -> Path | None:
    dirs = git_dirs(root)  # read from .git itself: no git started on the fast path
    if dirs:
        return dirs[1] / RECORD
    try:
        code, out = run_git(root, "rev-parse", "--git-common-dir")
    except OSError:
        return None
    common = out.decode("utf-8", "replace").strip()
    if code != 0 or not common:
        return None
    return (root / common).resolve() / RECORD  # git answers relative to root


def recorded(root: Path) -> str | None:
    """The source this clone was told to trust, or None when nobody told it yet."""
    from ecomem.git_home import safe_home

    path = _record_path(root)
    try:
        if path:
            safe_home(root, path.parent.parent)  # a record a commit could hold trusts nothing
            if path.is_symlink():  # nor one a link leads to
                return None
        text = path.read_text(encoding="utf-8").strip() if path else ""
    except (OSError, UnicodeError, UsageError):
        return None
    return text or None


def remember(root: Path, source: str) -> bool:
    """Record `source` (as git will find it) for this clone; False outside a git repository."""
    from ecomem.git_home import safe_home

    refuse_option("template source", source)
    path = _record_path(root)
    if path is None:
        return False
    safe_home(root, path.parent.parent)  # the git dir's own eco-mem folder, never a link
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_name(path.name + ".new")
    scratch.write_text(location(source, root) + "\n", encoding="utf-8")
    os.replace(scratch, path)
    return True


def check_trusted(root: Path, source: str, answers_name: str) -> None:
    """Refuse an answers-file source this clone was never told to trust."""
    refuse_option(f"_src_path in {answers_name}", source)
    trusted = recorded(root)
    move = f"run `ops.py upgrade --template {source}` once to trust it on purpose"
    if trusted is None:
        raise UsageError(
            f"no template source is recorded for this clone; {answers_name} names {source}."
            f" If that is the template you mean, {move}"
        )
    if not same_template(location(source, root), trusted):
        raise UsageError(
            f"_src_path in {answers_name} ({source}) is not the template this clone trusts"
            f" ({trusted}); a commit changed it. To switch templates on purpose, {move}"
        )


def newest_release(source: str, root: Path) -> str | None:
    """The highest final release tag at `source` (release_tags.py says which tags are
    releases), as Copier picks it by default; None when git cannot list it or there is none."""
    from ..release_tags import newest

    try:
        code, out = run_git(root, "ls-remote", "--tags", "--refs", "--", location(source, root))
    except OSError:
        return None
    if code != 0:
        return None
    lines = out.decode("utf-8", "replace").splitlines()
    return newest(line.rsplit("refs/tags/", 1)[-1] for line in lines)


def already_newest(root: Path, args) -> str:
    """The one line `upgrade` prints when there is nothing to upgrade to, else "".

    Asked before Copier is even looked for (an update renders both versions and
    compares them: seconds): nothing was asked for beyond the newest release,
    the source is trusted, every drawer INDEX is there, and the recorded
    `_commit` is that release. Raises UsageError for an untrusted source.
    """
    from .answers import read_answers, refuse_folders_out_of_place

    if args.template or args.data or [arg for arg in args.copier_args if arg != "--"]:
        return ""
    answers_file = root / protocol.ANSWERS_FILE
    if not answers_file.is_file():
        return ""  # upgrade itself says what is wrong
    answers = read_answers(answers_file)
    refuse_folders_out_of_place(root, answers)
    source, recorded_commit = answers.get("_src_path", ""), answers.get("_commit", "")
    check_trusted(root, source, protocol.ANSWERS_FILE)
    if not recorded_commit or (args.vcs_ref and args.vcs_ref != recorded_commit):
        return ""
    memory = root / protocol.MEMORY_DIR
    if not all((memory / drawer / "INDEX.md").exists() for drawer in protocol.DRAWERS):
        return ""
    if newest_release(source, root) != recorded_commit:
        return ""
    return f"eco-mem is already at {recorded_commit}, the newest release of {source}; nothing to do"
