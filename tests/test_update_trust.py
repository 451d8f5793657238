"""`ops.py upgrade` runs only a template this clone was told to trust, never reads
repository data as a git option, answers an up-to-date install without Copier, and the
install's tasks never run a module the host left in the scripts folder (issue 27).

Real copier, real git, temp folders; the attacker's template is a real tagged template
whose migration and task would leave a marker file if they ever ran.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import (
    ANSWERS,
    PROJECT,
    SKILL,
    assert_exit,
    assert_no_traceback,
    commit_all,
    copy_template,
    git,
    init_repo,
    replace_in,
    run_ops,
    run_script,
    snapshot_template,
)


def attacker_template(root: Path, marker: Path) -> Path:
    """Our template, tagged higher, with a task and a migration that touch `marker`."""

    def poison(repo: Path) -> None:
        with (repo / "copier.yml").open("a", encoding="utf-8") as config:
            config.write(f'  - command: ["touch", "{marker}"]\n')
        replace_in(
            repo / "copier.yml", "_tasks:\n", f'_tasks:\n  - command: ["touch", "{marker}"]\n'
        )

    return snapshot_template(root / "attacker", "v9.0.0", mutate=poison)


def set_source(host: Path, source: str) -> None:
    """The one-line `_src_path:` edit a branch can make, committed."""
    text = (host / ANSWERS).read_text(encoding="utf-8")
    lines = [
        f"_src_path: {source}" if line.startswith("_src_path:") else line
        for line in text.splitlines()
    ]
    (host / ANSWERS).write_text("\n".join(lines) + "\n", encoding="utf-8")
    commit_all(host, "point at another template")


def test_an_edited_src_path_is_refused_and_its_template_never_runs(
    host: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "attacker-ran"
    attacker = attacker_template(tmp_path, marker)
    set_source(host, str(attacker))

    result = assert_exit(run_ops(host, "upgrade"), 2)
    assert_no_traceback(result)
    assert "is not the template this clone trusts" in result.stderr
    assert f"ops.py upgrade --template {attacker}" in result.stderr  # how, on purpose
    assert len(result.stderr.strip().splitlines()) == 1
    assert not marker.exists()
    assert git(host, "status", "--porcelain") == ""


def test_a_source_under_an_unknown_home_folder_is_one_refusal(host: Path) -> None:
    # pathlib's expanduser raises for `~nosuchuser`; the check must answer in one line.
    set_source(host, "~no-such-user-here/eco-mem")

    result = assert_exit(run_ops(host, "upgrade"), 2)
    assert_no_traceback(result)
    assert "is not the template this clone trusts" in result.stderr
    assert git(host, "status", "--porcelain") == ""


# Lines Copier's YAML reads otherwise than a line reader would: each could hand Copier a
# `_src_path` the trust check never saw (the third review's variant of reproduction 2).
SHAPES_YAML_READS_OTHERWISE = {
    "quoted-duplicate-key": '"_src_path": {evil}\n"_commit": v9.0.0\n',
    "plain-duplicate-key": "_src_path: {evil}\n",
    "continuation": "_src_path: {evil}\n  more\n",
    "tag": "_commit: !!str v9.0.0\n",
    "flow-value": "_commit: [v9.0.0]\n",
    "anchor": "_commit: &a v9.0.0\n",
}
# Lines on which the reader once kept another string than YAML does.
SHAPES_YAML_KEEPS_OTHERWISE = {
    # YAML keeps a no-break space; str.strip() would have dropped it.
    "no-break-space-before-source": "_src_path: \u00a0{trusted}",
    "no-break-space-after-source": "_src_path: {trusted}\u00a0",
    # YAML reads these as numbers, dates or booleans; Copier quotes such strings.
    "octal-commit": "_commit: 0777",
    "sexagesimal-commit": "_commit: 1:30",
    "date-commit": "_commit: 2001-12-14",
}


@pytest.mark.parametrize("shape", sorted(SHAPES_YAML_KEEPS_OTHERWISE))
def test_an_answers_value_yaml_keeps_otherwise_is_refused(host: Path, shape: str) -> None:
    text = (host / ANSWERS).read_text(encoding="utf-8")
    key = SHAPES_YAML_KEEPS_OTHERWISE[shape].split(":")[0]
    trusted = next(line for line in text.splitlines() if line.startswith("_src_path:"))
    trusted = trusted.split(": ", 1)[1]
    lines = [
        SHAPES_YAML_KEEPS_OTHERWISE[shape].format(trusted=trusted)
        if line.startswith(f"{key}:")
        else line
        for line in text.splitlines()
    ]
    (host / ANSWERS).write_text("\n".join(lines) + "\n", encoding="utf-8")
    commit_all(host, "an answers value YAML keeps otherwise")

    result = assert_exit(run_ops(host, "upgrade"), 2)
    assert_no_traceback(result)
    assert len(result.stderr.strip().splitlines()) == 1
    assert f"{ANSWERS}: line" in result.stderr
    assert git(host, "status", "--porcelain") == ""


@pytest.mark.parametrize("shape", sorted(SHAPES_YAML_READS_OTHERWISE))
def test_an_answers_line_yaml_reads_otherwise_is_refused_and_nothing_runs(
    host: Path, tmp_path: Path, shape: str
) -> None:
    marker = tmp_path / "attacker-ran"
    attacker = attacker_template(tmp_path, marker)
    with (host / ANSWERS).open("a", encoding="utf-8") as answers:
        answers.write(SHAPES_YAML_READS_OTHERWISE[shape].format(evil=attacker))
    commit_all(host, "an answers file only YAML reads one way")

    result = assert_exit(run_ops(host, "upgrade"), 2)
    assert_no_traceback(result)
    assert "is not in the shape Copier writes" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert str(attacker) not in result.stderr
    assert not marker.exists()
    assert git(host, "status", "--porcelain") == ""


def test_a_fresh_clone_names_its_source_once_then_upgrades(
    host: Path, template_repo: Path, tmp_path: Path
) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(host), str(clone))
    git(clone, "config", "user.email", "t@example.com")
    git(clone, "config", "user.name", "t")

    refused = assert_exit(run_ops(clone, "upgrade"), 2)
    assert "no template source is recorded for this clone" in refused.stderr
    assert f"--template {template_repo}" in refused.stderr

    done = assert_exit(run_ops(clone, "upgrade", "--template", str(template_repo)), 0)
    assert "already at" in done.stdout
    assert git(clone, "status", "--porcelain") == ""  # the same home: nothing to commit
    assert_exit(run_ops(clone, "upgrade"), 0)  # trusted from now on


@pytest.mark.parametrize("how", ["answers", "--template"])
def test_a_source_that_reads_as_a_git_option_runs_nothing(
    host: Path, tmp_path: Path, how: str
) -> None:
    marker = tmp_path / "upload-pack-ran"
    source = f"--upload-pack=touch {marker}"
    if how == "answers":
        set_source(host, f'"{source}"')
        result = run_ops(host, "upgrade")
    else:
        result = run_ops(host, "upgrade", f"--template={source}")

    assert_exit(result, 2)
    assert_no_traceback(result)
    assert "starts with '-'" in result.stderr
    assert not marker.exists()


def test_a_ref_that_reads_as_an_option_is_refused(host: Path) -> None:
    result = assert_exit(run_ops(host, "upgrade", "--vcs-ref=--output=x"), 2)
    assert "starts with '-'" in result.stderr


def fake_copier(folder: Path, marker: Path) -> dict[str, str]:
    """An environment whose first `copier` on PATH only leaves `marker`."""
    folder.mkdir()
    fake = folder / "copier"
    fake.write_text(f"#!/bin/sh\ntouch {marker}\nexit 3\n", encoding="utf-8")
    fake.chmod(0o755)
    return {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}


def test_an_up_to_date_upgrade_answers_in_one_line_without_copier(
    host: Path, template_repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "copier-ran"
    env = fake_copier(tmp_path / "bin", marker)
    result = run_ops(host, "upgrade", env=env)
    assert_exit(result, 0)
    assert result.stdout.splitlines() == [
        f"eco-mem is already at v0.0.1, the newest release of {template_repo}; nothing to do"
    ]
    assert not marker.exists()


def test_the_copier_hint_appends_the_templates_venv_to_path(
    template_repo: Path, tmp_path: Path
) -> None:
    # Copier not found; the template (outside the repository) has it in its .venv.
    outside = tmp_path / "template-clone"
    shutil.copytree(template_repo, outside, symlinks=True)
    (outside / ".venv/bin").mkdir(parents=True)
    (outside / ".venv/bin/copier").write_text("#!/bin/sh\n", encoding="utf-8")
    host = init_repo(tmp_path / "host")
    copy_template(outside, host)
    git(outside, "tag", "v0.0.2")  # a newer release, so the fast answer does not apply
    commit_all(host, "install eco-mem")
    python = shutil.which("python3", path="/usr/bin:/bin")
    if python is None or subprocess.run([python, "-c", "import copier"]).returncode == 0:
        pytest.skip("needs a python3 without copier")
    git_dir = os.path.dirname(shutil.which("git") or "/usr/bin/git")
    result = subprocess.run(
        [python, "-I", str(PROJECT / "ops.py"), "upgrade", "--root", "."],
        cwd=host,
        env={**os.environ, "PATH": git_dir},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert_exit(result, 2)
    assert f"PATH=$PATH{os.pathsep}{outside / '.venv/bin'} " in result.stderr
    assert f"PATH={outside}" not in result.stderr


def test_a_host_module_in_the_scripts_folder_never_runs_during_copy(
    template_repo: Path, dst: Path, tmp_path: Path
) -> None:
    # A repository without eco-mem already holds <skill>/scripts/argparse.py; the copy
    # keeps it, and its tasks (blocks, track) must not import it in place of the stdlib.
    marker = tmp_path / "shadow-ran"
    scripts = dst / SKILL / "scripts"
    scripts.mkdir(parents=True)
    for name in ("argparse.py", "json.py", "subprocess.py"):
        (scripts / name).write_text(
            f"open({str(marker)!r}, 'a').write({name!r})\nraise SystemExit(9)\n",
            encoding="utf-8",
        )
    commit_all(dst, "a host module where the skill goes")

    copy_template(template_repo, dst)

    assert not marker.exists()
    assert (dst / "AGENTS.md").is_file()  # the blocks task ran, from our modules
    # And the script run by hand, as a person or hook does, keeps the stdlib first too.
    result = run_script(dst, "verify")
    assert result.returncode in (0, 1), result.stderr
    assert not marker.exists()


def test_an_up_to_date_upgrade_loads_none_of_the_upgrade_machinery(host: Path) -> None:
    # Issue 28 item 8: the answer comes before Copier's set-up, the upgrade and the
    # driver load, which is what keeps it near verify's cost (benchmarks/upgrade_current.py
    # measures the ratio; a timed test would only measure the machine's load).
    result = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-I",
            str(PROJECT / "ops.py"),
            "upgrade",
            "--root",
            ".",
        ],
        cwd=host,
        capture_output=True,
        text=True,
    )
    assert_exit(result, 0)
    assert "nothing to do" in result.stdout, result.stdout
    loaded = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    assert "eco_mem_ops.commands.upgrade" in loaded
    machinery = {"eco_mem_ops.install.upgrade", "eco_mem_ops.install.copier_setup"}
    assert not (machinery | {"ecomem.gitsetup.driver"}) & loaded


SOURCES_COPIER_READS = [
    "gh:org/eco-mem",
    "gh:/org/eco-mem.git",
    "gl:group/sub/eco-mem",
    "git+https://git.example.com/eco-mem",
    "git+foo",
    "git+host:eco-mem",
    "https://github.com/org/eco-mem",
    "https://git.example.com/eco-mem.git",
    "git@github.com:org/eco-mem.git",
    "git://git.example.com/eco-mem",
    "ssh://git@git.example.com/eco-mem.git",
    "host:eco-mem.git",
    "t.git",
]


@pytest.mark.parametrize("source", SOURCES_COPIER_READS)
def test_the_trust_check_reads_a_source_where_copier_sends_git(
    ecomem, tmp_path: Path, source: str
) -> None:
    # secrev-2 finding 2: `git+foo` is `foo` to Copier. The check's `location` must be
    # where Copier's own reading (copier._vcs.get_repo) then sends git, never a look-alike.
    from copier._vcs import get_repo

    from eco_mem_ops.install.template_source import location

    url = get_repo(source)
    assert url is not None, source  # each one Copier takes as a URL for git
    colon, slash = url.find(":"), url.find("/")
    if "://" in url or (colon != -1 and (slash == -1 or colon < slash)):
        expected = url  # a remote, as git reads it
    else:
        expected = os.path.realpath(tmp_path / url)  # a local path, from where Copier runs
    assert location(source, tmp_path) == expected


@pytest.mark.parametrize("source", ["file:///srv/eco-mem.git", "git+file://h/srv/%65co-mem"])
def test_a_file_url_source_is_refused_in_one_line(ecomem, tmp_path: Path, source: str) -> None:
    # secrev-3 finding 1: git reads a file URL's host part and %-escapes by rules of its
    # own; rather than model them, the check asks for the template's path.
    from ecomem.errors import UsageError

    from eco_mem_ops.install.template_source import location

    with pytest.raises(UsageError, match="name the template by its path"):
        location(source, tmp_path)


def test_a_remote_source_that_is_also_a_work_tree_path_is_read_as_that_path(
    ecomem, tmp_path: Path
) -> None:
    # secrev-3 finding 2: Copier and git clone an existing path first, whatever it
    # looks like, so the check must see the committed folder, not the remote.
    from eco_mem_ops.install.template_source import location

    source = "git@github.com:org/eco-mem.git"
    assert location(source, tmp_path) == source
    (tmp_path / "git@github.com:org" / "eco-mem.git").mkdir(parents=True)
    assert location(source, tmp_path) == os.path.realpath(tmp_path / source)


def test_records_made_before_the_model_still_name_their_template(ecomem, tmp_path: Path) -> None:
    # v0.4.0 recorded gh: expanded without `.git` and kept `git+`; both must still match
    # what the model reads now, and nothing wider than that.
    from eco_mem_ops.install.template_source import location, same_template

    assert same_template(location("gh:org/eco-mem", tmp_path), "https://github.com/org/eco-mem")
    assert same_template(location("git+https://h.example/x", tmp_path), "git+https://h.example/x")
    assert not same_template("https://h.example/x.git", "https://h.example/x")
    assert not same_template("https://github.com/org/other.git", "https://github.com/org/x")


def test_the_install_records_no_file_url_and_says_so_in_one_line(host: Path) -> None:
    # The install's task: the copy is done, so a source the check will not read is a
    # warning here; `upgrade` later asks for the template's path.
    done = assert_exit(run_ops(host, "upgrade", "--remember-source=file:///srv/x.git"), 0)
    assert done.stderr.splitlines() == [
        "eco-mem: file:///srv/x.git is not trusted: a file: URL, which git reads by its own"
        " rules; name the template by its path"
    ]
    assert "file:" not in (host / ".git/eco-mem/template-source").read_text(encoding="utf-8")
