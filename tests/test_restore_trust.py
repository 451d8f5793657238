"""`restore-indexes` renders only the template this clone trusts (review 3, item 2).

Every Copier call of the rendered scripts goes through install/copier_run.py, whose
`released` requires the recorded source before it fetches the releases: an answers file whose
`_src_path` a commit changed is refused in one line before Copier starts, so the
other template's Jinja extension, task or migration never runs. copier.yml's
after-migration names the template Copier is running, so a plain `copier update`
still restores a deleted INDEX in a fresh clone that has no trust record.
Real copier, real git, temp folders.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import (
    ANSWERS,
    MEMORY,
    assert_exit,
    assert_no_traceback,
    commit_all,
    copier_cli,
    copy_template,
    git,
    run_ops,
    snapshot_template,
)
from tests.test_update_trust import set_source


def extension_attacker(root: Path, marker: Path) -> Path:
    """Our template, tagged v9.0.0, whose Jinja extension touches `marker` when loaded."""

    def poison(repo: Path) -> None:
        with (repo / "extensions/answers.py").open("a", encoding="utf-8") as module:
            module.write(f"\nopen({str(marker)!r}, 'w').close()\n")

    return snapshot_template(root / "attacker", "v9.0.0", mutate=poison)


def test_restore_indexes_refuses_an_edited_src_path_and_never_runs_it(
    template_repo: Path, dst: Path, tmp_path: Path
) -> None:
    copy_template(template_repo, dst)
    commit_all(dst, "install eco-mem")
    marker = tmp_path / "attacker-ran"
    attacker = extension_attacker(tmp_path, marker)
    answers = (dst / ANSWERS).read_text(encoding="utf-8")
    (dst / ANSWERS).write_text(re.sub(r"(?m)^_commit:.*$", "_commit: v9.0.0", answers))
    set_source(dst, str(attacker))
    git(dst, "rm", "-q", f"{MEMORY}/procedural/INDEX.md")
    commit_all(dst, "drop an INDEX")

    result = assert_exit(run_ops(dst, "restore-indexes"), 2)
    assert_no_traceback(result)
    assert "is not the template this clone trusts" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not marker.exists()
    assert not (dst / MEMORY / "procedural/INDEX.md").exists()


def test_restore_indexes_refuses_a_source_that_reads_as_an_option(
    template_repo: Path, dst: Path, tmp_path: Path
) -> None:
    copy_template(template_repo, dst)
    commit_all(dst, "install eco-mem")
    marker = tmp_path / "upload-pack-ran"
    set_source(dst, f'"--upload-pack=touch {marker}"')
    git(dst, "rm", "-q", f"{MEMORY}/semantic/INDEX.md")
    commit_all(dst, "drop an INDEX")
    result = assert_exit(run_ops(dst, "restore-indexes"), 2)
    assert "starts with '-'" in result.stderr and not marker.exists()


def test_a_plain_copier_update_restores_an_index_in_a_fresh_clone(
    template_repo: Path, dst: Path, tmp_path: Path
) -> None:
    copy_template(template_repo, dst)
    commit_all(dst, "install eco-mem")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(dst), str(clone))
    git(clone, "config", "user.email", "t@example.com")
    git(clone, "config", "user.name", "t")
    git(clone, "rm", "-q", f"{MEMORY}/episodic/INDEX.md")
    git(clone, "commit", "-qm", "drop an INDEX")
    # No trust record in this clone: restore-indexes by hand is refused...
    refused = assert_exit(run_ops(clone, "restore-indexes"), 2)
    assert "no template source is recorded for this clone" in refused.stderr
    # ...but the update the person ran with --trust names its template to the migration.
    done = copier_cli(
        "update", "--trust", "--defaults", "-a", ANSWERS, "--vcs-ref", "HEAD", cwd=clone
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (clone / MEMORY / "episodic/INDEX.md").is_file(), done.stdout + done.stderr
