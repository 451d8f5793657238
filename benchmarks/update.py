"""Benchmark: `copier update` v1 -> v2 of eco-mem against a plain template of the same files.

What is measured: the wall time of `copier.run_update(dst, defaults=True,
unsafe=True, quiet=True, overwrite=True, answers_file=".copier-answers.eco-mem.yml",
vcs_ref="v2")` for two templates, each in a temporary git repository tagged v1 and v2:

  eco-mem    this working tree (tests.helpers.snapshot_template); v2 edits the
             last line of SKILL.md and the first contract line of semantic/INDEX.md
  baseline   benchmarks/_templates.py: the same rendered paths and byte sizes as
             plain files, the same answers file name; v2 changes the first line of
             the same two files

Setup is not timed: for every run a fresh destination repository is copied at
v1 and committed. Runs are interleaved (see benchmarks/_timing.py); the ratio is
eco-mem over baseline, median and min, against a target of 1.25x. After timing,
the last destination of each template is checked to hold its v2 text. Nothing
about timing is asserted.

Reproduce from the repository root, with copier installed (pip install -e '.[test]'):

    python -m benchmarks.update [--runs N]
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import copier

from benchmarks._templates import plain_template, rendered_sizes
from benchmarks._timing import measure, ms, parse_runs, print_table, ratio_line
from tests.helpers import (
    ANSWERS,
    MEMORY,
    SKILL,
    commit_all,
    copy_template,
    init_repo,
    snapshot_template,
)

DEFAULT_RUNS = 7
TARGET = 1.25
SKILL_SOURCE = "template/{{skill_path}}/eco-mem/SKILL.md.jinja"
INDEX_SOURCE = "template/{{memory_path}}/semantic/INDEX.md.jinja"
CHANGED = (f"{SKILL}/SKILL.md", f"{MEMORY}/semantic/INDEX.md")
SKILL_EDIT = " Version 2 of this paragraph, for the update benchmark."
INDEX_EDIT = " Version 2 wording."
V2_TEXT = {  # what each changed file holds after the update
    "baseline": dict.fromkeys(CHANGED, "(v2)"),  # see _templates.filler
    "eco-mem": dict(zip(CHANGED, (SKILL_EDIT, INDEX_EDIT))),
}


def edit_ours(repo: Path) -> None:
    """v2 of eco-mem: new text on SKILL.md's last line and on one INDEX contract line."""
    skill = repo / SKILL_SOURCE
    text = skill.read_text(encoding="utf-8").rstrip("\n")
    skill.write_text(text + SKILL_EDIT + "\n", encoding="utf-8")
    index = repo / INDEX_SOURCE
    lines = index.read_text(encoding="utf-8").split("\n")
    contract = next(i for i, line in enumerate(lines) if line.startswith("- **"))
    lines[contract] += INDEX_EDIT
    index.write_text("\n".join(lines), encoding="utf-8")


def has_v2(dst: Path, expected: dict[str, str]) -> bool:
    return all(text in (dst / path).read_text(encoding="utf-8") for path, text in expected.items())


def copier_update(template: Path, workdir: Path, dsts: list[Path]):
    """A `prepare` for measure(): copy v1 into a fresh repo and commit, then the update to time."""

    def prepare():
        dst = init_repo(workdir / f"dst-{len(dsts)}")
        copy_template(template, dst, vcs_ref="v1")
        commit_all(dst, "eco-mem v1")
        dsts.append(dst)
        return lambda: copier.run_update(
            dst,
            defaults=True,
            unsafe=True,
            quiet=True,
            overwrite=True,
            answers_file=ANSWERS,
            vcs_ref="v2",
        )

    return prepare


def main() -> None:
    runs = parse_runs(__doc__, DEFAULT_RUNS)
    with tempfile.TemporaryDirectory(prefix="eco-mem-bench-update-") as tmp:
        work = Path(tmp)
        ours = snapshot_template(work / "eco-mem-template", "v1")
        snapshot_template(ours, "v2", mutate=edit_ours)
        sizes = rendered_sizes(ours, "v1")
        plain = plain_template(work / "plain-template", "v1", sizes)
        plain_template(plain, "v2", sizes, changed=CHANGED)
        print(f"copier update v1 -> v2, {len(sizes)} files, {runs} interleaved runs each\n")
        dsts: dict[str, list[Path]] = {"baseline": [], "eco-mem": []}
        timings = measure(
            {
                name: copier_update(src, work / name, dsts[name])
                for name, src in (("baseline", plain), ("eco-mem", ours))
            },
            runs,
        )
        landed = {name: has_v2(dsts[name][-1], V2_TEXT[name]) for name in dsts}
    print_table(
        ("template", "median", "min", "v2 landed"),
        [
            (name, ms(t.median), ms(t.min), "yes" if landed[name] else "NO")
            for name, t in timings.items()
        ],
    )
    print()
    print(ratio_line("eco-mem / baseline", timings["eco-mem"], timings["baseline"], TARGET))


if __name__ == "__main__":
    main()
