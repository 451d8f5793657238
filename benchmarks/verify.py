"""Benchmark: `eco_mem.pyz verify` on a store at full caps and on stress stores.

What is measured: the wall time of the rendered script as a subprocess,
`python3 <skill>/scripts/eco_mem.pyz verify --root STORE --json`, against
`python3 -c pass` (interpreter start-up) in the same interleaved runs. The
interpreter is the one running this benchmark (sys.executable), so a pyenv
shim does not add its own start-up to both sides.

The template is rendered once with default answers into a temporary git
repository and committed; every store is a copy of it with entries added:

  full caps  3 desks of 80 lines; 40 catalog rows and 40 files in each of
             semantic, episodic and procedural, every entry valid and at its line
             cap (semantic fields, episodic Context/Action/Result/Lesson,
             procedural rows pointing at the rendered SKILL.md plus a checklist)
  full caps, citing  the same, each of the 40 facts citing a line of its own
             2 KB source file (`- cites: src/mN/build.py "def build_mN():"`);
             both full-caps stores hold those 40 files
  1k/5k/10k  that many entries split evenly over semantic, episodic and
             procedural, each the size a real entry has (a fact of 8 lines, an
             episode of 14, a 5-line checklist); catalogs are far over their row
             cap, so the three caps.catalog-rows findings are expected
  10k at line caps   the worst case: the same 10,000 entries, each padded to
             its line cap (about 20 MB of markdown)

Caps come from extensions/protocol.py. Reported: median and min per store, the
full-caps ratio over start-up (target 2.5x), `detect-secrets scan --all-files`
on the full-caps memory folder in the same interleaved runs and how many times
faster verify is (target 5x; verify runs every rule, detect-secrets only its
secret plugins), and for the stress stores the time per entry after start-up
(the median minus start-up, over the entry count), so linearity is visible
(target: 10k under 1 s). Findings are counted from one extra untimed run.
Nothing is asserted.

Reproduce from the repository root, with copier and the benchmark extra
installed (pip install -e '.[test,bench]'; detect-secrets is skipped, with a
note, when it is missing):

    python -m benchmarks.verify [--runs N]
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections import Counter
from datetime import date, timedelta
from pathlib import Path

from benchmarks._timing import (
    measure,
    ms,
    parse_runs,
    print_table,
    ratio_line,
    stdout_silenced,
)
from extensions.protocol import CAPS
from tests.helpers import (
    MEMORY,
    SKILL,
    build_files,
    commit_all,
    copy_template,
    init_repo,
    snapshot_template,
)

DEFAULT_RUNS = 5
TARGET = 2.5
DETECT_SECRETS_TARGET = 5.0  # verify at least this many times faster
DETECT_SECRETS = "detect-secrets scan, full caps"
STRESS_SIZES = (1_000, 5_000, 10_000)
POINTER = f"{SKILL}/SKILL.md"  # a real file in every rendered repository
AS_OF = "2025-01-15"
FIRST_EPISODE = date(2024, 1, 1)
CITED = "src/m{n}/build.py"  # every full-caps store has these files; one store cites them
CITE_TARGET = 1.25  # 40 citing facts against the same store without citations


def padded(head: list[str], tail: list[str], cap: int, filler: str, at_cap: bool = True) -> str:
    """head + numbered filler lines + tail, exactly `cap` lines long (or no filler)."""
    middle = [filler.format(k=k) for k in range(cap - len(head) - len(tail))] if at_cap else []
    return "\n".join(head + middle + tail) + "\n"


def desk(n: int) -> tuple[str, str]:
    name = f"task-{n}.md"
    head = [f"# Task {n}: tidy the build scripts", "", "## Goal"]
    head += [f"The build scripts of module m{n} share one config file.", "", "## Constraints"]
    head += ["- keep the public targets, as the maintainer asked", "", "## Progress"]
    tail = ["", "## Next", "- run the full test suite", "", "## Open"]
    tail += ["- scripts/build.sh: still reads the old config path"]
    filler = "- step {k} finished: moved one helper under src/ and ran the unit tests"
    return name, padded(head, tail, CAPS["desk_lines"], filler)


def evidence(n: int) -> str:
    """A source file of about 2 KB that fact n cites (issue 18)."""
    lines = [f'"""Build helpers of module m{n}."""', "", "import subprocess", ""]
    for k in range(25):
        lines += [
            f"def step_{k}(target):",
            f"    return subprocess.run(['make', target, '-j{k}'])",
            "",
        ]
    lines[40:40] = [f"def build_m{n}():", "    return step_1('build')", ""]
    return "\n".join(lines) + "\n"


def semantic(n: int, at_cap: bool = True, cite: bool = False) -> tuple[str, str, str]:
    name = f"fact-{n:05d}.md"
    head = [f"# Module m{n} builds with make", ""]
    head += [f"- as_of: {AS_OF}", "- source: verified", f"- scope: module m{n}", "- expires: never"]
    if cite:
        head += [f'- cites: {CITED.format(n=n)} "def build_m{n}():"']
    head += ["", f"Module m{n} builds with `make build`; checked by running it."]
    filler = "Build check {k} for this module: the output matched the recorded artifact list."
    row = f"| fact-{n:05d} | module m{n} builds with make | {AS_OF} | verified | {name} |"
    return name, padded(head, [], CAPS["semantic_lines"], filler, at_cap), row


def episodic(n: int, at_cap: bool = True) -> tuple[str, str, str]:
    day = (FIRST_EPISODE + timedelta(days=n % 365)).isoformat()
    name = f"{day}-flaky-test-{n:05d}.md"
    head = [f"# Flaky test {n} in module m{n}", "", "## Context"]
    head += [f"The nightly run of module m{n} failed one test out of five."]
    tail = ["", "## Action", "Ran the test alone with a fixed random seed.", "", "## Result"]
    tail += ["The failure reproduced with seed 7; the fixture shared a temp folder."]
    tail += ["", "## Lesson", "Give each fixture its own temp folder before adding retries."]
    filler = "Log excerpt {k}: the second worker wrote into the shared fixture folder."
    row = f"| {day} | flaky test {n} in m{n} | one temp folder per fixture | {name} |"
    return name, padded(head, tail, CAPS["episodic_lines"], filler, at_cap), row


def procedural(n: int, at_cap: bool = True) -> tuple[str, str, str]:
    name = f"checklist-{n:05d}.md"
    head = [f"# Release checklist {n}", "", "Proven on: 2024-03-01, 2024-04-01"]
    head += [f"Graduates to: {SKILL}-release-{n}/SKILL.md", ""]
    filler = "{k}. check the changelog entry and the version number, then tag"
    row = f"| checklist-{n} | before a release of m{n} | {POINTER} | {name} |"
    return name, padded(head, [], CAPS["procedural_lines"], filler, at_cap), row


def populate(
    root: Path, desks: int, per_drawer: dict[str, int], at_cap: bool = True, cite: bool = False
) -> int:
    """Write entries and their catalog rows into root's memory; return the entry count."""
    memory = root / MEMORY
    if at_cap and desks:  # the full-caps stores: the source files facts may cite
        build_files(root, {CITED.format(n=n): evidence(n) for n in range(CAPS["catalog_rows"])})
    files: dict[str, str] = {}
    rows: dict[str, list[str]] = {"working": []}
    for n in range(desks):
        name, text = desk(n)
        files[f"working/{name}"] = text  # desks have no rows: the file is the listing
    makers = {"semantic": semantic, "episodic": episodic, "procedural": procedural}
    for drawer, count in per_drawer.items():
        rows[drawer] = []
        for n in range(count):
            made = makers[drawer](n, at_cap, cite) if drawer == "semantic" else None
            name, text, row = made or makers[drawer](n, at_cap)
            files[f"{drawer}/{name}"] = text
            rows[drawer].append(row)
    for drawer, lines in rows.items():
        index = memory / drawer / "INDEX.md"
        catalog = index.read_text(encoding="utf-8").rstrip("\n")
        files[f"{drawer}/INDEX.md"] = catalog + "\n" + "".join(f"{line}\n" for line in lines)
    build_files(memory, files)
    return desks + sum(per_drawer.values())


