"""Where eco-mem stands in every cloned repository.

    python -m eco_mem_fleet.status -C all-repos.json --template SRC [--vcs-ref REF]
        [--json] [--report FILE] [-j N] [--repos REPO ...] [--limit N]

Reads the clones all-repos-clone made (run it first for fresh data): is
eco-mem installed, which version do its answers record, what is the newest
tag of the fleet's template, what does `eco_mem.pyz verify --json` say (exit
code, errors, warnings), and what does `eco_mem.pyz review --json` find
(entries per drawer, findings per kind, always-loaded bytes), and are the
scripts it holds the bytes its release shipped (runtime.py). verify and
review are the fleet's own: --template checked out at REF (default: its newest
tag), reading each repository's answers, never the repository's copy of the
scripts (own_scripts.py). A repository whose answers name another template
or a path outside it is refused, one line in the table. A line per repository on stderr as each
is done (`[i/N]`, silent under CI=true), then the table, worst first: most
review findings, then not ok. Exit 0 only when every repository is
installed, at the newest tag, verify-clean and passes its own pre-commit
hooks over eco-mem's files where they run offline (host_checks.py; review
findings are advice and do not count); 1 otherwise; 2 on a usage error.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import os
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path

from all_repos import cli, mapper
from all_repos.config import load_config

from eco_mem_fleet import token_free
from eco_mem_fleet.autofix import refresh
from eco_mem_fleet.clean_env import clean_environment
from eco_mem_fleet.host_checks import PRE_COMMIT_CONFIG, add_host_check_args, run_checks
from eco_mem_fleet.host_exclude import SINGLE_FILES, exclude_todo
from eco_mem_fleet.own_scripts import (
    DEFAULT_MEMORY_PATH,
    TIMED_OUT,
    TIMEOUT,
    OwnScripts,
    fleet_release,
    refusal,
)
from eco_mem_fleet.releases import Releases
from eco_mem_fleet.report import REPORT_FORMATS, quiet_progress, table, write_status_report
from eco_mem_fleet.runtime import runtime_difference
from eco_mem_fleet.versions import (
    ANSWERS_FILE,
    DEFAULT_SKILL_PATH,
    UNREADABLE,
    is_older,
    read_answers,
    template_source,
    unreadable,
)

# --host-checks in a repository with no pre-commit config: nothing ran, and "ok" says so.
NO_HOOKS = f"no host hooks: no {PRE_COMMIT_CONFIG}"


@dataclasses.dataclass
class RepoStatus:
    repo: str
    installed: bool = False
    version: str | None = None
    newest: str | None = None
    verify_exit: int | None = None
    errors: int | None = None
    warnings: int | None = None
    problem: str = ""
    # From `eco_mem.pyz review --json`; None where the install has no review command.
    entries: dict[str, int] | None = None
    findings: dict[str, int] | None = None
    load_bytes: int | None = None
    # The repository's own checks over eco-mem's files (host_checks.py): "" when not asked
    # for, NO_HOOKS when asked for where the repository has no hooks.
    host_checks: str = ""
    # What the install left to the operator and the repository has not done yet
    # (host_exclude.py): not ok until it is done.
    advice: str = ""

    @property
    def finding_count(self) -> int | None:
        return None if self.findings is None else sum(self.findings.values())

    @property
    def unchecked(self) -> bool:
        """Host checks were asked for (--host-checks) and could not run here."""
        return "unchecked:" in self.host_checks

    @property
    def ok(self) -> bool:
        return (
            self.installed
            and self.newest is not None
            and not is_older(self.version, self.newest)
            and self.verify_exit == 0
            and not self.problem
            and not self.unchecked
            and not self.advice
        )

    @property
    def verdict(self) -> str:
        """ "ok", or the first thing standing between this repository and ok."""
        if self.problem:
            return self.problem
        if not self.installed:
            return "not installed"
        if self.newest is None:
            return "no version tag at the template"
        if is_older(self.version, self.newest):
            return f"behind {self.newest}"
        if self.verify_exit != 0:
            return f"verify exit {self.verify_exit}"
        # A check asked for and not run proves nothing: not "ok" (the operator asked).
        if self.unchecked:
            return self.host_checks
        if self.advice:
            return self.advice
        return f"ok ({NO_HOOKS})" if self.host_checks == NO_HOOKS else "ok"

    def as_json(self) -> dict:
        return {**dataclasses.asdict(self), "ok": self.ok}


def worst_first(statuses: Sequence[RepoStatus]) -> list[RepoStatus]:
    """Most review findings first, then repositories that are not ok, then by name."""
    return sorted(statuses, key=lambda s: (-(s.finding_count or 0), s.ok, s.repo))


def read_review(
    status: RepoStatus, scripts: OwnScripts, script: Path, path: str, timeout: float
) -> None:
    """Fill in the review columns; leave them None when review cannot read the memory."""
    done = scripts.run(script, "review", "--json", root=path, timeout=timeout)
    if done.returncode == TIMED_OUT:
        status.problem = f"failed: {done.stderr.strip()}"
        return
    if done.returncode not in (0, 1):
        return  # an install older than `review`, or one too broken to read
    try:
        summary = json.loads(done.stdout)["summary"]
        entries, findings = dict(summary["entries"]), dict(summary["findings"])
        load_bytes = int(summary["load_bytes"])
    except (ValueError, KeyError, TypeError):
        return
    status.entries, status.findings, status.load_bytes = entries, findings, load_bytes


@dataclasses.dataclass(frozen=True)
class Fleet:
    """What every inspection shares: the fleet's template, its newest tag, its renders."""

    template: str
    newest: str
    scripts: OwnScripts
    timeout: float = TIMEOUT  # seconds each command may run in one repository
    checks: dict = dataclasses.field(default_factory=dict)  # host_checks.checked's options
    releases: Releases | None = None  # the run's snapshot: what each release shipped


