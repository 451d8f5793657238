"""all-repos' `autofix_lib.fix`, with an outcome recorded for every repository.

all-repos clones each repository into a scratch folder, checks out a branch,
calls `apply_fix`, commits when the tree differs from origin, calls
`check_fix`, then pushes through the configured push module. We hook the
three places a repository can end:

- `apply_fix` runs our fixer; a clean tree afterwards ends the repository
  there (skipped, conflict, failed, or nothing to change). It first skips a
  repository whose origin has this run's branch unmerged: a pull request
  from an earlier run, still open;
- `check_fix` ends it under `--dry-run` (all-repos commits, never pushes);
- the push module is wrapped, so a push that lands or fails is recorded.

all-repos' own loop (`autofix_lib.fix`) ends the whole run when one
repository's scratch clone cannot be made or fetched ("generator didn't
yield"), so `fix_each` runs its per-repository step itself and turns any
error there into that repository's `failed` row: every repository gets a
row, and the summary and report are always written. Before anything is
selected, each local clone is brought up to date with its origin
(`refresh`), as all-repos-clone does; one that cannot be is a failed row.

Everything handed to all-repos is a partial of a module-level function over
plain data: with `-j` it is pickled into worker processes.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import io
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

from all_repos import autofix_lib, git, mapper
from all_repos.config import load_config

from eco_mem_fleet import host_checks, token_free
from eco_mem_fleet.clean_env import clean_environment
from eco_mem_fleet.render_forks import started as render_process
from eco_mem_fleet.report import (
    Ledger,
    Outcome,
    Progress,
    exit_code,
    quiet_progress,
    summary,
    write_jsonl,
)


@dataclasses.dataclass(frozen=True)
class Job:
    action: str  # "install" or "upgrade"
    fixer: Callable[[Job, str], Outcome]  # runs inside the scratch clone
    ledger: Ledger
    labels: dict[str, str]  # origin URL -> repository name in the report
    dry_run: bool
    options: dict[str, Any]
    names: dict[str, str] = dataclasses.field(default_factory=dict)  # clone path -> name


def one_line(error: BaseException) -> str:
    lines = [line for line in str(error).strip().splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[-1] if lines else ''}".rstrip(": ")


# Where git says why it failed: its own verdicts and the origin's words (a hook's message).
GIT_VERDICT = ("fatal:", "error:", "remote:", " ! [")


def git_said(stderr: str, fallback: str) -> str:
    """The lines of git's stderr that say why, joined by " | ": the origin's words and
    git's fatal/error lines, not the hint under them ("and the repository exists.")."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    told = [
        line.removeprefix("remote:").strip()
        for line in stderr.splitlines()
        if line.startswith(GIT_VERDICT) and line.removeprefix("remote:").strip()
    ]
    return " | ".join(told[:3]) if told else (lines[-1] if lines else fallback)


def _git(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=check)


def discard_changes() -> None:
    """Leave the scratch clone exactly at its branch point, so all-repos commits nothing."""
    _git("reset", "--quiet", "--hard")
    _git("clean", "--quiet", "-fdx")


def _repo(job: Job) -> str:
    url = _git("config", "remote.origin.url").stdout.strip()
    return job.labels.get(url, url)


def _unmerged_on_origin(branch: str) -> bool:
    """Whether origin has `branch` at a commit its default branch lacks.

    Then pushing this run's commit there is refused (not a fast-forward): a pull
    request still open, or a squash-merged one whose branch was kept. A branch
    merged the ordinary way is an ancestor, and the push goes on from it.
    """
    listing = _git("ls-remote", "--heads", "origin", branch, check=False)
    if listing.returncode != 0 or not listing.stdout.strip():
        return False
    tip = listing.stdout.split()[0]
    # Exit 1: not an ancestor; 128: a commit this clone never fetched. Both block.
    return _git("merge-base", "--is-ancestor", tip, "origin/HEAD", check=False).returncode != 0