def verify_command(script: Path, store: Path) -> list[str]:
    return [sys.executable, str(script), "verify", "--root", str(store), "--json"]


def timed_run(command: list[str], cwd: Path | None = None):
    """A `prepare` for measure(): nothing to set up, the subprocess is what is timed."""
    return lambda: lambda: subprocess.run(command, cwd=cwd, capture_output=True, check=False)


def detect_secrets_command() -> list[str] | None:
    """`detect-secrets scan --all-files MEMORY`, run from the store's root, if installed.

    detect-secrets drops every path outside its working directory without a
    word, so it must run from inside the store: started elsewhere it "scans"
    the memory folder in a fifth of the time and reads no file of it.
    """
    script = Path(sysconfig.get_path("scripts")) / "detect-secrets"
    if not script.exists():
        return None
    return [str(script), "scan", "--all-files", MEMORY]


def detect_secrets_reads(command: list[str], scratch: Path) -> bool:
    """Whether detect-secrets, run as timed, reports a key planted in a copy of the layout."""
    planted = scratch / MEMORY / "semantic" / "planted.md"
    planted.parent.mkdir(parents=True)
    key = "AKIA" + "IOSFODNN7" + "EXAMPLE"  # AWS's documented example key, in parts
    planted.write_text(f"aws_access_key_id = {key}\n", encoding="utf-8")
    result = subprocess.run(command, cwd=scratch, capture_output=True, text=True, check=False)
    return result.returncode == 0 and bool(json.loads(result.stdout or "{}").get("results"))


