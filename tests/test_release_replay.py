"""What a release changes in a host is what the release changed in the host's files.

The scripts carry no answers and the operator's code never lands, so a release that
touches only operator code (the extensions, the fleet's or the installer's modules)
leaves a host's files as they were but for the version its answers file records, and
one line changed in SKILL.md is one line changed in every host. Real copier update
across real tags.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers import (
    ANSWERS,
    MEMORY,
    commit_all,
    copy_template,
    git,
    host_script,
    replace_in,
    run_ops,
    snapshot_template,
    update_project,
)
from tests.memory_helpers import episode, fact, verify_findings

SKILL_SRC = "template/{{skill_path}}/eco-mem/SKILL.md.jinja"


def changed_lines(host: Path) -> list[tuple[str, str]]:
    """(file, "+line" or "-line") for every line the update changed, tracked or new."""
    git(host, "add", "-A")
    diff = git(host, "diff", "--cached", "--unified=0", "--no-renames")
    changes, current = [], ""
    for line in diff.splitlines():
        if line.startswith("+++ b/"):
            current = line[len("+++ b/") :]
        elif line.startswith("--- a/"):
            current = line[len("--- a/") :]
        elif line.startswith(("+", "-")) and not line.startswith(("+++", "---")):
            changes.append((current, line))
    return sorted(changes)


def released_then_updated(tmp_path: Path, dst: Path, change) -> list[tuple[str, str]]:
    template = snapshot_template(tmp_path / "eco-mem", "v1.0.0")
    copy_template(template, dst, vcs_ref="v1.0.0")
    commit_all(dst, "install eco-mem v1.0.0")
    snapshot_template(template, "v1.0.1", mutate=change)
    update_project(dst, vcs_ref="v1.0.1")
    return changed_lines(dst)


VERSION_ONLY = [(ANSWERS, "+_commit: v1.0.1"), (ANSWERS, "-_commit: v1.0.0")]


def test_a_release_of_operator_code_only_changes_nothing_but_the_version(
    tmp_path: Path, dst: Path
) -> None:
    def operator_only(repo: Path) -> None:
        operator_files = [
            path
            for part in ("extensions", "eco_mem_ops")
            for path in sorted((repo / part).rglob("*.py"))
        ]
        assert operator_files, "no operator code to change"
        for path in operator_files:
            path.write_text(path.read_text(encoding="utf-8") + "# v1.0.1\n", encoding="utf-8")

    assert released_then_updated(tmp_path, dst, operator_only) == VERSION_ONLY


def test_one_line_of_skill_md_is_one_line_in_the_host(tmp_path: Path, dst: Path) -> None:
    def reword(repo: Path) -> None:
        replace_in(repo / SKILL_SRC, "## Relay at task end", "## Relay when the task ends")

    skill = ".agents/skills/eco-mem/SKILL.md"
    assert released_then_updated(tmp_path, dst, reword) == sorted(
        [
            *VERSION_ONLY,
            (skill, "+## Relay when the task ends"),
            (skill, "-## Relay at task end"),
        ]
    )


# The budget for a release that changes only SKILL.md's text (issue 45).
TEXT_RELEASE_BUDGET = 20


def folder_bytes(root: Path, folder: str) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted((root / folder).rglob("*"))
        if path.is_file()
    }


def test_a_skill_md_release_through_upgrade_leaves_runtime_and_memory_bytes_alone(
    tmp_path: Path, dst: Path
) -> None:
    template = snapshot_template(tmp_path / "eco-mem", "v1.0.0")
    copy_template(template, dst, vcs_ref="v1.0.0")
    commit_all(dst, "install eco-mem v1.0.0")
    for written in (fact(dst, "Builds run offline"), episode(dst, "Flaky upload step")):
        assert written.returncode == 0, written.stderr
    commit_all(dst, "memory")
    runtime = host_script(dst).read_bytes()
    memory = folder_bytes(dst, MEMORY)

    def reword(repo: Path) -> None:
        replace_in(repo / SKILL_SRC, "## Relay at task end", "## Relay when the task ends")

    snapshot_template(template, "v1.0.1", mutate=reword)
    # The operator's path, as docs/updating.md gives it; this install recorded no
    # trusted source, so --template names it.
    upgraded = run_ops(
        dst, "upgrade", "--template", str(template), "--", "--defaults", "--vcs-ref", "v1.0.1"
    )
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr

    changes = changed_lines(dst)
    assert (ANSWERS, "+_commit: v1.0.1") in changes
    assert len(changes) <= TEXT_RELEASE_BUDGET, changes
    # A binary file's change has no +/- lines: numstat names it with "-".
    binary = [
        row for row in git(dst, "diff", "--cached", "--numstat").splitlines() if row[0] == "-"
    ]
    assert binary == []
    assert host_script(dst).read_bytes() == runtime
    assert folder_bytes(dst, MEMORY) == memory
    assert verify_findings(dst) == []