def apply_fix(job: Job) -> None:
    repo = _repo(job)
    # A pull-request push module pushes all-repos_autofix_NAME to origin. Until that
    # pull request is merged, a re-run would push a different commit over it and fail.
    branch = _git("rev-parse", "--abbrev-ref", "HEAD").stdout.strip()
    if _unmerged_on_origin(branch):
        message = (
            f"{branch} is on origin and not merged (an open pull request?);"
            " merge it, or close it and delete the branch"
        )
        job.ledger.finish(Outcome(repo, job.action, result="skipped", message=message))
        return
    try:
        outcome = job.fixer(job, repo)
    except Exception as error:  # the repo fails; the fleet goes on
        outcome = Outcome(repo, job.action, result="failed", message=one_line(error))
        discard_changes()  # first: a failed install's render must not read as installed
        outcome.before, outcome.after = _versions(job)
    if outcome.result in ("installed", "upgraded"):
        host_checks_pass(outcome, job)
    # The same test all-repos makes next: no difference means no commit, no push.
    if _git("diff", "origin/HEAD", "--quiet", check=False).returncode == 0:
        if outcome.result in ("installed", "upgraded"):
            outcome.result = "unchanged"
        job.ledger.finish(outcome)
    else:
        job.ledger.write(outcome)  # commit and push are still to come


def host_checks_pass(outcome: Outcome, job: Job) -> None:
    """Run the repository's own checks on the staged result (host_checks.py): one that
    fails fails the repository and leaves the clone as cloned, so nothing is pushed. A
    check not run says why in the row's note.

    With --host-checks they run only in the checks phase, which records its verdict on
    the tree it checked; the push phase runs none and takes that verdict for this very
    tree, or fails the repository (token_free.py)."""
    recording, checked = job.options.get("record"), job.options.get("checked")
    if recording or checked:
        tree = _git("write-tree").stdout.strip()
        base = _git("rev-parse", "origin/HEAD").stdout.strip()
    if checked:
        failed, note, status = token_free.recorded_verdict(checked, outcome.repo, tree, base)
    else:
        failed, note, status = _run_host_checks(job)
    if recording:
        token_free.record_verdict(recording, outcome.repo, tree, base, failed, note, status)
    outcome.checks = status
    if failed:
        outcome.result, outcome.message = "failed", failed
        discard_changes()
        return
    outcome.message = "; ".join(filter(None, (outcome.message, note)))


def _run_host_checks(job: Job) -> tuple[str, str, str]:
    """(the first failing check's note or "", the passing checks' notes, and the row's
    checks field: "failed", "unchecked" when a check was asked for and did not run, else
    "passed", or "" when none was asked for)."""
    try:
        checks = host_checks.checked(Path("."), job.options)
    except Exception as error:
        checks = [host_checks.Check("host checks", False, one_line(error))]
    notes, status = [], "passed" if checks else ""
    for check in checks:
        if not check.ok:
            return check.note(), "", "failed"
        notes.append(check.note())
        if not check.ran:
            status = "unchecked"
    return "", "; ".join(filter(None, notes)), status


def _versions(job: Job) -> tuple[str, str]:
    """(installed, target) for a repository whose fixer failed: never "- -> -" for both."""
    from eco_mem_fleet.versions import read_answers

    answers = read_answers(Path(".")) or {}
    before = str(answers.get("_commit", "-"))
    target = job.options.get("ref") or job.options.get("vcs_ref")
    if not target:
        newest = job.options.get("newest") or {}
        target = newest.get(str(answers.get("_src_path")))
    return before, str(target or "?")


def check_fix(job: Job) -> None:
    if not job.dry_run:
        return
    outcome = job.ledger.read(_repo(job))
    if outcome is not None:
        said = "; ".join(filter(None, (would_get(), outcome.message)))
        outcome.message = f"would be {outcome.result} ({said}); --dry-run pushes nothing"
        outcome.result = "dry-run"
        job.ledger.finish(outcome)


def would_get() -> str:
    """What the staged result does to the repository, in a few words: "adds N files
    (.agents/ N, AGENTS.md, ...), changes .gitignore"."""
    listed = _git("diff", "--name-status", "--no-renames", "-z", "origin/HEAD", check=False)
    fields = listed.stdout.split("\0")
    changes = list(zip(fields[0::2], fields[1::2]))
    added = [path for kind, path in changes if kind == "A"]
    changed = [path for kind, path in changes if kind == "M"]
    removed = [path for kind, path in changes if kind == "D"]
    folders: dict[str, int] = {}
    for path in added:
        if "/" in path:
            top = path.split("/")[0] + "/"
            folders[top] = folders.get(top, 0) + 1
    # Folders by their count, files at the root by name: "(.agents/ 119, AGENTS.md)".
    parts = [f"{top} {count}" for top, count in sorted(folders.items())]
    parts += sorted(path for path in added if "/" not in path)
    said = [f"adds {len(added)} files ({', '.join(parts)})"] if added else []
    for verb, paths in (("changes", changed), ("removes", removed)):
        if paths:
            more = f" and {len(paths) - SHOWN_PATHS} more" if len(paths) > SHOWN_PATHS else ""
            said.append(f"{verb} {', '.join(paths[:SHOWN_PATHS])}{more}")
    return ", ".join(said)