def inspect(fleet: Fleet, item: tuple[str, str]) -> RepoStatus:
    name, path = item
    status = RepoStatus(name)
    head = subprocess.run(
        ["git", "-C", path, "rev-parse", "--verify", "-q", "HEAD"], capture_output=True
    )
    if not os.path.isdir(path) or head.returncode != 0:
        status.problem = "not cloned"
        return status
    stale = refresh(path)  # what status says is what origin holds, not an old clone
    if stale:
        status.problem = f"failed: {stale}"
        return status
    try:
        answers = read_answers(Path(path))
    except UNREADABLE as error:
        status.installed = True
        status.problem = unreadable(error)
        return status
    if answers is None:
        return status
    status.installed = True
    status.version = str(answers.get("_commit", "?"))
    status.newest = fleet.newest
    status.problem = refusal(Path(path), answers, fleet.template)
    if status.problem:
        return status
    status.problem = scripts_changed(fleet, status.version, path, answers)
    try:
        script = fleet.scripts.runtime(fleet.timeout)
    except RuntimeError as error:  # the release cannot be checked out: no repository can run
        status.problem = f"failed: {error}"
        return status
    verify = fleet.scripts.run(script, "verify", "--json", root=path, timeout=fleet.timeout)
    if verify.returncode == TIMED_OUT:
        status.problem = f"failed: {verify.stderr.strip()}"
        return status
    status.verify_exit = verify.returncode
    try:
        counts = json.loads(verify.stdout)["counts"]
        status.errors, status.warnings = counts["error"], counts["warning"]
    except (ValueError, KeyError, TypeError):
        last = (verify.stderr.strip().splitlines() or ["no JSON from verify"])[-1]
        status.problem = f"verify: {last}"
    read_review(status, fleet.scripts, script, path, fleet.timeout)
    judge_host_checks(status, path, answers, fleet.checks)
    status.advice = exclude_todo(path, eco_mem_folders(answers))
    return status


def scripts_changed(fleet: Fleet, version: str, path: str, answers: dict) -> str:
    """runtime.py's line when the clone's scripts are not its release's, else ""."""
    tag = fleet.releases.named(version) if fleet.releases else None
    if tag is None:
        return ""  # behind or unknown: the version column says so
    skill = f"{answers.get('skill_path') or DEFAULT_SKILL_PATH}/eco-mem"
    commit = fleet.releases.commit(tag)
    return runtime_difference(fleet.releases.folder, commit, tag, path, skill)


