"""Benchmark: `python -m eco_mem_fleet.install` over 50 local repositories, -j 1 and -j 2.

What is measured, all in one run:

  fleet -j 1 / -j 2   wall time of one `python -m eco_mem_fleet.install -C all-repos.json
                      --template T -j J` (CI=true, output discarded) over N fresh bare
                      origins listed through all-repos' json_file source and pushed with
                      merge_to_master: scratch clone, copy, commit, merge, push, report.
  copier copy (CLI)   one `copier copy --trust --defaults --vcs-ref v1.0.0 T DST` into a
                      fresh git repository with one commit: what a home-made loop pays.
  copier copy (API)   the same through `copier.run_copy` in this process (no start-up).

Setup is not timed: the template snapshot, the origins (a new set for every fleet
run) and all-repos-clone. Fleet runs alternate -j 1 and -j 2, reversing the order
on odd rounds. Reported: repos/s for each -j, the -j 2 / -j 1 throughput ratio
(target >= 1.7x on 2 cores) and the per-repository cost at -j 1 over one plain
`copier copy` (target <= 1.3x), each from the median. After the runs, every origin
of the last round is checked to hold the installed SKILL.md. Nothing is asserted
about timing: the machine is shared, so read the numbers with the load in mind.

Reproduce from the repository root (pip install -e '.[test,fleet]'):

    python -m benchmarks.fleet [--repos 50] [--runs 1]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import copier

from benchmarks._timing import print_table, stdout_silenced
from tests.fleet import clone_all, make_origin, origin_files, write_config
from tests.helpers import PROJECT, SKILL, init_repo, snapshot_template

COPIES = 7  # plain copies per round, for a stable per-copy median
TARGET_SPEEDUP, TARGET_COST = 1.7, 1.3


def fleet(root: Path, count: int) -> Path:
    """`count` bare origins with one commit each, cloned by all-repos; returns the config."""
    origins = {
        f"repo-{n:03}": str(make_origin(root, f"repo-{n:03}", lambda work: None))
        for n in range(count)
    }
    config = write_config(root, origins)
    clone_all(config)
    return config


def cpu_seconds() -> float:
    """User plus system time of every finished child process so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def time_fleet(config: Path, template: Path, jobs: int) -> tuple[float, float]:
    """(wall, CPU) seconds of one fleet install: equal CPU at -j 1 and -j 2 means the
    work splits, and a ratio short of 2x is cores the machine did not have free."""
    command = [sys.executable, "-m", "eco_mem_fleet.install", "-C", str(config)]
    command += ["--template", str(template), "-j", str(jobs)]
    command += ["--log", str(config.parent / f"fleet-j{jobs}.log")]
    cpu = cpu_seconds()
    start = time.perf_counter()
    run = subprocess.run(
        command,
        cwd=PROJECT,
        env={**os.environ, "CI": "true"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    elapsed = time.perf_counter() - start
    if run.returncode != 0:
        raise SystemExit(f"fleet install -j {jobs} failed:\n{run.stderr[-2000:]}")
    return elapsed, cpu_seconds() - cpu


def time_copies(root: Path, template: Path) -> tuple[list[float], list[float]]:
    cli = shutil.which("copier") or str(Path(sys.executable).parent / "copier")
    by_cli, by_api = [], []
    for n in range(COPIES):
        dst = init_repo(root / f"cli-{n}")
        start = time.perf_counter()
        subprocess.run(
            [
                cli,
                "copy",
                "--trust",
                "--defaults",
                "--quiet",
                "--vcs-ref",
                "v1.0.0",
                *map(str, (template, dst)),
            ],
            check=True,
            capture_output=True,
        )
        by_cli.append(time.perf_counter() - start)
        dst = init_repo(root / f"api-{n}")
        with stdout_silenced():  # the blocks task prints even when copier is quiet
            start = time.perf_counter()
            copier.run_copy(
                str(template), dst, defaults=True, unsafe=True, quiet=True, vcs_ref="v1.0.0"
            )
            by_api.append(time.perf_counter() - start)
    return by_cli, by_api


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repos", type=int, default=50, help="repositories per fleet run")
    parser.add_argument("--runs", type=int, default=1, help="fleet runs per -j (default 1)")
    args = parser.parse_args()
    if args.repos < 1 or args.runs < 1:
        parser.error("--repos and --runs must be at least 1")
    fleet_times: dict[int, list[float]] = {1: [], 2: []}
    fleet_cpu: dict[int, list[float]] = {1: [], 2: []}
    cli_times: list[float] = []
    api_times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="eco-mem-fleet-bench.") as tmp:
        template = snapshot_template(Path(tmp) / "template", "v1.0.0")
        last: Path | None = None
        for round_number in range(args.runs):
            order = (1, 2) if round_number % 2 == 0 else (2, 1)
            for jobs in order:
                root = Path(tmp) / f"round{round_number}-j{jobs}"
                config = fleet(root, args.repos)
                wall, cpu = time_fleet(config, template, jobs)
                fleet_times[jobs].append(wall)
                fleet_cpu[jobs].append(cpu)
                last = root
            by_cli, by_api = time_copies(Path(tmp) / f"copies{round_number}", template)
            cli_times += by_cli
            api_times += by_api
        assert last is not None
        origins = sorted((last / "origins").iterdir())
        missing = [o.name for o in origins if f"{SKILL}/SKILL.md" not in origin_files(o)]
        if missing:
            raise SystemExit(f"installed SKILL.md missing from origins: {missing}")

    n = args.repos
    j1, j2 = statistics.median(fleet_times[1]), statistics.median(fleet_times[2])
    cli, api = statistics.median(cli_times), statistics.median(api_times)
    print(f"{n} repositories per fleet run, {args.runs} run(s) per -j, {os.cpu_count()} cores")
    c1, c2 = statistics.median(fleet_cpu[1]), statistics.median(fleet_cpu[2])
    print_table(
        ("subject", "wall (median)", "per repo", "repos/s", "CPU (median)"),
        [
            (
                "fleet install -j 1",
                f"{j1:.1f} s",
                f"{j1 / n * 1000:.0f} ms",
                f"{n / j1:.2f}",
                f"{c1:.1f} s",
            ),
            (
                "fleet install -j 2",
                f"{j2:.1f} s",
                f"{j2 / n * 1000:.0f} ms",
                f"{n / j2:.2f}",
                f"{c2:.1f} s",
            ),
            ("copier copy (CLI)", f"{cli:.2f} s", f"{cli * 1000:.0f} ms", f"{1 / cli:.2f}", "-"),
            ("copier copy (API)", f"{api:.2f} s", f"{api * 1000:.0f} ms", f"{1 / api:.2f}", "-"),
        ],
    )
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (the machine is shared)")
    print()
    speedup, cost_cli, cost_api = j1 / j2, j1 / n / cli, j1 / n / api

    def verdict(ok: bool) -> str:
        return "within target" if ok else "OFF target"

    print(
        f"-j 2 over -j 1 throughput: {speedup:.2f}x (target >= {TARGET_SPEEDUP}x: {verdict(speedup >= TARGET_SPEEDUP)})"
    )
    print(
        f"per-repo cost at -j 1 over copier copy (CLI): {cost_cli:.2f}x (target <= {TARGET_COST}x: {verdict(cost_cli <= TARGET_COST)})"
    )
    print(f"per-repo cost at -j 1 over copier copy (API, no start-up): {cost_api:.2f}x")


if __name__ == "__main__":
    main()