SHOWN_PATHS = 5  # changed files a dry-run row names before "and N more"


@contextlib.contextmanager
def stderr_caught(caught: io.StringIO) -> Iterator[None]:
    """File descriptor 2 (what git and all-repos print) into `caught` for the block, then
    on to where it went before (the log): the origin's refusal is read there."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as scratch:
        os.dup2(scratch.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            scratch.seek(0)
            caught.write(scratch.read().decode("utf-8", "replace"))
            sys.stderr.write(caught.getvalue())
            sys.stderr.flush()


def push(job: Job, push_module: Callable[[Any, str], None], settings: Any, branch: str) -> None:
    outcome = job.ledger.read(_repo(job)) or Outcome(_repo(job), job.action)
    said = io.StringIO()
    try:
        with stderr_caught(said):
            push_module(settings, branch)
    except Exception as error:
        # git push's CalledProcessError names only the command: the why is what the
        # origin printed (a protected branch, a hook's message).
        why = git_said(said.getvalue(), "") or one_line(error)
        outcome.result, outcome.message = "failed", f"push failed: {why}"
        job.ledger.finish(outcome)
        raise
    if getattr(push_module, "__module__", "") == "all_repos.push.readonly":
        # all-repos' module for a rehearsal: it returns without pushing anything.
        outcome.message = f"would be {outcome.result}; the readonly push module pushes nothing"
        outcome.result = "dry-run"
    else:
        outcome.pushed = True
    job.ledger.finish(outcome)


def refresh(path: str) -> str:
    """Bring the local clone at `path` to its origin's tip, as all-repos-clone does: the
    selection reads it, so a stale one would misjudge what is installed. Returns why it
    could not, or ""."""
    branch = _git("-C", path, "symbolic-ref", "--quiet", "--short", "HEAD", check=False)
    fetched = _git("-C", path, "fetch", "--quiet", "--prune", "origin", check=False)
    if branch.returncode != 0 or fetched.returncode != 0:
        said = git_said(fetched.stderr, "no branch checked out")
        return f"its clone cannot be brought up to date ({said}); nothing done"
    name = branch.stdout.strip()
    reset = _git("-C", path, "reset", "--quiet", "--hard", f"origin/{name}", check=False)
    if reset.returncode != 0:
        said = git_said(reset.stderr, f"no origin/{name}")
        return f"its clone cannot be brought up to date ({said}); nothing done"
    return ""


def _remotes(config_filename: str) -> dict[str, str]:
    """Each local clone's origin URL, by its name: read before the checks phase, whose
    hooks can rewrite a clone's configuration."""
    try:
        config = load_config(config_filename)
        cloned = config.get_cloned_repos()
    except Exception:
        return {}  # the push phase reports a missing or broken config itself
    found = {}
    for name in cloned:
        path = os.path.join(config.output_dir, name)
        if _has_commit(path):
            with contextlib.suppress(subprocess.CalledProcessError):
                found[name] = git.remote(path)
    return found


def fresh_clone(path: str, url: str | None, folder: str, name: str) -> tuple[str, str]:
    """A clone of the local clone at `path` in `folder`, with origin `url`: a .git/config
    of its own, written after the checks phase, so none of a hook's settings are in it.
    Returns its path and why it could not be made, or ""."""
    target = os.path.join(folder, "clones", name)
    if url is None:
        return path, "its origin could not be read before the host checks; nothing done"
    made = _git("clone", "--quiet", path, target, check=False)
    if made.returncode != 0:
        said = git_said(made.stderr, "git clone failed")
        return path, f"its clone could not be copied for the push ({said}); nothing done"
    _git("-C", target, "remote", "set-url", "origin", url)
    return target, ""


# Where the local clone keeps the origin's other branches (refs outside refs/heads and
# refs/remotes, so all-repos and the team's tools never see them as branches).
KEPT_BRANCHES = "refs/eco-mem-fleet/heads"