# What eco-mem writes besides its two folders and SINGLE_FILES (the workflows only with
# ci: github-actions).
OWNED_FILES = (
    *(ANSWERS_FILE, "AGENTS.md", "CLAUDE.md", ".gitattributes", ".gitignore"),
    *(".claude/settings.json", ".github/workflows/eco-mem.yml"),
    ".github/workflows/eco-mem-review.yml",
)


def eco_mem_folders(answers: dict) -> list[str]:
    """The skill's folder and the memory's, as the answers place them."""
    skill = f"{answers.get('skill_path') or DEFAULT_SKILL_PATH}/eco-mem"
    return [skill, str(answers.get("memory_path") or DEFAULT_MEMORY_PATH)]


def owned_files(path: str, answers: dict) -> list[str]:
    """The tracked files of the clone at `path` that eco-mem wrote or keeps a block in."""
    listed = subprocess.run(
        [
            "git",
            "-C",
            path,
            "ls-files",
            "-z",
            "--",
            *eco_mem_folders(answers),
            *SINGLE_FILES,
            *OWNED_FILES,
        ],
        capture_output=True,
        text=True,
    )
    return [name for name in listed.stdout.split("\0") if name]


def judge_host_checks(status: RepoStatus, path: str, answers: dict, options: dict) -> None:
    """Run the repository's own checks over eco-mem's files; one that fails makes the
    repository not ok (`host-checks-fail: NAME`). A hook may rewrite files: the clone
    is put back at its origin's tip afterwards, as refresh leaves it."""
    if not options.get("host_checks"):
        return
    if not (Path(path) / PRE_COMMIT_CONFIG).is_file():
        status.host_checks = NO_HOOKS  # asked for, and there is nothing to run: say so
        return
    with tempfile.TemporaryDirectory(prefix="eco-mem-fleet-checks.") as home:
        env = clean_environment(home)
        download = bool(options.get("may_download"))
        checks = run_checks(Path(path), owned_files(path, answers), env, download)
    subprocess.run(["git", "-C", path, "reset", "--quiet", "--hard"], capture_output=True)
    for check in checks:
        if not check.ok and not status.problem:
            status.problem = f"host-checks-fail: {check.name}: {check.output}"
        said = check.note() if not check.ran else check.output or f"{check.name} passed"
        status.host_checks = "; ".join(filter(None, (status.host_checks, said)))


DRAWER_ORDER = ("working", "semantic", "episodic", "procedural")


def entry_cell(entries: dict[str, int] | None) -> str:
    """Entries per drawer as "working/semantic/episodic/procedural": "1/12/30/4"."""
    if entries is None:
        return "-"
    return "/".join(str(entries.get(name, 0)) for name in DRAWER_ORDER)


def findings_cell(findings: dict[str, int] | None) -> str:
    """The kinds found, "duplicate:1,path-gone:2"; "none"; "-" when unknown."""
    if findings is None:
        return "-"
    return ",".join(f"{kind}:{n}" for kind, n in findings.items() if n) or "none"


def counted(inspect_one, total: int):
    """`inspect_one`, printing "[i/N] repo: status" on stderr as each repository is done
    (verify runs in every clone: a large fleet takes a while). Silent under CI=true."""
    if quiet_progress():
        return inspect_one
    lock, done = threading.Lock(), [0]

    def inspect_counted(item: tuple[str, str]) -> RepoStatus:
        status = inspect_one(item)
        with lock:
            done[0] += 1
            print(f"[{done[0]}/{total}] {status.repo}: {status.verdict}", file=sys.stderr)
            sys.stderr.flush()
        return status

    return inspect_counted