def findings_summary(command: list[str]) -> str:
    report = json.loads(subprocess.run(command, capture_output=True, check=False).stdout)
    rules = Counter(finding["rule"] for finding in report["findings"])
    return ", ".join(f"{count} {rule}" for rule, count in sorted(rules.items())) or "none"


def main() -> None:
    runs = parse_runs(__doc__, DEFAULT_RUNS)
    with tempfile.TemporaryDirectory(prefix="eco-mem-bench-verify-") as tmp:
        work = Path(tmp)
        rendered = init_repo(work / "rendered")
        with stdout_silenced():  # the blocks task prints what it wrote
            copy_template(snapshot_template(work / "template", "v1"), rendered)
        commit_all(rendered, "eco-mem")
        script = rendered / SKILL / "scripts/eco_mem.pyz"

        stores: dict[str, tuple[Path, int]] = {}
        full = {drawer: CAPS["catalog_rows"] for drawer in ("semantic", "episodic", "procedural")}
        layouts = {"full caps": (CAPS["desks"], full, True, False)}
        layouts["full caps, citing"] = (CAPS["desks"], full, True, True)
        for size in STRESS_SIZES:
            third = size // 3
            split = {"semantic": third, "episodic": third, "procedural": size - 2 * third}
            layouts[f"{size // 1000}k entries"] = (0, split, False, False)
        largest = f"{STRESS_SIZES[-1] // 1000}k"
        layouts[f"{largest} at line caps"] = (0, layouts[f"{largest} entries"][1], True, False)
        for label, (desks, per_drawer, at_cap, cite) in layouts.items():
            folder = work / label.replace(" ", "-").replace(",", "")
            store = shutil.copytree(rendered, folder, symlinks=True)
            stores[label] = (store, populate(store, desks, per_drawer, at_cap, cite))

        commands = {"python3 -c pass": [sys.executable, "-c", "pass"]}
        commands.update(
            {label: verify_command(script, path) for label, (path, _) in stores.items()}
        )
        subjects = {label: timed_run(command) for label, command in commands.items()}
        detect_secrets = detect_secrets_command()
        if detect_secrets and not detect_secrets_reads(detect_secrets, work / "planted"):
            print("detect-secrets missed a planted key; it is left out of the comparison")
            detect_secrets = None
        if detect_secrets:
            commands[DETECT_SECRETS] = detect_secrets
            subjects[DETECT_SECRETS] = timed_run(detect_secrets, cwd=stores["full caps"][0])
        print(f"eco_mem.pyz verify --json, {runs} interleaved runs each, {sys.executable}\n")
        timings = measure(subjects, runs)
        found = {label: findings_summary(commands[label]) for label in stores}

    startup = timings["python3 -c pass"]
    rows = [("python3 -c pass", "-", ms(startup.median), ms(startup.min), "-", "-")]
    for label, (_, entries) in stores.items():
        timing = timings[label]
        # Per entry only where entries dominate; at full caps imports do.
        per_entry = (timing.median - startup.median) / entries * 1e6
        per_entry_cell = "-" if label.startswith("full caps") else f"{per_entry:.0f} us"
        cells = (ms(timing.median), ms(timing.min), per_entry_cell, found[label])
        rows.append((label, str(entries), *cells))
    if DETECT_SECRETS in timings:
        timing = timings[DETECT_SECRETS]
        entries = str(stores["full caps"][1])
        rows.append((DETECT_SECRETS, entries, ms(timing.median), ms(timing.min), "-", "-"))
    print_table(("store", "entries", "median", "min", "per entry", "findings"), rows)
    print()
    print(ratio_line("full caps / start-up", timings["full caps"], startup, TARGET))
    citing = timings["full caps, citing"]
    print(ratio_line("full caps, citing / start-up", citing, startup, TARGET))
    print(ratio_line("citing / not citing", citing, timings["full caps"], CITE_TARGET))
    if DETECT_SECRETS in timings:
        faster = timings[DETECT_SECRETS].median / timings["full caps"].median
        verdict = "within" if faster >= DETECT_SECRETS_TARGET else "UNDER"
        print(
            f"detect-secrets / full caps: verify {faster:.2f}x faster"
            f" (target >= {DETECT_SECRETS_TARGET:.0f}x: {verdict} target)"
        )
    else:
        print("detect-secrets not installed: pip install -e '.[bench]' to compare")
    largest = f"{STRESS_SIZES[-1] // 1000}k entries"
    verdict = "within" if timings[largest].median < 1.0 else "OVER"
    print(f"{largest}: {ms(timings[largest].median)} median (target < 1 s: {verdict} target)")


if __name__ == "__main__":
    main()