def keep_branches(path: str) -> None:
    """Fetch every branch of origin into the local clone at `path`, under KEPT_BRANCHES.

    all-repos makes each scratch clone from the local clone (git hard-links its whole
    object store) and then fetches every branch of origin into it. all-repos-clone
    fetches the default branch only, so without this each run fetched every other
    branch's history again: 48 s of a litestar install, most of its time. Kept here, the
    objects are already present and the scratch fetch moves only refs; a later run
    fetches what changed. A failure only costs that time back: all-repos' own fetch
    decides whether the repository can be worked on."""
    refspec = f"+refs/heads/*:{KEPT_BRANCHES}/*"
    _git("-C", path, "fetch", "--quiet", "--prune", "--no-tags", "origin", refspec, check=False)


def fix_one(repo: str, *, job: Job, **fix_args: Any) -> None:
    """all-repos' step for one repository, any error in it that repository's failed row.

    `autofix_lib._fix_inner` is the body of all-repos' own loop (pinned version); its
    clone-and-fetch context raises "generator didn't yield" when the fetch fails."""
    name = job.names.get(repo, repo)
    keep_branches(repo)
    try:
        with diffs_as_stat(not job.options.get("log_diffs")):
            autofix_lib._fix_inner(repo, **fix_args)
    except Exception as error:
        recorded = job.ledger.read(name)
        if recorded is not None and recorded.final:
            return  # the push wrapper has its row already
        outcome = recorded or Outcome(name, job.action)
        outcome.result = "failed"
        if "generator didn't yield" in str(error):
            outcome.message = "its scratch clone could not be made or fetched (see the log)"
        else:
            outcome.message = f"all-repos: {one_line(error)} (see the log)"
        job.ledger.finish(outcome)


@contextlib.contextmanager
def diffs_as_stat(shorten: bool) -> Iterator[None]:
    """all-repos prints `git diff origin/HEAD --exit-code` into the log: for an install,
    the whole skill, about 17,000 lines per repository. Unless the operator asked for
    the diffs, it runs with --stat instead (same exit status, one line per file).
    `autofix_lib.run` is the function `_fix_inner` calls each command through."""
    if not shorten:
        yield
        return
    original = autofix_lib.run

    def run(*command: str, **kwargs: Any) -> subprocess.CompletedProcess:
        if command[:2] == ("git", "diff"):
            command = (*command[:2], "--stat", *command[2:])
        return original(*command, **kwargs)

    autofix_lib.run = run
    try:
        yield
    finally:
        autofix_lib.run = original


def fix_each(repos: list[str], job: Job, **fix_args: Any) -> None:
    """all-repos' `autofix_lib.fix`, with each repository's step guarded by fix_one."""
    settings = fix_args["autofix_settings"]
    step = functools.partial(fix_one, job=job, **fix_args)
    with mapper.process_mapper(settings.jobs) as do_map:
        mapper.exhaust(do_map(step, repos))


@contextlib.contextmanager
def _renderer_for(options: dict[str, Any], folder: str, wanted: bool) -> Iterator[dict[str, Any]]:
    """`options` with "renderer", the address of this run's render process (render_forks.py,
    a HOME of its own under `folder`) when `wanted`; else as they are."""
    if not wanted:
        yield options
        return
    home = os.path.join(folder, "render-home")
    os.mkdir(home)
    with render_process(clean_environment(home)) as address:
        yield {**options, "renderer": address}


def _has_commit(path: str) -> bool:
    probe = ["git", "-C", path, "rev-parse", "--verify", "--quiet", "HEAD"]
    return os.path.isdir(path) and subprocess.run(probe, capture_output=True).returncode == 0


