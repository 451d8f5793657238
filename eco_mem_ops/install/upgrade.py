"""`ops.py upgrade`: `copier update` that cannot report success over a conflict.

Copier exits 0 even when it leaves conflict markers or .rej files behind, and
plain `copier update` ignores our answers file unless given `-a`. This wraps
both: it refuses a dirty tree, runs the update with the right answers file,
restores drawer INDEX files a team deleted, refreshes the AGENTS.md and
CLAUDE.md blocks and the .gitignore block, and then lists every conflict it
can find.

Every failure it can foresee (not a repository, a dirty tree, a template
that moved, a ref that does not exist) is one line and exit 2, checked
before Copier starts; anything else Copier raises is cut to its last line.

It runs only a template this clone was told to trust (template_source.py):
`--trust` lets Copier execute the template's tasks and migrations, so an
`_src_path` a commit changed is refused, never run. Nothing read from a file
reaches git as an option: `--` comes before it, and a source or ref that
starts with `-` is refused. (commands/upgrade.py answers an install that is
already at the newest tag before this module is even imported.)
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from ecomem import protocol
from ecomem.errors import UsageError
from ecomem.git import git
from ecomem.safe_open import make_folders, replace, write_text
from ecomem.store.load import INDEX

from . import template_source
from .answers import QUESTIONS, read_answers, read_text, refuse_folders_out_of_place
from .copier_run import released, run_copier
from .copier_setup import copier_command, install_hint, missing_extension, template_venv_bin
from .releases import Releases, answers_pinned, release_of
from .template_source import is_remote, location, refuse_option, same_template

# This checkout's launcher: the command a message tells the operator to run again.
OPS = Path(__file__).resolve().parents[2] / "ops.py"

# Copier options upgrade sets itself (the version rendered is taken by take_vcs_ref).
PINNED_BY_US = ("--answers-file", "--src-path")
UNMERGED = {"DD", "AU", "UD", "UA", "DU", "AA", "UU"}
MARKERS = ("<<<<<<< ", ">>>>>>> ")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)


def conflicts(root: Path) -> list[str]:
    """One line per conflicted file: unmerged paths, conflict markers, .rej files."""
    status = git(root, "status", "--porcelain", "--untracked-files=all").stdout
    found: dict[str, str] = {}
    for line in status.splitlines():
        code, path = line[:2], line[3:].strip('"')
        if " -> " in path:
            path = path.split(" -> ", 1)[1]
        if code in UNMERGED:
            found[path] = "unmerged in git: edit it, then `git add` it"
        elif path.endswith(".rej"):
            found[path] = (
                "hunks copier could not apply: merge them by hand into the file, then delete this .rej"
            )
        elif _has_markers(root / path):
            found[path] = "conflict markers: keep the right side, delete the markers"
    return [f"{path}: {advice}" for path, advice in sorted(found.items())]


def _has_markers(path: Path) -> bool:
    if not path.is_file() or path.is_symlink():
        return False
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return any(line.startswith(MARKERS) for line in handle)
    except OSError:
        return False


def restore_missing_indexes(
    root: Path, copier: list[str], answers: dict[str, str], releases: Releases
) -> list[str]:
    """Render the installed release into a scratch folder and copy back deleted INDEX files.

    Copier treats a template file the team deleted as a wish and does not
    recreate it; a drawer without its INDEX.md is broken, so we put it back.
    The render is of a release only (copier_run.run_copier).
    """
    memory = root / protocol.MEMORY_DIR
    missing = [d for d in protocol.DRAWERS if not (memory / d / INDEX).exists()]
    if not memory.is_dir() or not missing:
        return []
    # The questions only: Copier would take a computed value given as data as it is.
    asked = [(key, value) for key, value in answers.items() if key in QUESTIONS]
    data = [f"--data={key}={value}" for key, value in asked]
    source = answers.get("_src_path", "")
    installed = release_of(releases, answers.get("_commit", ""), "_commit", source)
    with tempfile.TemporaryDirectory(prefix="eco-mem-restore.") as scratch:
        options = ["--defaults", "--skip-tasks", "--quiet", f"--vcs-ref={installed.commit}", *data]
        code, reason = run_copier(root, copier, "copy", options, releases, scratch)
        if code != 0:
            # Say so: a missing INDEX must not hide behind a clean-looking upgrade.
            print(
                f"ops.py upgrade: could not restore deleted INDEX files: {reason}",
                file=sys.stderr,
            )
            return []
        restored = []
        for drawer in missing:
            rendered = Path(scratch) / protocol.MEMORY_DIR / drawer / INDEX
            if rendered.is_file():
                make_folders(root, memory / drawer)
                replace(root, memory / drawer / INDEX, rendered.read_bytes())
                restored.append(f"{protocol.MEMORY_DIR}/{drawer}/INDEX.md")
        return restored


def source_problem(source: str, root: Path) -> str:
    """Why Copier could not read the template at `source`, or "" if it can."""
    where = location(source, root)
    if is_remote(where):
        probe = subprocess.run(
            ["git", "ls-remote", "--exit-code", "--", where, "HEAD"],
            capture_output=True,
            text=True,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},  # never stop to ask for a password
        )
        if probe.returncode != 0:
            return (probe.stderr.strip().splitlines() or ["git ls-remote failed"])[-1]
        return ""
    local = Path(where)
    if not local.is_dir():
        return f"no folder {local}"
    if local == root.resolve():
        return "it names this repository itself (a relative path recorded by an old copy)"
    if git(local, "rev-parse", "--git-dir").returncode != 0:
        return f"{local} is not a git repository"
    return ""


def point_at_template(root: Path, answers_file: Path, source: str) -> None:
    """Trust `source` in this clone, and record it in the answers file when it is a new
    home, committed so Copier sees a clean tree."""
    refuse_option("--template", source)
    problem = source_problem(source, root)
    if problem:
        raise UsageError(f"--template {source} cannot be reached: {problem}")
    if not is_remote(location(source, root)):
        source = location(source, root)
    current = read_answers(answers_file).get("_src_path", "")
    if current and same_template(location(current, root), location(source, root)):
        template_source.remember(root, current)  # the same home, now trusted on purpose
        return
    text = read_text(answers_file)
    new, count = re.subn(r"(?m)^_src_path:.*$", f"_src_path: {source}", text)
    if count != 1:
        raise UsageError(f"{protocol.ANSWERS_FILE} has no single `_src_path:` line to change")
    write_text(root, answers_file, new, follow=True)
    message = f"eco-mem: the template now lives at {source}"
    committed = git(root, "commit", "-q", "-m", message, "--", protocol.ANSWERS_FILE)
    if committed.returncode != 0:
        write_text(root, answers_file, text, follow=True)
        raise UsageError(f"could not commit the new _src_path: {committed.stderr.strip()}")
    template_source.remember(root, source)
    print(f"{protocol.ANSWERS_FILE}: _src_path is now {source} (committed)")


def take_vcs_ref(args) -> None:
    """Move a `--vcs-ref` given to Copier after `--` onto upgrade's own option: the
    version is resolved against the releases here, and Copier gets its commit."""
    extra, found = [], []
    rest = iter(args.copier_args)
    for arg in rest:
        if arg in ("-r", "--vcs-ref"):
            found.append(next(rest, ""))
        elif arg.startswith("--vcs-ref="):
            found.append(arg.split("=", 1)[1])
        else:
            extra.append(arg)
    wanted = {ref for ref in [args.vcs_ref, *found] if ref}
    if len(wanted) > 1:
        raise UsageError(f"two versions asked for: {', '.join(sorted(wanted))}")
    args.vcs_ref, args.copier_args = (wanted.pop() if wanted else None), extra


def copier_arguments(args, commit: str) -> list[str]:
    """Options for `copier update`: ours, the release's commit, then whatever followed `--`."""
    extra = [arg for arg in args.copier_args if arg != "--"]
    chosen = [arg for arg in extra if arg == "-a" or arg.startswith(PINNED_BY_US)]
    if chosen:
        raise UsageError(f"{chosen[0]} after `--`: upgrade names the answers file itself")
    options = ["--vcs-ref", commit]
    # Without a terminal nobody can answer a question: use the recorded answers
    # (and defaults for new questions) instead of failing half-way.
    asked_already = {"--defaults", "-l", "-f"} & set(extra)
    if (args.defaults or not sys.stdin.isatty()) and not asked_already:
        options.append("--defaults")
    for pair in args.data:
        options += ["--data", pair]
    return options + extra


