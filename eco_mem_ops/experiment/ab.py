"""`experiment plant ab` and scoring an A/B plant: does memory change the result of a
team's own task, and what does it cost to read?

Plant clones HEAD three times into DIR (per round with `--runs N`): `eco-mem`, the store
as it is; `pile`, eco-mem taken out and every catalog row and entry body put in one
AGENTS.md section (pile.py); `none`, eco-mem taken out and nothing in its place. Every
arm gets the same prompt, the task text as given. The manifest (task, check, arms) is in
DIR, outside every arm, so an agent working in one does not see it next to its files.

Score runs the team's check in a copy of each arm (so the check's own files never look
like an agent's work), and reports per arm: the check's result, the memory bytes the
agent read, the entries it opened and the signs that an agent ran. Bytes read are what
the harness always loads (the AGENTS.md block and the skill's description, or the whole
pile) plus every memory file the agent opened: from its transcript, or else from access
times, counted only after the agent's first memory command (atime.py). An arm with no
sign of an agent run is INCONCLUSIVE, whatever its check says.

With `--writer FILE` the notes are written by agents first (issue 46): plant from an
install whose store is empty, give the eco-mem and pile arms a writer session with the
file's text (the rules as the user states them), then `experiment tasks DIR` commits
what each wrote and starts the task sessions on it, and score counts only theirs.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from ecomem import protocol
from ecomem.errors import Refused
from ecomem.experiment_clone import memory_files
from ecomem.git import output as git_output
from ecomem.safe_open import write_text

from . import atime as experiment_atime
from . import evidence as experiment_evidence
from . import key as experiment_key

ARMS = ("eco-mem", "pile", "none")
MANIFEST = ".eco-mem-ab.json"
CHECK_TIMEOUT = 600  # seconds; a check that hangs fails
# Neutral commit messages: the log an agent may read says nothing of an experiment.
MESSAGES = {"pile": "docs: project notes in AGENTS.md", "none": "chore: drop agent tooling"}


def arm_names(runs: int) -> list[tuple[str, str]]:
    """(name, arm) for every arm of every round: `eco-mem`, or `eco-mem-2` past one round."""
    if runs == 1:
        return [(arm, arm) for arm in ARMS]
    return [(f"{arm}-{k}", arm) for k in range(1, runs + 1) for arm in ARMS]


# plant ----------------------------------------------------------------------------------


def plant(
    start: Path, into: Path, task: str, check: str, runs: int, writer: str | None = None
) -> dict:
    """Clone HEAD into one folder per arm and round under `into`; the plant's summary.
    With `writer` (what a user tells an agent about the team's rules, as they would say
    it), the eco-mem and pile arms first get a writer session with that text, and
    `tasks_after_writer` then commits what each wrote and plants the task sessions."""
    from .plant import check_target

    if not task.strip() or not check.strip():
        raise Refused("--task and --check must not be empty")
    if runs < 1:
        raise Refused("--runs must be at least 1")
    try:
        source = Path(git_output(start, "rev-parse", "--show-toplevel")).resolve()
        head = git_output(source, "rev-parse", "--verify", "HEAD")
    except OSError as error:
        raise Refused(f"{start} is not a git repository with a commit ({error})") from None
    existed = check_target(source, into)
    into.mkdir(parents=True, exist_ok=True)
    prompt = task.strip()
    arms = {}
    try:
        for name, arm in arm_names(runs):
            path = into.resolve() / name
            git_output(source, "clone", "--quiet", "--no-hardlinks", "--", str(source), str(path))
            _prepare(path, arm, head)
            arms[name] = {"arm": arm, "path": name}
        manifest = {
            "version": 1,
            "task": task,
            "prompt": prompt,
            "check": check,
            "runs": runs,
            "source_head": head,
            "arms": arms,
        }
        if writer is not None:
            manifest["writer"] = writer.strip()
            manifest["phase"] = "writer"
        write_text(into, into / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    except BaseException:
        _undo(into, existed)
        raise
    planted = {
        "dir": str(into.resolve()),
        "arms": {name: str(into.resolve() / name) for name in arms},
        "prompts": {name: prompt for name in arms},
    }
    if writer is not None:
        planted["writer_prompts"] = {
            name: writer.strip() for name, info in arms.items() if info["arm"] in WRITERS
        }
    return planted


# The arms whose agent is told the rules in a writer session; `none` keeps no notes.
WRITERS = ("eco-mem", "pile")
WRITTEN = "docs: team notes"


def tasks_after_writer(folder: Path) -> dict:
    """The writer sessions are over: commit what each wrote, and plant the task sessions
    on it. Every arm's answer key starts again (access times reset, the snapshots of the
    writer's own find and verify dropped, what the harness always loads measured anew),
    so score counts only what the task sessions read. Per arm: the files the writer
    changed and their bytes, what a reader of that arm is then always handed."""
    from .plant import commit_as_kit

    manifest = load_manifest(folder)
    if manifest is None or manifest.get("phase") != "writer":
        raise Refused(f"{folder} holds no A/B plant waiting for its writer sessions")
    written = {}
    for name, info in manifest["arms"].items():
        clone = Path(folder) / info["path"]
        changed = git_output(clone, "status", "--porcelain", "--untracked-files=all")
        files = sorted(line[3:] for line in changed.splitlines() if line.strip())
        if files:
            commit_as_kit(clone, WRITTEN)
        key = experiment_key.load(clone) or {}
        if info["arm"] == "eco-mem":
            from ecomem.store.answers import settle

            settle(clone)  # where this arm keeps its skill and memory
            key["always_loaded"] = always_loaded_eco_mem(clone)
            watched = memory_files(clone, key.get("memory_dir", protocol.MEMORY_DIR))
            watched += skill_files(clone)
        else:
            agents = clone / "AGENTS.md"
            size = agents.stat().st_size if agents.is_file() else 0
            key["always_loaded"] = {"AGENTS.md as written": size} if size else {}
            watched = []
        for path in experiment_key.snapshots_paths(clone):
            if path.is_file():
                path.unlink()
        key["planted_head"] = git_output(clone, "rev-parse", "HEAD")
        key["atime"] = experiment_atime.reset(clone, watched)
        experiment_key.save(clone, key)
        written[name] = {
            "files_written": files,
            "bytes_written": sum(_size(clone / file) for file in files),
            "always_loaded": key["always_loaded"],
        }
    manifest["phase"] = "tasks"
    write_text(folder, Path(folder) / MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return {
        "dir": str(folder),
        "written": written,
        "prompts": {n: manifest["prompt"] for n in manifest["arms"]},
    }


def _undo(into: Path, existed: bool) -> None:
    if not existed:
        shutil.rmtree(into, ignore_errors=True)
        return
    for child in os.scandir(into):
        if child.is_dir(follow_symlinks=False):
            shutil.rmtree(child.path)
        else:
            os.unlink(child.path)


def _prepare(clone: Path, arm: str, head: str) -> None:
    git_output(clone, "remote", "remove", "origin")
    if git_output(clone, "rev-parse", "HEAD") != head:  # a detached source HEAD
        git_output(clone, "checkout", "--quiet", "--detach", head)
    memory = protocol.MEMORY_DIR
    if not (clone / memory / "semantic" / "INDEX.md").is_file():
        raise Refused(f"HEAD has no {memory}/semantic/INDEX.md; commit the eco-mem install first")
    key: dict = {"version": 1, "kind": "ab", "arm": arm, "memory_dir": memory}
    if arm == "eco-mem":
        key["always_loaded"] = always_loaded_eco_mem(clone)
        files = memory_files(clone, memory) + skill_files(clone)
    else:
        from .pile import pile_text

        pile = pile_text(clone) if arm == "pile" else ""
        claude_saw_agents = (clone / "CLAUDE.md").is_file()
        _take_out_eco_mem(clone)
        if pile:
            agents = clone / "AGENTS.md"
            before = agents.read_text(encoding="utf-8") if agents.is_file() else ""
            separator = "\n" if before and not before.endswith("\n\n") else ""
            write_text(clone, agents, before + separator + pile)
            if claude_saw_agents:
                _keep_claude_reading_agents(clone)
        key["always_loaded"] = {"AGENTS.md pile": len(pile.encode("utf-8"))} if pile else {}
        from .plant import commit_as_kit  # here, as check_target is: plant at load is a cycle

        commit_as_kit(clone, MESSAGES[arm])
        files = []
    key["planted_head"] = git_output(clone, "rev-parse", "HEAD")
    key["atime"] = experiment_atime.reset(clone, files)
    experiment_key.save(clone, key)


def skill_files(clone: Path) -> list[str]:
    """SKILL.md and its references: what an agent reads to learn the rules."""
    skill = clone / protocol.SKILL_DIR
    found = [f"{protocol.SKILL_DIR}/SKILL.md"] if (skill / "SKILL.md").is_file() else []
    references = skill / "references"
    if references.is_dir():
        found += [
            f"{protocol.SKILL_DIR}/references/{name}"
            for name in sorted(os.listdir(references))
            if name.endswith(".md")
        ]
    return found


def always_loaded_eco_mem(clone: Path) -> dict:
    """Bytes a harness hands every session: the AGENTS.md block, the skill's front matter."""
    from ecomem.gitsetup.markers import locate_block
    from ecomem.hostfiles.blocks import MARKDOWN_MARKERS

    loaded = {}
    agents = clone / "AGENTS.md"
    if agents.is_file():
        lines = agents.read_text(encoding="utf-8").splitlines(keepends=True)
        found = locate_block(lines, "AGENTS.md", MARKDOWN_MARKERS)
        if found:
            loaded["AGENTS.md block"] = len("".join(lines[found[0] : found[1] + 1]).encode())
    skill = clone / protocol.SKILL_DIR / "SKILL.md"
    if skill.is_file():
        text = skill.read_text(encoding="utf-8")
        if text.startswith("---\n") and "\n---\n" in text[4:]:
            front = text[: text.index("\n---\n", 4) + 5]
            loaded["SKILL.md front matter"] = len(front.encode("utf-8"))
    return loaded


