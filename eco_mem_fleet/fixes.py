"""What happens inside one repository's scratch clone (run in all-repos' workers).

Each fixer returns the repository's Outcome and leaves the clone either with
its changes staged (all-repos commits and pushes them) or exactly as cloned
(nothing is committed or pushed).

Nothing here runs the repository's own scripts: Copier runs with its tasks and
migrations skipped, and the commands they would run come from the fleet's own
checkout of its template (own_scripts.py). Every render and checkout is of a release
from the run's snapshot (releases.py), in a process with no token (clean_env.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from eco_mem_fleet.autofix import Job, discard_changes
from eco_mem_fleet.own_scripts import OwnScripts, refusal, render_release, unreleased
from eco_mem_fleet.report import Outcome
from eco_mem_fleet.versions import ANSWERS_FILE, is_older, read_answers

HERE = Path(".")  # all-repos runs the fix with the scratch clone as working directory
# `ops.py upgrade` lists each conflicted file on stderr as "  PATH: what to do".
CONFLICT_LINE = re.compile(r"^  (\S.*?): ")
# `eco_mem.pyz track` names each hiding rule on its own line: "SOURCE:LINE `PATTERN` hides PATH".
HIDES_LINE = re.compile(r"^(?:(?:eco_mem\.pyz?|ops\.py) [\w-]+: )?(\S+:\d+ `.*` hides \S+)$")


def hiding_rules(stderr: str) -> str:
    """The hiding file and rule from track's advice, as one line; empty if it named none."""
    found = [match.group(1) for match in map(HIDES_LINE.match, stderr.splitlines()) if match]
    return "; ".join(dict.fromkeys(found))


# `ops.py blocks` says "ops.py blocks: ..." for what it left to the operator: a host file
# it would not edit (a pre-commit config with its own exclude, a settings.json that is
# not an object). Each such line goes into the repository's row, not only the log.
ADVICE_LINE = re.compile(r"^ops\.py blocks: (.+)$")


def operator_advice(said: str) -> str:
    """What blocks left for the operator to do by hand, as one line ("" for nothing)."""
    found = [match.group(1) for match in map(ADVICE_LINE.match, said.splitlines()) if match]
    return "; ".join(f"to do: {line}" for line in dict.fromkeys(found))


def finish_install(scripts: OwnScripts, outcome: Outcome) -> str:
    """Run the copy's tasks (`blocks`, then `track`) from the fleet's checkout of the release;
    what blocks leaves to the operator joins the row's note.

    Returns why the repository fails ("" when it does not): for a hiding rule track
    names, what to add where; else the failing command's last line, which names the
    command already ("ops.py blocks: AGENTS.md:3: ...")."""
    for command in ("blocks", "track"):
        done = scripts.run(scripts.operator(), command, root=".")
        sys.stdout.write(done.stdout + done.stderr)  # into all-repos' log for this repo
        outcome.advice = "; ".join(filter(None, (outcome.advice, operator_advice(done.stderr))))
        if done.returncode == 0:
            continue
        rules = hiding_rules(done.stderr)
        if command == "track" and rules:
            return (
                f"a nested .gitignore hides eco-mem: {rules}; add the lines `eco_mem.pyz track`"
                " prints to that file, then rerun; nothing pushed"
            )
        last = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
        named = last if last.startswith(f"ops.py {command}: ") else f"ops.py {command}: {last}"
        return f"{named}; nothing pushed"
    return ""


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


def source_recorded(template: str) -> None:
    """Record the template as the operator named it: the render came from the run's
    snapshot folder, which Copier wrote as `_src_path` and which is gone after the run."""
    path = HERE / ANSWERS_FILE
    text = path.read_text(encoding="utf-8")
    line = yaml.safe_dump({"_src_path": template}, default_flow_style=False).strip()
    path.write_text(re.sub(r"(?m)^_src_path:.*$", lambda _: line, text, count=1), encoding="utf-8")


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
    template, releases = job.options["template"], job.options["releases"]
    with tempfile.TemporaryDirectory(prefix="eco-mem-fleet-scripts.") as folder:
        scripts = OwnScripts(releases, ref, folder)
        # Tasks skipped: they would run the scripts in the tree, host files among them.
        destination, data = os.path.abspath(HERE), job.options["data"]
        render_release(releases, ref, destination, data, scripts.env, job.options.get("renderer"))
        source_recorded(template)
        answers = read_answers(HERE) or {}
        outcome.message = refusal(HERE, answers, template)
        if not outcome.message:
            outcome.message = finish_install(scripts, outcome)
    if outcome.message:
        outcome.result = "failed"
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
    template, target, releases = (
        job.options["template"],
        job.options["ref"],
        job.options["releases"],
    )
    outcome = Outcome(repo, "upgrade", before=before, after=target)
    outcome.message = refusal(HERE, answers, template) or unreleased(answers, releases)
    if outcome.message:
        return outcome
    if not is_older(before, target):
        outcome.result, outcome.message = "skipped", f"already at {before}"
        return outcome
    # `ops.py upgrade` owns conflict detection, INDEX restore and the blocks; the
    # fleet runs it from its own checkout of the target, and tells it which template to
    # trust. --skip-tasks: the template's migrations would run the tree's scripts.
    # --releases: the run's snapshot, so this repository renders the commits every
    # other one does, and nothing a tag moved since the run began.
    with tempfile.TemporaryDirectory(prefix="eco-mem-fleet-scripts.") as folder:
        scripts = OwnScripts(releases, target, folder)
        upgrade = scripts.run(
            scripts.operator(),
            "upgrade",
            *("--template", template, "--releases", releases.folder, "--vcs-ref", target),
            *("--", "--defaults", "--skip-tasks"),
            root=".",
        )
    sys.stdout.write(upgrade.stdout + upgrade.stderr)  # into all-repos' log for this repo
    outcome.after = str((read_answers(HERE) or {}).get("_commit", target))
    outcome.advice = operator_advice(upgrade.stdout + upgrade.stderr)
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
        outcome.message = "not pushed: run `ops.py upgrade` in a clone and resolve"
    else:
        lines = upgrade.stderr.strip().splitlines() or [f"exit {upgrade.returncode}"]
        rules = hiding_rules(upgrade.stderr)
        outcome.message = f"a nested .gitignore hides eco-mem: {rules}" if rules else lines[-1]
    discard_changes()
    return outcome