def refresh(root: Path, command: str) -> tuple[int, str]:
    """Run one of this checkout's operator commands (`blocks`, `track`) and return what
    it said: the release's code, never the repository's copy. `-I` keeps the script's
    folder off the front of sys.path."""
    if not OPS.is_file():
        return 0, ""
    done = subprocess.run(
        [sys.executable, "-I", str(OPS), command, "--root", str(root)],
        cwd=root,
        capture_output=True,
        text=True,
    )
    return done.returncode, (done.stdout + done.stderr).strip()


def ignored_install(root: Path) -> str:
    """Why git's ignore rules make an update unsafe here, or "".

    Copier computes what the team changed from git. A file git ignores looks
    deleted to it, and the update then deletes it for real.
    """
    from ecomem.gitsetup import track as tracking

    try:
        hidden = tracking.ask_git(root, tracking.paths_to_keep(root))
    except tracking.NotAWorkTree:
        return ""
    except tracking.GitRefused as refusal:
        return str(refusal)
    if not hidden:
        return ""
    path, hide = sorted(hidden.items())[0]
    return (
        f"git ignores {len(hidden)} eco-mem path(s), {path} among them ({hide}), and"
        f" copier update would take them for deleted files; run `{track_here(root)}`,"
        " commit, then upgrade"
    )


