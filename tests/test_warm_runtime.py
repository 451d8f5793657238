"""warm_runtime.py answers `python eco_mem.pyz ARGS` as a new interpreter does: the same
exit code, stdout and stderr, stdin and environment honoured; and it never runs modules
from a cache tree that changed since it set them aside.

Each case runs twice on twin hosts: once warm, once as a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import warm_runtime
from tests.helpers import SKILL, commit_all, copy_template, init_repo

SCRIPT = f"{SKILL}/scripts/eco_mem.pyz"
FACT = ("new", "semantic", "--title", "Deploys go to eu-west-1", "--source", "verified")
CASES = {
    "verify": (["verify"], None, {}),
    "verify --json": (["verify", "--json"], None, {}),
    "help": (["--help"], None, {}),
    "usage error": (["no-such-command"], None, {}),
    "refused write": ([*FACT, "--scope", "repo", "--body", "maybe? I think so"], None, {}),
    "body on stdin": (
        [*FACT, "--scope", "repo", "--expires", "never", "--body", "-"],
        "Yes.\n",
        {},
    ),
    "find": (["find", "deploy"], None, {}),
    "environment": (["context"], None, {"CLAUDE_PROJECT_DIR": "."}),
}


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory, template_repo: Path) -> tuple[Path, Path]:
    hosts = []
    for name in ("warm", "cold"):
        host = init_repo(tmp_path_factory.mktemp(name) / "host")
        copy_template(template_repo, host)
        commit_all(host, "install")
        hosts.append(host)
    return hosts[0], hosts[1]


@pytest.mark.parametrize("case", CASES)
def test_a_warm_run_answers_as_a_new_interpreter(twins: tuple[Path, Path], case: str) -> None:
    args, stdin, extra = CASES[case]
    warm_host, cold_host = twins
    env = {**os.environ, **extra}
    warm = warm_runtime.run(SCRIPT, args, cwd=str(warm_host), input=stdin, env=env)
    cold = subprocess.run(
        [sys.executable, SCRIPT, *args],
        cwd=cold_host,
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        env=env,
    )

    def seen(result: subprocess.CompletedProcess, host: Path) -> tuple:
        return result.returncode, result.stdout.replace(str(host), "HOST"), result.stderr

    assert seen(warm, warm_host) == seen(cold, cold_host)


def test_set_aside_modules_are_not_used_once_a_file_of_their_tree_changed(
    tmp_path: Path,
) -> None:
    """A tree whose files changed (a tampered cache) is imported again, as the runtime
    would import it: here a copy of a tree, one module rewritten with the same bytes."""
    from eco_mem_ops.runtime_build import build, digest

    tree = Path(warm_runtime._cache_tree(digest(build())))
    if not tree.is_dir():
        pytest.skip("no unpacked tree of this runtime yet")
    copy = tmp_path / "tree"
    subprocess.run(["cp", "-a", str(tree), str(copy)], check=True)
    aside = warm_runtime.SetAside(str(copy))
    assert aside.modules, "nothing was set aside"
    sys.path.insert(0, str(copy))
    try:
        assert aside.usable()
        module = copy / "ecomem" / "cli.py"
        module.chmod(0o644)
        module.write_bytes(module.read_bytes())
        assert not aside.usable()
    finally:
        sys.path.remove(str(copy))