def run(
    args: Any,
    *,
    action: str,
    fixer: Callable[[Job, str], Outcome],
    select: Callable[[str, str], Outcome | None],
    msg: str | Callable[[], str],
    branch_name: str,
    options: dict[str, Any],
    argv: Sequence[str] = (),
) -> int:
    """Fix every selected repository; print the summary; exit 1 on any failure or conflict.

    `select(path, name)` looks at the local clone and returns an Outcome when
    the repository is to be left alone (already installed, already current).
    `msg` may be a callable, asked once the repositories have been selected.
    """
    phase = getattr(args, "host_checks_phase", None)
    checks_log = None
    taken: dict[str, str] = {}
    fresh = None  # with --host-checks, where the push phase makes clones of its own
    remotes: dict[str, str] = {}
    if getattr(args, "host_checks", False) and not phase:
        # The repositories' own code runs in a phase of its own, token-free, first. What
        # the push phase takes from files a hook could write is read before it starts.
        global_config = token_free.global_git_config()
        remotes = _remotes(args.config_filename)
        checks_log = _new_log(f"{action}-checks")
        # Removed when this run returns and the object goes (TemporaryDirectory's finalizer).
        verdicts = tempfile.TemporaryDirectory(prefix="eco-mem-fleet-verdicts.")
        checked = verdicts.name
        ref = options.get("ref") or options.get("vcs_ref")
        pinned = ["--vcs-ref", str(ref)] if ref else []
        with open(checks_log, "a", encoding="utf-8") as output:
            try:
                taken = token_free.run_checks_phase(
                    f"eco_mem_fleet.{action}",
                    [*argv, *pinned],
                    args.config_filename,
                    checked,
                    output,
                )
            except token_free.Refused as error:
                print(f"{action}: {error}", file=sys.stderr)
                return 2
        options = {**options, "checked": checked}
        token_free.give_back(taken)
        # Made only now, when no process of the checks phase is left to write into it.
        fresh = tempfile.TemporaryDirectory(prefix="eco-mem-fleet-push.")
        os.environ.update(token_free.hookless_git(fresh.name, global_config))
    skipped: list[Outcome] = []
    names: dict[str, str] = {}

    def find_repos(config) -> list[str]:
        try:
            cloned = config.get_cloned_repos()
        except FileNotFoundError:
            raise SystemExit(
                f"{config.repos_filtered_path} not found: run all-repos-clone -C {args.config_filename} first"
            ) from None
        chosen = []
        for name in cloned:
            path = os.path.join(config.output_dir, name)
            stale = ""
            if fresh is not None and _has_commit(path):
                path, stale = fresh_clone(path, remotes.get(name), fresh.name, name)
            names[path] = name
            stale = stale or (refresh(path) if _has_commit(path) else "")
            if stale:
                target = str(options.get("ref") or "?")
                skipped.append(Outcome(name, action, after=target, result="failed", message=stale))
                continue
            verdict = select(path, name) if _has_commit(path) else None
            if verdict is None:
                chosen.append(path)
            else:
                skipped.append(verdict)
        return chosen

    repos, config, commit, settings = autofix_lib.from_cli(
        args, find_repos=find_repos, msg="", branch_name=branch_name
    )
    config = config._replace(push_settings=token_free.key_in_settings(config.push_settings, taken))
    found = list(repos)
    repos = found[: settings.limit]
    # A canary wave: the rest are not rows (they were not looked at), only counted.
    held = len(found) - len(repos)
    subject = msg() if callable(msg) else msg
    # A host's changelog check may take a skip word in the pull request's title: the
    # pull-request push modules title it with the commit's subject.
    commit = commit._replace(msg=" ".join(filter(None, (subject, args.title_suffix))))
    options = {
        **options,
        # Outside the checks phase a repository's code never runs (token_free.py).
        "host_checks": bool(phase),
        "record": phase,
        "may_download": getattr(args, "host_checks_may_download", False),
        "log_diffs": args.log_diffs or args.diff or args.interactive,
    }
    if phase:  # the checks phase records its verdicts and pushes nothing
        settings = settings._replace(dry_run=True, interactive=False)
    outcomes: list[Outcome] = []
    ready = []
    for path in repos:
        name = names.get(path) or _label(path, config.output_dir)
        names[path] = name
        if _has_commit(path):
            ready.append(path)
        else:
            message = "not cloned: all-repos-clone could not fetch it (see its log)"
            target = str(options.get("ref") or options.get("vcs_ref") or "?")
            outcomes.append(Outcome(name, action, after=target, result="failed", message=message))

    # -i asks questions on the terminal, so it keeps all-repos' output there, as --diff does.
    log = None if args.diff or args.interactive else (args.log or _new_log(action))
    with tempfile.TemporaryDirectory(prefix="eco-mem-fleet.") as folder:
        # The count covers every repository the summary will list, skipped ones included.
        ledger = Ledger(folder, total=len(skipped) + len(outcomes) + len(ready))
        progress = None if quiet_progress() else Progress(ledger, _terminal())
        if progress:
            progress.start()
        for outcome in sorted(skipped + outcomes, key=lambda o: o.repo):
            ledger.finish(outcome)
        # Only where no repository code runs: the checks phase renders each repository in
        # a process of its own, and the push phase starts after it has ended with all it
        # started (token_free.py).
        wanted = bool(options.get("renders") and ready and not phase)
        with _renderer_for(options, folder, wanted) as options:
            job = Job(
                action=action,
                fixer=fixer,
                ledger=ledger,
                labels={git.remote(path): names[path] for path in ready},
                dry_run=settings.dry_run,
                options=options,
                names={path: names[path] for path in ready},
            )
            config = config._replace(push=functools.partial(push, job, config.push))
            with _output_to(log):
                fix_each(
                    ready,
                    job,
                    apply_fix=functools.partial(apply_fix, job),
                    check_fix=functools.partial(check_fix, job),
                    config=config,
                    commit=commit,
                    autofix_settings=settings,
                )
        outcomes += [_settled(ledger, names[path], action) for path in ready]
        if progress:
            progress.stop()
    wave = f"{held} more to act on, left for a later run by --limit {settings.limit}"
    checks = f"host checks log: {checks_log}" if checks_log else ""
    tail = "\n".join(filter(None, (wave if held else "", checks)))
    ordered = sorted(skipped + outcomes, key=lambda o: o.repo)
    return finish(ordered, None if phase else args.report, log, tail)