def _keep_claude_reading_agents(clone: Path) -> None:
    """Claude Code reads CLAUDE.md, not AGENTS.md: where the eco-mem arm's CLAUDE.md
    imported AGENTS.md, the pile's must too, or that arm would load no memory at all."""
    claude = clone / "CLAUDE.md"
    text = claude.read_text(encoding="utf-8") if claude.is_file() else ""
    if "@AGENTS.md" not in text.split():
        write_text(
            clone,
            claude,
            text + ("\n" if text and not text.endswith("\n") else "") + "@AGENTS.md\n",
        )


def _take_out_eco_mem(clone: Path) -> None:
    """Every file the install wrote, the memory folder too (uninstall's own plan)."""
    import argparse

    from ..install import uninstall

    uninstall.apply(uninstall.plan(clone, argparse.Namespace(memory=True, dry_run=False)))


# score ----------------------------------------------------------------------------------


def load_manifest(folder: Path) -> dict | None:
    path = Path(folder) / MANIFEST
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def score(folder: Path, manifest: dict, traces: dict) -> dict:
    """Every arm's row, then one aggregate row per arm kind; `traces` maps a name to its
    transcripts as [(file name, Trace)]."""
    rows = []
    for name, info in manifest["arms"].items():
        rows.append(_score_arm(folder / info["path"], name, info["arm"], manifest, traces))
    aggregate = []
    for arm in ARMS:
        mine = [row for row in rows if row["kind"] == arm]
        ran = [row for row in mine if row["evidence"]]
        aggregate.append(
            {
                "arm": arm,
                "rounds": len(mine),
                "rounds_with_agent": len(ran),
                "checks_passed": sum(1 for row in ran if row["check"]),
                "mean_memory_bytes_read": _mean([row["memory_bytes_read"] for row in ran]),
                "mean_entries_opened": _mean([row["entries_opened"] for row in ran]),
            }
        )
    inconclusive = [row["arm"] for row in rows if not row["evidence"]]
    return {
        "version": 1,
        "dir": str(folder),
        "task": manifest["task"],
        "check_command": manifest["check"],
        "arms": rows,
        "aggregate": aggregate,
        "inconclusive": inconclusive,
    }


