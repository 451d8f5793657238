"""Fleet status names a runtime a commit changed, whatever kind of file changed it.

Python imports an extension module (`cli.cpython-311-x86_64-linux-gnu.so`) before the
`cli.py` beside it, and an `ecomem/answers.yml` beside answers_file.py is the
record only the git dir's copy keeps (a work tree's runtime no longer reads one, but
it has no business there). Neither is a `.py` file, so a status that
compared only the Python files called such a runtime the release's. A real all-repos
fleet of local origins, real copier and git.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.fleet import clone_all, make_origin, run_module, seed_render, two_releases, write_config
from tests.helpers import SKILL, build_files, run_script

SCRIPTS = f"{SKILL}/scripts"
# Where a branch points the host's commands without touching the answers file.
ELSEWHERE = "memory_path: notes\nskill_path: .agents/skills\n"


def test_status_names_a_runtime_changed_by_files_that_are_not_python(tmp_path: Path) -> None:
    template = two_releases(tmp_path / "eco-mem")

    def added(files: dict[str, str | bytes]):
        def seed(work: Path) -> None:
            seed_render(template, work, "v2.0.0")
            build_files(work, files)

        return seed

    seeds = {
        "as-shipped": added({}),
        "extension": added({f"{SCRIPTS}/ecomem/cli.cpython-311-x86_64-linux-gnu.so": b"\x7fELF"}),
        "answers": added({f"{SCRIPTS}/ecomem/answers.yml": ELSEWHERE}),
        # Never read by the runtime (eco_mem.pyz caches bytecode outside the repository).
        "bytecode-cache": added({f"{SCRIPTS}/ecomem/__pycache__/cli.cpython-311.pyc": b"x"}),
    }
    origins = {name: make_origin(tmp_path, name, seed) for name, seed in seeds.items()}
    config = write_config(tmp_path, {name: str(path) for name, path in origins.items()})
    clone_all(config)
    result = run_module(
        "eco_mem_fleet.status", "-C", str(config), "--template", str(template), "--json"
    )
    repos = {repo["repo"]: repo for repo in json.loads(result.stdout)["repos"]}
    assert repos["as-shipped"]["ok"] is True, repos["as-shipped"]
    assert repos["bytecode-cache"]["ok"] is True, repos["bytecode-cache"]
    assert repos["extension"]["problem"] == (
        "scripts differ from v2.0.0's: 1 file(s) (ecomem/cli.cpython-311-x86_64-linux-gnu.so)"
    )
    assert repos["answers"]["problem"] == (
        "scripts differ from v2.0.0's: 1 file(s) (ecomem/answers.yml)"
    )
    assert result.returncode == 1, result.stderr


def test_an_answers_record_a_commit_adds_to_the_scripts_is_not_read(host: Path) -> None:
    """The record beside answers_file.py is the git dir's copy's alone: in the work tree
    a file by that name is a commit's, and the commands read the answers file."""
    build_files(host, {f"{SCRIPTS}/ecomem/answers.yml": ELSEWHERE})
    said = run_script(host, "find", "x")
    assert said.returncode == 0, (said.stdout, said.stderr)
    assert "notes" not in said.stdout + said.stderr, (said.stdout, said.stderr)
    assert ".agents/memory" in said.stdout + said.stderr
