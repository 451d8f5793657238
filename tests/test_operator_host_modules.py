"""The operator never imports a module the host repository holds.

`python -c CODE` and `python -m MODULE` put the working folder first on sys.path, and
the operator works in the host: `ops.py upgrade --root .` is run from it, and the fleet
runs each repository's fix with its clone as the working folder. So a probe such as
`python -c "import copier_template_extensions"` or a `python -m copier` there imports a
`copier_template_extensions.py` or `copier.py` a commit put at the host's root, as the
operator, before any trust check. Real copier, real git, a real all-repos fleet.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from tests.fleet import (
    clone_all,
    make_origin,
    read_report,
    run_module,
    seed_render,
    two_releases,
    write_config,
)
from tests.helpers import (
    ANSWERS,
    build_files,
    commit_all,
    copy_of,
    copy_template,
    init_repo,
    run_ops,
)

# Module names the operator's Python imports, or runs with -m, on its way to Copier.
SHADOWS = ("copier", "copier_template_extensions", "yaml", "jinja2", "plumbum")


def plant(work: Path, markers: Path) -> None:
    """A root module for each name, each leaving a marker when imported, and `copier`
    and `git` programs for a PATH with an empty (current folder) entry."""
    build_files(
        work,
        {
            f"{name}.py": f"open({str(markers / name)!r}, 'a').write('imported\\n')\n"
            for name in SHADOWS
        },
    )
    for name in ("copier", "git"):
        program, marker = work / name, markers / f"{name}-program"
        program.write_text(f"#!{sys.executable}\nopen({str(marker)!r}, 'a')\n", encoding="utf-8")
        program.chmod(0o755)


def test_ops_upgrade_run_from_the_host_imports_none_of_its_modules(tmp_path: Path) -> None:
    template = two_releases(tmp_path / "eco-mem")
    markers = tmp_path / "markers"
    markers.mkdir()
    installed = init_repo(tmp_path / "installed")
    copy_template(template, installed, vcs_ref="v1.0.0")
    plant(installed, markers)
    commit_all(installed, "install, and some tools")
    venv_bin = os.path.dirname(sys.executable)
    # Copier on PATH (a venv), then only as a module of the operator's Python.
    bare_path = os.pathsep.join(
        folder
        for folder in os.environ["PATH"].split(os.pathsep)
        if not os.path.isfile(os.path.join(folder, "copier"))
    )
    # And a PATH that ends in `:` or holds an empty entry: a shell reads it as ".".
    with_venv = f"{venv_bin}{os.pathsep}{os.environ['PATH']}"
    for number, path in enumerate((with_venv, bare_path, os.pathsep + with_venv)):
        host = copy_of(installed, tmp_path / f"run-{number}")  # each from the same install
        done = run_ops(host, "upgrade", "--vcs-ref", "v2.0.0", env={**os.environ, "PATH": path})
        assert sorted(os.listdir(markers)) == [], (done.stdout, done.stderr)
        assert done.returncode == 0, (done.stdout, done.stderr)
        assert "_commit: v2.0.0" in (host / ANSWERS).read_text(encoding="utf-8")


def test_the_fleet_imports_none_of_a_repositorys_modules(tmp_path: Path) -> None:
    template = two_releases(tmp_path / "eco-mem")
    markers = tmp_path / "markers"
    markers.mkdir()

    def to_install(work: Path) -> None:
        plant(work, markers)

    def to_upgrade(work: Path) -> None:
        seed_render(template, work, "v1.0.0")
        plant(work, markers)

    origins = {
        "to-install": make_origin(tmp_path, "to-install", to_install),
        "to-upgrade": make_origin(tmp_path, "to-upgrade", to_upgrade),
    }
    config = write_config(tmp_path, {name: str(path) for name, path in origins.items()})
    results = {}
    for action in ("install", "upgrade"):
        clone_all(config)
        report = tmp_path / f"{action}.jsonl"
        done = run_module(
            f"eco_mem_fleet.{action}", "-C", str(config), "--template", str(template),
            "--report", str(report), ci=True, env={"PATH": os.pathsep + os.environ["PATH"]},
        )  # fmt: skip
        results[action] = (done, read_report(report))
    assert sorted(os.listdir(markers)) == [], results
    assert results["install"][1]["to-install"]["result"] == "installed", results["install"]
    assert results["upgrade"][1]["to-upgrade"]["result"] == "upgraded", results["upgrade"]
