"""A local fleet for the eco_mem_fleet tests and benchmark: bare "origin" repos, an
all-repos config listing them through the json_file source, pushes by merge_to_master.

Everything is real git and real all-repos, in temp folders, with no network.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.helpers import (
    MEMORY,
    PROJECT,
    SKILL,
    build_files,
    copy_template,
    git,
    init_repo,
    replace_in,
    snapshot_template,
)

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

# A host's .gitignore that ignores everything under .agents/ but one skill.
ALLOW_LIST = (
    "node_modules/\n.agents/*\n!.agents/skills/\n.agents/skills/*\n"
    "!.agents/skills/review/\n.agents/skills/review/*\n!.agents/skills/review/SKILL.md\n"
)


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


# Renders of a template at a ref, made once, whose files seed_render copies.
SEED_RENDERS: dict[tuple[Path, str], Path] = {}


def seed_render(template: Path, work: Path, ref: str) -> None:
    """The files `copy_template(template, work, vcs_ref=ref)` leaves in `work` (a seed's
    new repository), copied from one render of that release: an origin gets the files,
    not the git state the render's tasks left in its clone. Renders are the slow part of
    a fleet's set-up, and most seeds start from the same one."""
    made = SEED_RENDERS.get((template, ref))
    if made is None:
        made = init_repo(template.parent / f"{template.name}-render-{ref}")
        copy_template(template, made, vcs_ref=ref)
        SEED_RENDERS[(template, ref)] = made
    shutil.copytree(
        made, work, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git")
    )


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


def seeds(template: Path) -> dict[str, tuple]:
    """name -> (seed function, default branch): one repository per situation."""

    def at(ref: str, then=None):
        def seed(work: Path) -> None:
            seed_render(template, work, ref)
            if then:
                then(work)

        return seed

    def fork_skill(work: Path) -> None:
        replace_in(work / SKILL / "SKILL.md", "\n# eco-mem\n", "\n# eco-mem, our fork\n")

    def team_memory(work: Path) -> None:
        build_files(work, TEAM_MEMORY)
        for drawer, row in TEAM_ROWS.items():
            with (work / MEMORY / drawer / "INDEX.md").open("a", encoding="utf-8") as index:
                index.write(row)

    def files(content: dict[str, str]):
        return lambda work: build_files(work, content)

    other_answers = "_src_path: gh:acme/service-template\n_commit: v7.0.0\nname: billing\n"
    return {
        "fresh": (files({}), "master"),
        "agents-md": (files({"AGENTS.md": "# Team rules\n\nRun make test.\n"}), "master"),
        "other-template": (files({".copier-answers.yml": other_answers}), "master"),
        "allow-list": (
            files({".gitignore": ALLOW_LIST, ".agents/skills/review/SKILL.md": "# review\n"}),
            "master",
        ),
        "existing-skill": (files({".agents/skills/review/SKILL.md": "# review\n"}), "master"),
        "main-branch": (files({}), "main"),
        "at-v1": (at("v1.0.0"), "master"),
        "at-v2": (at("v2.0.0"), "master"),
        "forked-skill": (at("v1.0.0", fork_skill), "master"),
        "team-memory": (at("v1.0.0", team_memory), "master"),
        "deleted-index": (
            at("v1.0.0", lambda work: (work / MEMORY / "episodic/INDEX.md").unlink()),
            "master",
        ),
    }


class Fleet:
    """The origins seeds() describes plus one that cannot be cloned, their all-repos
    config, and what each labelled run did."""

    def __init__(self, root: Path, template: Path, only: tuple[str, ...] = ()) -> None:
        """Every situation seeds() describes, or `only` the ones named (each costs its
        renders and a run of every program over it)."""
        self.root, self.template = root, template
        self.origins: dict[str, Path] = {}
        for name, (seed, branch) in seeds(template).items():
            if not only or name in only:
                self.origins[name] = make_origin(root, name, seed, branch)
        # Listed, but nothing is there to clone.
        self.origins["unclonable"] = root / "origins" / "unclonable.git"
        self.config = write_config(root, {name: str(path) for name, path in self.origins.items()})
        self.runs: dict[str, tuple] = {}

    def run(self, label: str, module: str, *args: str, ci: bool = False, log: bool = True):
        """Refresh the clones, run one program with a JSON report, keep what it did.

        all-repos' log goes to LABEL.log beside the report, unless `log` is false."""
        clone_all(self.config)
        report = self.root / f"{label}.jsonl"
        if log:
            args = (*args, "--log", str(self.root / f"{label}.log"))
        before = heads(self.origins)
        result = run_module(module, "-C", str(self.config), "--report", str(report), *args, ci=ci)
        outcomes = read_report(report)
        self.runs[label] = (result, outcomes, before, heads(self.origins))
        return self.runs[label]


def install(fleet: Fleet) -> None:
    """The install every later step of the story starts from: two jobs, and the `ci`
    question answered through --data-file."""
    answers = fleet.root / "answers.yml"
    answers.write_text("ci: github-actions\n", encoding="utf-8")
    fleet.run(
        *("install", "eco_mem_fleet.install", "--template", str(fleet.template), "-j", "2"),
        *("--data-file", str(answers)),
    )


def results(fleet: Fleet, label: str) -> dict[str, str]:
    """The run LABEL's result per repository, from its report."""
    return {repo: row["result"] for repo, row in fleet.runs[label][1].items()}
