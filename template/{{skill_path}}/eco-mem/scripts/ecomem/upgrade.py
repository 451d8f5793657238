"""`eco_mem.py upgrade`: `copier update` that cannot report success over a conflict.

Copier exits 0 even when it leaves conflict markers or .rej files behind, and
plain `copier update` ignores our answers file unless given `-a`. This wraps
both: it refuses a dirty tree, runs the update with the right answers file,
restores drawer INDEX files a team deleted, refreshes the AGENTS.md and
CLAUDE.md blocks, and then lists every conflict it can find.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import protocol

UNMERGED = {"DD", "AU", "UD", "UA", "DU", "AA", "UU"}
MARKERS = ("<<<<<<< ", ">>>>>>> ")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)


def copier_command() -> list[str] | None:
    """How to call copier here: on PATH, else as a module of this Python."""
    found = shutil.which("copier")
    if found:
        return [found]
    probe = subprocess.run([sys.executable, "-c", "import copier"], capture_output=True)
    return [sys.executable, "-m", "copier"] if probe.returncode == 0 else None


def read_answers(path: Path) -> dict[str, str]:
    """Top-level `key: value` scalars of the answers file (no YAML library needed)."""
    answers = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(("#", " ", "-")) or ":" not in line:
            continue
        key, _, value = line.partition(":")
        answers[key.strip()] = value.strip().strip("'\"")
    return answers


def conflicts(root: Path) -> list[str]:
    """One line per conflicted file: unmerged paths, conflict markers, .rej files."""
    status = _git(root, "status", "--porcelain", "--untracked-files=all").stdout
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


def restore_missing_indexes(root: Path, copier: list[str], answers: dict[str, str]) -> list[str]:
    """Render the installed version into a scratch folder and copy back deleted INDEX files.

    Copier treats a template file the team deleted as a wish and does not
    recreate it; a drawer without its INDEX.md is broken, so we put it back.
    """
    memory = root / protocol.MEMORY_DIR
    missing = [d for d in protocol.DRAWERS if not (memory / d / "INDEX.md").exists()]
    if not memory.is_dir() or not missing:
        return []
    data = [f"--data={key}={value}" for key, value in answers.items() if not key.startswith("_")]
    with tempfile.TemporaryDirectory(prefix="eco-mem-restore.") as scratch:
        command = [*copier, "copy", "--trust", "--defaults", "--skip-tasks", "--quiet"]
        command += ["--vcs-ref", answers.get("_commit", "HEAD"), *data]
        command += [answers["_src_path"], scratch]
        render = subprocess.run(command, capture_output=True, text=True)
        if render.returncode != 0:
            # Say so: a missing INDEX must not hide behind a clean-looking upgrade.
            reason = (render.stderr.strip().splitlines() or ["copier copy failed"])[-1]
            print(
                f"eco_mem.py upgrade: could not restore deleted INDEX files: {reason}",
                file=sys.stderr,
            )
            return []
        restored = []
        for drawer in missing:
            source = Path(scratch) / protocol.MEMORY_DIR / drawer / "INDEX.md"
            if source.is_file():
                (memory / drawer).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, memory / drawer / "INDEX.md")
                restored.append(f"{protocol.MEMORY_DIR}/{drawer}/INDEX.md")
        return restored


def run(root: Path, args) -> int:
    if _git(root, "rev-parse", "--git-dir").returncode != 0:
        print(f"eco_mem.py upgrade: {root} is not a git repository", file=sys.stderr)
        return 2
    dirty = _git(root, "status", "--porcelain").stdout
    if dirty.strip():
        print(
            "eco_mem.py upgrade: refusing to start: the working tree has uncommitted changes;"
            " commit or stash them first",
            file=sys.stderr,
        )
        return 2
    answers_file = root / protocol.ANSWERS_FILE
    if not answers_file.is_file():
        print(
            f"eco_mem.py upgrade: {protocol.ANSWERS_FILE} not found under {root}", file=sys.stderr
        )
        return 2
    copier = copier_command()
    if copier is None:
        print(
            "eco_mem.py upgrade: copier not found; install it (pip install copier)", file=sys.stderr
        )
        return 2
    before = read_answers(answers_file).get("_commit", "?")
    extra = [arg for arg in args.copier_args if arg != "--"]
    command = [*copier, "update", "--trust", "-a", protocol.ANSWERS_FILE, *extra]
    update = subprocess.run(command, cwd=root)
    answers = read_answers(answers_file)  # as the update left them
    after = answers.get("_commit", "?")

    restored = restore_missing_indexes(root, copier, answers)
    # Refresh the blocks with the script the update just installed.
    script = root / protocol.SKILL_DIR / "scripts" / "eco_mem.py"
    if script.is_file():
        subprocess.run([sys.executable, str(script), "blocks", "--root", str(root)], cwd=root)

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
    if update.returncode != 0:
        print(
            f"eco_mem.py upgrade: copier update failed (exit {update.returncode})", file=sys.stderr
        )
        return 2
    print(f"eco-mem upgraded {before} -> {after}; review `git diff`, run verify, commit")
    return 0