def _mean(values: list[int]) -> float | None:
    return round(sum(values) / len(values), 1) if values else None


def _score_arm(clone: Path, name: str, arm: str, manifest: dict, traces: dict) -> dict:
    from .score import _opened_in_traces, counted_reads

    key = experiment_key.load(clone) or {}
    memory = key.get("memory_dir", protocol.MEMORY_DIR)
    given = traces.get(name, [])
    names = [file for file, _trace in given]
    runs = [trace for _file, trace in given]
    notes: list[str] = []
    opened: list[str] = []
    reads = None
    if arm == "eco-mem" and key:
        if runs:
            found, _elsewhere, notes = _opened_in_traces(clone, memory, runs)
            opened = sorted(found)
            notes.insert(0, f"reads from the transcript{'s' if len(runs) > 1 else ''}")
        else:
            # Access times first: git (evidence) may re-read files whose stat changed.
            reads = experiment_atime.opened(clone, key)
            opened = reads.opened or []
            notes += counted_reads(reads)
            if reads.hides_later_reads:
                notes.append(
                    "the bytes read are a lower bound: on this relatime mount the agent's"
                    " reads of files an observer read first leave no trace"
                )
    loaded = key.get("always_loaded", {})
    read_bytes = sum(_size(clone / relpath) for relpath in opened)
    ran = experiment_evidence.run_evidence(clone, key, runs, names, opened) if key else []
    passed, shown = _run_check(clone, manifest["check"], key.get("atime", {}).get("files", []))
    entries = [path for path in opened if path.startswith(memory + "/")]
    entries = [path for path in entries if not path.endswith("/INDEX.md")]
    return {
        "arm": name,
        "kind": arm,
        "check": passed,
        "check_output": shown,
        "memory_bytes_read": sum(loaded.values()) + read_bytes,
        "always_loaded": loaded,
        "files_read": opened,
        "entries_opened": len(entries),
        "evidence": ran,
        "notes": notes,
    }


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _run_check(clone: Path, command: str, watched: list[str]) -> tuple[bool, str]:
    """The team's check, run in a copy of the arm: its caches and reports stay out of the
    arm, where they would look like the agent's work at the next score. Copying reads
    every file: the `watched` ones get their access times back, the scorer's reads being
    no agent's."""
    stamps = {}
    for relpath in watched:
        try:
            stamps[relpath] = (clone / relpath).stat()
        except OSError:
            continue
    with tempfile.TemporaryDirectory(prefix="eco-mem-ab-check-") as scratch:
        copy = Path(scratch) / clone.name
        try:
            shutil.copytree(clone, copy, symlinks=True)
        finally:
            for relpath, stamp in stamps.items():
                os.utime(clone / relpath, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
        try:
            done = subprocess.run(
                command,
                shell=True,
                cwd=copy,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=CHECK_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return False, f"timed out after {CHECK_TIMEOUT} s"
    tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or [""]
    return done.returncode == 0, f"exit {done.returncode}: {tail[0][:200]}".rstrip(": ")


def markdown(report: dict) -> str:
    """The report as a Markdown page: the table first, then how each arm was read."""
    lines = [
        f"# A/B: {report['task'].strip().splitlines()[0][:80]}",
        "",
        f"Check: `{report['check_command']}`",
        "",
        "| arm | check | memory bytes read | entries opened | agent ran |",
        "|---|---|---|---|---|",
    ]
    for row in report["arms"]:
        check = "pass" if row["check"] else "fail"
        ran = "; ".join(row["evidence"]) if row["evidence"] else "INCONCLUSIVE: no sign of one"
        lines.append(
            f"| {row['arm']} | {check} | {row['memory_bytes_read']} | {row['entries_opened']}"
            f" | {ran} |"
        )
    if any(row["rounds"] > 1 for row in report["aggregate"]):
        lines += [
            "",
            "| arm | rounds with an agent | checks passed | mean bytes read | mean entries |",
            "|---|---|---|---|---|",
        ]
        for row in report["aggregate"]:
            lines.append(
                f"| {row['arm']} | {row['rounds_with_agent']} of {row['rounds']}"
                f" | {row['checks_passed']} | {row['mean_memory_bytes_read']}"
                f" | {row['mean_entries_opened']} |"
            )
    lines += ["", "## What was counted", ""]
    for row in report["arms"]:
        loaded = ", ".join(f"{what} {size} B" for what, size in row["always_loaded"].items())
        lines.append(
            f"- {row['arm']}: always loaded: {loaded or 'nothing'}; check {row['check_output']}"
        )
        lines += [f"  - {note.strip()}" for note in row["notes"]]
        lines += [f"  - read: {path}" for path in row["files_read"]]
    if report["inconclusive"]:
        lines += [
            "",
            f"INCONCLUSIVE: no sign that an agent ran in {', '.join(report['inconclusive'])};"
            " a check's result there says nothing about memory.",
        ]
    return "\n".join(lines) + "\n"