def add_output_args(parser: argparse.ArgumentParser) -> None:
    """--report, --diff, --log, the host-check switches and --title-suffix, shared by
    install and upgrade."""
    host_checks.add_host_check_args(parser)
    token_free.add_phase_arg(parser)
    parser.add_argument(
        "--title-suffix",
        metavar="TEXT",
        help="add TEXT to the commit's subject, which the pull-request push modules make"
        " the pull request's title: a changelog check's skip word, e.g. '[skip changelog]'",
    )
    parser.add_argument(
        "--report", metavar="FILE", help="also write one JSON object per repository"
    )
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument(
        "--diff",
        action="store_true",
        help="print all-repos' log (its git commands and every repository's diff) as it runs",
    )
    shown.add_argument(
        "--log",
        metavar="FILE",
        help="append all-repos' log here (default: a new eco-mem-fleet-ACTION-*.log in the"
        " temp folder); the summary names it",
    )
    parser.add_argument(
        "--log-diffs",
        action="store_true",
        help="keep each repository's whole diff in the log (an install's is about 17,000"
        " lines); by default the log holds a --stat of it",
    )


def _new_log(action: str) -> str:
    handle, path = tempfile.mkstemp(prefix=f"eco-mem-fleet-{action}-", suffix=".log")
    os.close(handle)
    return path


def _terminal() -> TextIO:
    """The operator's stderr, kept open while fd 2 points at the log."""
    try:
        return open(os.dup(sys.stderr.fileno()), "w", encoding="utf-8", errors="replace")
    except (AttributeError, OSError, ValueError):
        return sys.stderr


@contextlib.contextmanager
def _output_to(log: str | None) -> Iterator[None]:
    """Send file descriptors 1 and 2 to `log` (None: leave them), for this process and
    every worker it starts: all-repos prints each command and the whole diff of each
    repository, and git and Copier print too."""
    if log is None:
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log, "ab") as target:
        os.dup2(target.fileno(), 1)
        os.dup2(target.fileno(), 2)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, original in zip((1, 2), saved):
            os.dup2(original, fd)
            os.close(original)


def _label(path: str, output_dir: str) -> str:
    relative = os.path.relpath(os.path.abspath(path), output_dir)
    return path if relative.startswith("..") else relative


def _settled(ledger: Ledger, repo: str, action: str) -> Outcome:
    """The recorded outcome; a repository all-repos dropped on the way is a failure."""
    outcome = ledger.read(repo)
    if outcome is None:
        outcome = Outcome(
            repo, action, message="all-repos errored before the fix ran (see the log)"
        )
    elif not outcome.final:
        outcome.result = "failed"
        outcome.message = "changed but not pushed: declined, or the commit failed (see the log)"
    else:
        return outcome
    ledger.finish(outcome)
    return outcome


def finish(
    outcomes: Iterable[Outcome], report: str | None, log: str | None = None, wave: str = ""
) -> int:
    outcomes = list(outcomes)
    print(summary(outcomes), flush=True)
    if wave:
        print(wave, flush=True)
    if log:
        print(f"log (commands, diffs, errors): {log}", flush=True)
    if report:
        write_jsonl(report, outcomes)
    return exit_code(outcomes)