def track_here(root: Path) -> str:
    """The `track` command that runs in this install. The runtime names its own file,
    which a source-tree install (v0.4.x, `scripts/eco_mem.py`) does not hold yet: there,
    this checkout's track does the same work."""
    from ecomem.gitsetup import track as tracking

    if (root / protocol.SKILL_DIR / "scripts" / "eco_mem.pyz").is_file():
        return tracking.track_command()
    return f"python3 {shlex.quote(str(OPS))} track --root ."


def venv_hint(root: Path, answers_file: Path) -> str:
    """When the recorded template has Copier in its own .venv: how to use that one.

    Only for a template outside this repository, and after PATH's own folders: a
    folder the repository supplies must never come first when commands are found."""
    try:
        source = read_answers(answers_file).get("_src_path", "")
    except (OSError, UnicodeError):
        return ""
    found = None
    if source and os.path.isabs(source) and not is_remote(location(source, root)):
        inside = Path(location(source, root))
        if inside != root.resolve() and root.resolve() not in inside.parents:
            found = template_venv_bin(str(inside))
    if not found:
        return ". Install it with its extension"
    return (
        f". The template's own virtual environment has one: run `PATH=$PATH{os.pathsep}{found}"
        f" python3 {OPS} upgrade --root .`."
        " Or install Copier with its extension"
    )


def installed_answers(root: Path) -> Path:
    """The answers file of the install at `root`, or a usage error."""
    if git(root, "rev-parse", "--show-toplevel").returncode != 0:
        raise UsageError(f"{root} is not a git repository")
    answers_file = root / protocol.ANSWERS_FILE
    if not answers_file.is_file():
        raise UsageError(
            f"{protocol.ANSWERS_FILE} not found under {root}; is eco-mem installed here?"
        )
    return answers_file


def preflight(root: Path, args) -> tuple[Path, list[str]]:
    """Check everything that can be checked before Copier runs; return answers file and copier."""
    take_vcs_ref(args)
    answers_file = installed_answers(root)
    copier = copier_command()
    if copier is None:
        raise UsageError(
            f"copier not found on PATH{venv_hint(root, answers_file)}: {install_hint()}"
        )
    if missing_extension(copier):
        raise UsageError(
            f"{copier[0]} cannot import copier_template_extensions, which this template"
            f" loads; add it beside copier: {install_hint()}"
        )
    if git(root, "status", "--porcelain").stdout.strip():
        raise UsageError(
            "refusing to start: the working tree has uncommitted changes; commit or stash them first"
        )
    hidden_problem = ignored_install(root)
    if hidden_problem:
        raise UsageError(hidden_problem)
    if args.template:
        point_at_template(root, answers_file, args.template)
    answers = read_answers(answers_file)
    refuse_folders_out_of_place(root, answers)
    source = answers.get("_src_path", "")
    template_source.check_trusted(root, source, protocol.ANSWERS_FILE)
    problem = source_problem(source, root)
    if problem:
        raise UsageError(
            f"_src_path in {protocol.ANSWERS_FILE} ({source}) cannot be reached: {problem}."
            " If the template moved, run: ops.py upgrade --template NEW-URL-OR-PATH"
        )
    if args.vcs_ref:
        refuse_option("--vcs-ref", args.vcs_ref)
    return answers_file, copier


def strip_rows(root: Path) -> None:
    """Move desk rows out of the working INDEX (desks are listed by their files now)."""
    from .desk_rows import strip_desk_rows

    try:
        moved = strip_desk_rows(root)
    except UnicodeDecodeError as error:
        raise UsageError(
            f"{protocol.MEMORY_DIR}/working/INDEX.md: not UTF-8 ({error.reason})"
        ) from None
    if moved:
        print(
            f"{protocol.MEMORY_DIR}/working/INDEX.md: {moved} desk row(s) removed;"
            " desks are listed by their files now. Commit the INDEX."
        )


