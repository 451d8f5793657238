"""A local fleet for the eco_mem_fleet tests and benchmark: bare "origin" repos, an
all-repos config listing them through the json_file source, pushes by merge_to_master.

Everything is real git and real all-repos, in temp folders, with no network.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.helpers import MEMORY, PROJECT, git, init_repo, replace_in, snapshot_template

Seed = Callable[[Path], None]
SKILL_SRC = "template/{{skill_path}}/eco-mem/SKILL.md.jinja"
BLOCKS_SRC = "runtime/ecomem/hostfiles/blocks.py"
# A team's memory: two entries and their catalog rows.
TEAM_MEMORY = {
    f"{MEMORY}/semantic/deploy-target.md": (
        "# Deploys go to eu-west-1\n\n- as_of: 2026-09-09\n- source: verified\n"
        "- scope: deploy\n- expires: never\n\nProduction deploys go to eu-west-1.\n"
    ),
    f"{MEMORY}/episodic/2026-10-01-deploy.md": (
        "# Deploy failed\n\n## Context\nDeploy.\n\n## Action\nRan it.\n\n"
        "## Result\nFailed.\n\n## Lesson\nRun migrations first.\n"
    ),
}
TEAM_ROWS = {
    "semantic": "| deploy-target | deploys go to eu-west-1 | 2026-09-09 | verified | deploy-target.md |\n",
    "episodic": "| 2026-10-01 | deploy failed | migrations first | 2026-10-01-deploy.md |\n",
}


def release_v2(repo: Path) -> None:
    """v2 of the template: a new SKILL.md title and a new AGENTS.md block heading."""
    replace_in(repo / SKILL_SRC, "\n# eco-mem\n", "\n# eco-mem, v2\n")
    replace_in(repo / BLOCKS_SRC, "## Agent memory (eco-mem)", "## Memory for agents (eco-mem)")


def two_releases(repo: Path) -> Path:
    """The template at `repo` with tags v1.0.0 and v2.0.0 (see release_v2)."""
    snapshot_template(repo, "v1.0.0")
    snapshot_template(repo, "v2.0.0", mutate=release_v2)
    return repo


def read_report(path: Path) -> dict[str, dict]:
    """A --report file as {repo: its JSON object}; empty when none was written."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    return {row["repo"]: row for row in map(json.loads, lines)}


def make_origin(root: Path, name: str, seed: Seed, branch: str = "master") -> Path:
    """A bare repository `root/origins/NAME.git` whose default branch holds what `seed` wrote."""
    work = root / "seeds" / name
    init_repo(work)
    git(work, "branch", "-m", branch)
    (work / "README.md").write_text(f"# {name}\n", encoding="utf-8")
    seed(work)
    git(work, "add", "-A")
    git(work, "commit", "-q", "--allow-empty", "-m", "seed")
    origin = root / "origins" / f"{name}.git"
    origin.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", "--bare", "-b", branch, str(origin)], check=True)
    git(work, "push", "-q", str(origin), f"{branch}:{branch}")
    return origin


def write_config(root: Path, repos: dict[str, str]) -> Path:
    """all-repos.json (mode 0600, as all-repos demands) plus the json_file source's list."""
    listing = root / "repos.json"
    listing.write_text(json.dumps(repos), encoding="utf-8")
    config = root / "all-repos.json"
    config.write_text(
        json.dumps(
            {
                "output_dir": "clones",
                "source": "all_repos.source.json_file",
                "source_settings": {"filename": str(listing)},
                "push": "all_repos.push.merge_to_master",
                "push_settings": {},
            }
        ),
        encoding="utf-8",
    )
    config.chmod(0o600)
    return config


def run_module(
    module: str, *args: str, ci: bool = False, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """`python -m MODULE ARGS` as an operator types it, from the project root, with
    `env` added to this process's environment."""
    env = {**os.environ, "CI": "true" if ci else "false", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )


def clone_all(config: Path) -> None:
    result = run_module("all_repos.clone", "-C", str(config))
    assert result.returncode == 0, result.stdout + result.stderr


def heads(origins: dict[str, Path]) -> dict[str, str]:
    """Every origin's branch tips: what a push would change."""
    return {
        name: git(origin, "for-each-ref", "--format=%(refname) %(objectname)")
        for name, origin in origins.items()
        if origin.exists()
    }


def origin_file(origin: Path, path: str) -> bytes | None:
    shown = subprocess.run(
        ["git", "--git-dir", str(origin), "show", f"HEAD:{path}"], capture_output=True
    )
    return shown.stdout if shown.returncode == 0 else None


def origin_files(origin: Path) -> list[str]:
    return git(origin, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