def render(statuses: Sequence[RepoStatus]) -> str:
    def cell(value: object) -> str:
        return "-" if value is None else str(value)

    rows = [
        (
            s.repo,
            "yes" if s.installed else "no",
            cell(s.version),
            cell(s.newest),
            cell(s.verify_exit),
            cell(s.errors),
            cell(s.warnings),
            cell(s.finding_count),
            entry_cell(s.entries),
            findings_cell(s.findings),
            cell(s.load_bytes),
            s.verdict,
        )
        for s in statuses
    ]
    headers = (
        *("repo", "installed", "version", "newest", "verify", "errors", "warnings"),
        *("review", "entries(w/s/e/p)", "findings", "load", "status"),
    )
    fine, unchecked = sum(s.ok for s in statuses), sum(s.unchecked for s in statuses)
    tally = f"{fine} of {len(statuses)} repositories ok"
    if unchecked:
        tally += f", {unchecked} unchecked (their host checks did not run)"
    return table(headers, rows) + f"\n{tally}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m eco_mem_fleet.status",
        description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 all installed, current and clean; 1 otherwise; 2 usage error.",
    )
    cli.add_common_args(parser)
    cli.add_jobs_arg(parser)
    parser.add_argument(
        "--template",
        required=True,
        help="the fleet's eco-mem template (git URL or path): the only one it runs",
    )
    parser.add_argument(
        "--vcs-ref", help="the template tag whose scripts judge (default: the newest tag)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead")
    parser.add_argument(
        "--timeout",
        type=float,
        default=TIMEOUT,
        metavar="SECONDS",
        help=f"stop verify or review in a repository after this long and report it failed"
        f" (default {TIMEOUT:g})",
    )
    parser.add_argument(
        "--report",
        metavar="FILE",
        help="also write one row per repository, worst first, as "
        + ", ".join(REPORT_FORMATS)
        + " (by the file's suffix)",
    )
    parser.add_argument(
        "--repos",
        nargs="*",
        metavar="REPO",
        help="only these repositories: names as all-repos lists them, or their clone paths"
        " (as install's and upgrade's --repos take them)",
    )
    parser.add_argument(
        "--limit", type=int, metavar="N", help="only the first N repositories, by name"
    )
    add_host_check_args(parser, status=True)
    args = parser.parse_args(argv)
    if not args.timeout > 0:  # also refuses nan
        parser.error(f"--timeout {args.timeout:g}: give a number of seconds above 0")
    if args.report and Path(args.report).suffix.lower() not in REPORT_FORMATS:
        parser.error(f"--report {args.report}: name a {', '.join(REPORT_FORMATS)} file")
    if args.host_checks:
        try:  # the repositories' code runs in this process's tree: no credential in it
            token_free.drop_credentials(args.config_filename)
        except token_free.Refused as error:
            print(f"status: {error}", file=sys.stderr)
            return 2
    config = load_config(args.config_filename)
    try:
        cloned = config.get_cloned_repos()
    except FileNotFoundError:
        print(f"status: run all-repos-clone -C {args.config_filename} first", file=sys.stderr)
        return 2
    template = template_source(args.template)
    items = [(name, os.path.join(config.output_dir, name)) for name in sorted(cloned)]
    if args.repos is not None:
        wanted = {os.path.abspath(repo) for repo in args.repos} | set(args.repos)
        items = [(n, p) for n, p in items if n in wanted or os.path.abspath(p) in wanted]
    items = items[: args.limit]
    with fleet_release("status", template, args.vcs_ref) as pinned:
        if pinned is None:
            return 2
        releases, ref = pinned
        with tempfile.TemporaryDirectory(prefix="eco-mem-fleet-scripts.") as folder:
            checks = {
                "host_checks": args.host_checks,
                "may_download": args.host_checks_may_download,
            }
            scripts = OwnScripts(releases, ref, folder)
            fleet = Fleet(template, ref, scripts, args.timeout, checks, releases)
            inspect_one = functools.partial(inspect, fleet)
            with mapper.thread_mapper(args.jobs) as do_map:
                statuses = worst_first(list(do_map(counted(inspect_one, len(items)), items)))
    if args.report:
        try:
            write_status_report(args.report, [s.as_json() for s in statuses])
        except OSError as error:
            print(f"status: cannot write {args.report}: {error.strerror}", file=sys.stderr)
            return 2
    if args.host_checks:
        token_free.reap_leftovers()
    ok = all(s.ok for s in statuses)
    if args.json:
        print(json.dumps({"ok": ok, "repos": [s.as_json() for s in statuses]}, indent=2))
    else:
        print(render(statuses))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