def restore_command(root: Path, in_use: str = "") -> int:
    """`ops.py restore-indexes`: the INDEX restore alone, for the after-migration."""
    strip_rows(root)
    memory = root / protocol.MEMORY_DIR
    if all((memory / drawer / INDEX).exists() for drawer in protocol.DRAWERS):
        return 0  # the usual case: nothing to render, copier not needed
    copier = copier_command()
    answers_file = root / protocol.ANSWERS_FILE
    if copier is None or not answers_file.is_file():
        raise UsageError("needs copier and the answers file")
    answers = read_answers(answers_file)
    with released(root, answers.get("_src_path", ""), in_use) as releases:
        for path in restore_missing_indexes(root, copier, answers, releases):
            print(f"restored {path} from the template")
    return 0


def way_off_untagged(releases: Releases, wanted: str | None) -> str:
    """The command that moves an install made from an untagged commit (`copier copy
    --vcs-ref HEAD`, or a template with no tags then) to a release, for the refusal's
    line. upgrade renders the installed version first, and only releases are rendered;
    `copier recopy` renders the release alone, over the install, and --skip keeps every
    drawer INDEX, so every row. It replaces local edits of eco-mem's own files: hence
    the `git diff` before the commit."""
    target = releases.named(wanted) if wanted else releases.newest()
    if target is None:
        return ""
    return (
        f". An install from an untagged commit moves to {target.tag} by rendering that"
        " release over it, every INDEX kept; check `git diff`, then commit: copier recopy"
        f" --trust --defaults --overwrite -a {protocol.ANSWERS_FILE} --vcs-ref {target.tag}"
        f" --skip '{protocol.MEMORY_DIR}/*/INDEX.md'"
    )


def run(root: Path, args) -> int:
    answers_file, copier = preflight(root, args)
    answers = read_answers(answers_file)
    before, source = answers.get("_commit", "?"), answers.get("_src_path", "")
    # One snapshot of the releases for the whole upgrade: both renders and the INDEX
    # restore read it, so a tag moved meanwhile changes nothing here.
    with released(root, source, given=getattr(args, "releases", "") or "") as releases:
        try:
            installed = release_of(releases, before, f"_commit in {protocol.ANSWERS_FILE}", source)
        except UsageError as refusal:
            raise UsageError(f"{refusal}{way_off_untagged(releases, args.vcs_ref)}") from None
        if args.vcs_ref:
            target = release_of(releases, args.vcs_ref, "--vcs-ref", source)
        else:
            target = releases.newest()
            if target is None:
                raise UsageError(f"{source} has pre-releases only; name one with --vcs-ref")
        options = ["-a", protocol.ANSWERS_FILE, *copier_arguments(args, target.commit)]
        with answers_pinned(root, releases, installed):
            code, crash = run_copier(root, copier, "update", options, releases, stream=True)
        answers = read_answers(answers_file)  # as the update left them
        after = answers.get("_commit", "?")

        if "--skip-tasks" in args.copier_args:
            strip_rows(root)  # the after-migration's other half, which --skip-tasks skipped
        restored = restore_missing_indexes(root, copier, answers, releases)
    # The after-migrations already ran these between tags; run them again for
    # untagged updates, and speak only when they changed something.
    for command_name in ("blocks", "track"):
        status, said = refresh(root, command_name)
        if status != 0 or (said and said != "blocks already current"):
            print(said, file=sys.stderr if status else sys.stdout)

    problems = conflicts(root)
    for path in restored:
        print(f"restored {path} from the template")
    if problems:
        print(
            f"eco-mem upgrade {before} -> {after} left {len(problems)} conflict(s):",
            file=sys.stderr,
        )
        for line in problems:
            print(f"  {line}", file=sys.stderr)
        print("Resolve them, run verify, then commit.", file=sys.stderr)
        return 1
    if code != 0:
        raise UsageError(f"copier update failed: {crash or f'exit {code}'}")
    if not git(root, "status", "--porcelain").stdout.strip():
        print(f"eco-mem is already at {after}; nothing changed")
    elif before == after:
        print(f"eco-mem {after} re-applied; review `git diff`, run verify, commit")
    else:
        print(f"eco-mem upgraded {before} -> {after}; review `git diff`, run verify, commit")
    return 0
