"""What happens inside one repository's scratch clone (run in all-repos' workers).

Each fixer returns the repository's Outcome and leaves the clone either with
its changes staged (all-repos commits and pushes them) or exactly as cloned
(nothing is committed or pushed).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import copier
from copier.errors import TaskError

from eco_mem_fleet.autofix import Job, discard_changes
from eco_mem_fleet.report import Outcome
from eco_mem_fleet.versions import is_older, newest_tag, read_answers, script_path

HERE = Path(".")  # all-repos runs the fix with the scratch clone as working directory
# `eco_mem.py upgrade` lists each conflicted file on stderr as "  PATH: what to do".
CONFLICT_LINE = re.compile(r"^  (\S.*?): ")
# `eco_mem.py track` names each hiding rule on its own line: "SOURCE:LINE `PATTERN` hides PATH".
HIDES_LINE = re.compile(r"^(?:eco_mem\.py \w+: )?(\S+:\d+ `.*` hides \S+)$")


def hiding_rules(stderr: str) -> str:
    """The hiding file and rule from track's advice, as one line; empty if it named none."""
    found = [match.group(1) for match in map(HIDES_LINE.match, stderr.splitlines()) if match]
    return "; ".join(dict.fromkeys(found))


def track_reason(answers: dict | None) -> str:
    """Why the copy's `track` task failed, asked of the rendered script (its files stay)."""
    script = script_path(HERE, answers or {})
    if not script.is_file():
        return ""
    track = subprocess.run(
        [sys.executable, str(script), "track", "--root", "."],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    sys.stdout.write(track.stdout + track.stderr)  # into all-repos' log for this repo
    rules = hiding_rules(track.stderr)
    if not rules:
        return ""
    return (
        f"a nested .gitignore hides eco-mem: {rules}; add the lines `eco_mem.py track`"
        " prints to that file, then rerun; nothing pushed"
    )


def stage_everything() -> list[str]:
    """`git add -A` (all-repos commits tracked files only); return what .gitignore hid."""
    subprocess.run(["git", "add", "-A"], check=True, capture_output=True)
    hidden = subprocess.run(
        ["git", "ls-files", "--others", "--ignored", "--exclude-standard"],
        check=True,
        capture_output=True,
        text=True,
    )
    return hidden.stdout.splitlines()


def hidden_failure(outcome: Outcome, hidden: list[str]) -> Outcome:
    """Memory git cannot see is lost memory: refuse to push half an install."""
    rule = subprocess.run(
        ["git", "check-ignore", "--verbose", "--no-index", "--", hidden[0]],
        capture_output=True,
        text=True,
    ).stdout.split("\t")[0]  # "SOURCE:LINE:PATTERN", the rule that hides it
    outcome.result = "failed"
    outcome.message = (
        f"the host .gitignore hides {len(hidden)} installed file(s), e.g. {hidden[0]}"
        f" (rule {rule or '?'}); nothing pushed"
    )
    discard_changes()
    return outcome


def already_installed(repo: str, answers: dict, target: str) -> Outcome:
    """A skipped install shows the version it has and the one this run installs."""
    installed = str(answers.get("_commit", "?"))
    message = "already installed"
    if installed != target:
        message += f" at {installed}; `python -m eco_mem_fleet.upgrade` moves it to {target}"
    return Outcome(repo, "install", installed, target, "skipped", message=message)


def install_one(job: Job, repo: str) -> Outcome:
    ref = job.options["ref"]
    answers = read_answers(HERE)
    if answers is not None:
        return already_installed(repo, answers, ref)
    outcome = Outcome(repo, "install", before="-", after=ref)
    try:
        copier.run_copy(
            job.options["template"],
            ".",
            data=job.options["data"],
            defaults=True,
            unsafe=True,
            quiet=True,
            vcs_ref=job.options["vcs_ref"],
        )
    except TaskError:
        # Copier names only the failed command; the rendered files are still here,
        # so ask track itself which host rule hides them.
        outcome.message = track_reason(read_answers(HERE))
        if not outcome.message:
            raise
        discard_changes()
        return outcome
    hidden = stage_everything()
    if hidden:
        return hidden_failure(outcome, hidden)
    outcome.after = str((read_answers(HERE) or {}).get("_commit", ref))
    outcome.result = "installed"
    return outcome


def upgrade_one(job: Job, repo: str) -> Outcome:
    answers = read_answers(HERE)
    if answers is None:
        return Outcome(repo, "upgrade", result="skipped", message="eco-mem not installed")
    before = str(answers.get("_commit", "?"))
    source = str(answers.get("_src_path"))
    target = job.options["vcs_ref"] or job.options["newest"].get(source) or newest_tag(source)
    outcome = Outcome(repo, "upgrade", before=before, after=target or "?")
    if not target:
        outcome.message = f"no version tag found at {answers.get('_src_path')}"
        return outcome
    if not is_older(before, target):
        outcome.result, outcome.message = "skipped", f"already at {before}"
        return outcome
    script = script_path(HERE, answers)
    if not script.is_file():
        outcome.message = f"{script} is missing; reinstall eco-mem"
        return outcome
    # The rendered upgrade owns conflict detection, INDEX restore and the blocks.
    command = [sys.executable, str(script), "upgrade", "--root", "."]
    command += ["--", "--defaults", "--vcs-ref", target]
    upgrade = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    sys.stdout.write(upgrade.stdout + upgrade.stderr)  # into all-repos' log for this repo
    outcome.after = str((read_answers(HERE) or {}).get("_commit", target))
    if upgrade.returncode == 0:
        hidden = stage_everything()
        if hidden:
            return hidden_failure(outcome, hidden)
        outcome.result = "upgraded"
        return outcome
    if upgrade.returncode == 1:
        outcome.result = "conflict"
        outcome.conflicts = [
            match.group(1)
            for match in map(CONFLICT_LINE.match, upgrade.stderr.splitlines())
            if match
        ]
        outcome.message = "not pushed: run `eco_mem.py upgrade` in a clone and resolve"
    else:
        lines = upgrade.stderr.strip().splitlines() or [f"exit {upgrade.returncode}"]
        rules = hiding_rules(upgrade.stderr)
        outcome.message = f"a nested .gitignore hides eco-mem: {rules}" if rules else lines[-1]
    discard_changes()
    return outcome
