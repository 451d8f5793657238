"""A committed answers file never hands Copier a template the trust check never saw.

The second security review (secrev-2, findings 1 and 2) found two ways: a line of
Unicode spaces that the line reader skipped and YAML folded into `_src_path`, and a
`git+` source that the check resolved as a committed link where Copier strips the
prefix. Every test drives the real copier and git on real repositories in tmp dirs.
The attacker's template is a git bundle: a single regular file, which a commit can
hold, and which Copier clones like any repository. The third review (secrev-3, findings
1 and 2) added a `file://` URL git reads otherwise, and an scp-like source that a commit
also makes a path of the work tree.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.helpers import ANSWERS, commit_all, git, init_repo, run_ops, snapshot_template

VENV_BIN = str(Path(sys.executable).parent)
IDEOGRAPHIC_SPACE = "\u3000"  # str.strip() drops it; YAML keeps it as text


def attacker_repo(tmp_path: Path, marker: Path) -> Path:
    """A template whose task touches `marker`: v0.0.1 for the old render, v9.0.0 new."""
    evil = init_repo(tmp_path / "evil")
    (evil / "copier.yml").write_text(
        f'_answers_file: {ANSWERS}\n_tasks: ["touch {marker}"]\n', encoding="utf-8"
    )
    commit_all(evil, "a")
    git(evil, "tag", "v0.0.1")
    (evil / "README.md").write_text("new\n", encoding="utf-8")
    commit_all(evil, "b")
    git(evil, "tag", "v9.0.0")
    return evil


def attacker_bundle(tmp_path: Path, marker: Path) -> bytes:
    """`attacker_repo` as a git bundle: one regular file, which a commit can hold."""
    evil = attacker_repo(tmp_path, marker)
    bundle = tmp_path / "evil.bundle"
    git(evil, "bundle", "create", "-q", str(bundle), "--all")
    return bundle.read_bytes()


def extension_attacker(tmp_path: Path, marker: Path) -> Path:
    """A template (v0.0.1) whose Jinja extension touches `marker` as Copier loads it:
    at render time, so even a `--skip-tasks` copy runs it."""
    evil = init_repo(tmp_path / "evil")
    (evil / "copier.yml").write_text(
        "_jinja_extensions:\n  - copier_template_extensions.TemplateExtensionLoader\n"
        "  - ext.py:Evil\n",
        encoding="utf-8",
    )
    (evil / "ext.py").write_text(
        "import pathlib\nfrom jinja2.ext import Extension\n"
        f"pathlib.Path({str(marker)!r}).touch()\n"
        "class Evil(Extension):\n    pass\n",
        encoding="utf-8",
    )
    commit_all(evil, "a")
    git(evil, "tag", "v0.0.1")
    return evil


def run(cwd: Path, *command: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True
    )


def environment(**extra: str) -> dict[str, str]:
    return {**os.environ, "PATH": VENV_BIN + os.pathsep + os.environ["PATH"], **extra}


def install(template: str, host: Path, env: dict[str, str]) -> None:
    done = run(host, "copier", "copy", "--trust", "--defaults", "--quiet", template, ".", env=env)
    assert done.returncode == 0, done.stderr
    commit_all(host, "install eco-mem")


def upgrade(host: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return run_ops(host, "upgrade", env=env)


def release(template: Path, tag: str) -> None:
    """A new release of the trusted template, so upgrade has something to do."""
    git(template, "commit", "-q", "--allow-empty", "-m", tag)
    git(template, "tag", tag)


def test_a_line_of_unicode_spaces_never_hands_copier_a_gh_source_the_trust_check_never_saw(
    tmp_path: Path,
) -> None:
    """`_src_path: gh:org/eco-mem`, then an empty line and a line of " \\u3000".

    The reader skips both lines (str.strip() empties them) and trusts gh:org/eco-mem;
    YAML folds them into the value, "gh:org/eco-mem\\n\\u3000", which Copier's gh:
    expansion (a `$` regex) does not match, so Copier reads it as a local path in the
    work tree: a committed bundle there runs with --trust."""
    # github.com is this folder, for git and for Copier (no network needed).
    mirrors = tmp_path / "github"
    env = environment(
        GIT_CONFIG_COUNT="1",
        GIT_CONFIG_KEY_0=f"url.{mirrors}/.insteadOf",
        GIT_CONFIG_VALUE_0="https://github.com/",
    )
    template = snapshot_template(mirrors / "org" / "eco-mem", tag="v0.0.1")
    (mirrors / "org" / "eco-mem.git").symlink_to("eco-mem")  # Copier asks for NAME.git
    host = init_repo(tmp_path / "host")
    install("gh:org/eco-mem", host, env)

    marker = tmp_path / "attacker-ran"
    planted = host / "gh:org" / f"eco-mem\n{IDEOGRAPHIC_SPACE}"
    planted.parent.mkdir()
    planted.write_bytes(attacker_bundle(tmp_path, marker))
    answers = host / ANSWERS
    text = answers.read_text(encoding="utf-8")
    line = "_src_path: gh:org/eco-mem\n"
    assert line in text
    answers.write_text(text.replace(line, f"{line}\n {IDEOGRAPHIC_SPACE}\n"), encoding="utf-8")
    commit_all(host, "an innocent-looking commit")
    release(template, "v0.0.2")

    result = upgrade(host, env)
    assert not marker.exists(), result.stdout + result.stderr
    assert result.returncode == 2


def test_a_line_of_unicode_spaces_never_hands_copier_a_local_source_the_check_never_saw(
    tmp_path: Path,
) -> None:
    """The same for a local template: `_src_path: t` (a committed link to the trusted
    template, which the check resolves), then " \\u3000": Copier reads "t \\u3000"."""
    template = snapshot_template(tmp_path / "template", tag="v0.0.1")
    env = environment()
    host = init_repo(tmp_path / "host")
    install(str(template), host, env)

    marker = tmp_path / "attacker-ran"
    (host / "t").symlink_to(template)
    (host / f"t {IDEOGRAPHIC_SPACE}").write_bytes(attacker_bundle(tmp_path, marker))
    answers = host / ANSWERS
    text = answers.read_text(encoding="utf-8")
    line = f"_src_path: {template}\n"
    assert line in text
    answers.write_text(text.replace(line, f"_src_path: t\n {IDEOGRAPHIC_SPACE}\n"), "utf-8")
    commit_all(host, "an innocent-looking commit")
    release(template, "v0.0.2")

    result = upgrade(host, env)
    assert not marker.exists(), result.stdout + result.stderr
    assert result.returncode == 2


def test_a_git_plus_source_never_clones_what_copier_strips_it_to(tmp_path: Path) -> None:
    """`_src_path: git+foo`: the trust check resolves the committed link `git+foo` to
    the trusted template; Copier strips `git+` and clones `foo`, a committed bundle.
    No YAML trick: the two readers agree on the string, not on where it leads."""
    template = snapshot_template(tmp_path / "template", tag="v0.0.1")
    env = environment()
    host = init_repo(tmp_path / "host")
    install(str(template), host, env)

    marker = tmp_path / "attacker-ran"
    (host / "git+foo").symlink_to(template)
    (host / "foo").write_bytes(attacker_bundle(tmp_path, marker))
    answers = host / ANSWERS
    text = answers.read_text(encoding="utf-8")
    answers.write_text(text.replace(f"_src_path: {template}\n", "_src_path: git+foo\n"), "utf-8")
    commit_all(host, "an innocent-looking commit")
    release(template, "v0.0.2")

    result = upgrade(host, env)
    assert not marker.exists(), result.stdout + result.stderr
    assert result.returncode == 2


def test_restore_indexes_never_clones_what_copier_strips_a_git_plus_source_to(
    tmp_path: Path,
) -> None:
    """The copy path (restore-indexes, which a deleted INDEX.md triggers) passes the
    same `git+foo` to `copier copy --trust`; the bundle's Jinja extension is loaded
    at render time even with --skip-tasks."""
    template = snapshot_template(tmp_path / "template", tag="v0.0.1")
    env = environment()
    host = init_repo(tmp_path / "host")
    install(str(template), host, env)

    marker = tmp_path / "attacker-ran"
    evil = extension_attacker(tmp_path, marker)
    git(evil, "bundle", "create", "-q", str(tmp_path / "evil.bundle"), "--all")
    (host / "git+foo").symlink_to(template)
    (host / "foo").write_bytes((tmp_path / "evil.bundle").read_bytes())
    answers = host / ANSWERS
    text = answers.read_text(encoding="utf-8")
    answers.write_text(text.replace(f"_src_path: {template}\n", "_src_path: git+foo\n"), "utf-8")
    (host / ".agents/memory/semantic/INDEX.md").unlink()
    commit_all(host, "an innocent-looking commit")

    result = run_ops(host, "restore-indexes", env=env)
    assert not marker.exists(), result.stdout + result.stderr


# Lines the answers reader may meet: Copier's own `key: value` shape, and the odd
# characters a commit may add around it or on lines of their own.
_ODD = ["\u00a0", "\u3000", "\u2003", "\u1680", "\u202f", "\ufeff", "\u200b", "\x85", "\t"]
_KEY = st.sampled_from(["_src_path", "_commit", "skill_path", "ci"])
_VALUE = st.sampled_from(["gh:org/eco-mem", "v0.4.0", "/srv/eco-mem", "'x y'", "", "-x", "#"])
_FILL = st.lists(st.sampled_from([" ", ":", "#", "'", *_ODD]), max_size=4).map("".join)
_LINE = st.one_of(st.tuples(_KEY, st.sampled_from([": ", ":"]), _VALUE, _FILL).map("".join), _FILL)
_ANSWERS_TEXT = st.lists(_LINE, min_size=1, max_size=5).map("\n".join)


@settings(max_examples=2000, derandomize=True, deadline=None)
@given(text=_ANSWERS_TEXT)
@example(text="_src_path: gh:org/eco-mem\n\n \u3000")  # finding 1, for certain
def test_what_the_reader_accepts_yaml_reads_as_the_same_source_and_commit(
    ecomem, tmp_path_factory, text: str
) -> None:
    """Property: whenever the stdlib reader accepts an answers file, Copier's loader
    (yaml.safe_load on the bytes, as copier._user_data.load_answersfile_data) reads the
    same `_src_path` and `_commit`, and no key the reader did not see."""
    from ecomem.errors import UsageError

    from eco_mem_ops.install.answers import read_answers

    path = tmp_path_factory.mktemp("answers") / ANSWERS
    path.write_bytes(text.encode("utf-8"))
    try:
        ours = read_answers(path)
    except UsageError:
        return  # refused: nothing reaches Copier
    try:
        theirs = yaml.safe_load(path.read_bytes())
    except yaml.YAMLError:
        return  # Copier stops too
    theirs = theirs if isinstance(theirs, dict) else {}
    assert {str(key) for key in theirs} <= set(ours) | {"True", "False", "None"}
    for key in ("_src_path", "_commit"):
        if key in theirs and theirs[key] is not None:
            assert str(theirs[key]) == ours.get(key), (key, text)


# The third review (secrev-3, findings 1 and 2): variants the model still let through.


@pytest.mark.parametrize(
    ("url", "decoy"),
    [
        # git ignores a file URL's host part: it opens /<path>, not ./<host>/<path>.
        pytest.param("file://h/{abs}/evil.git", "h/{abs}/evil.git", id="host-part"),
        # git decodes %XX in a file URL: %65vil.git is evil.git.
        pytest.param("file:///{abs}/%65vil.git", "%65vil.git", id="percent-escape"),
    ],
)
def test_a_file_url_never_clones_what_git_reads_it_as(tmp_path: Path, url: str, decoy: str) -> None:
    """`_src_path: file://...evil.git`, as git reads it, is a bare repository committed
    in the work tree (evil.git). The trust check reads everything after `file://` as a
    literal path from the folder the script runs in, where a committed link (the
    decoy) leads to the trusted template."""
    template = snapshot_template(tmp_path / "template", tag="v0.0.1")
    env = environment()
    host = init_repo(tmp_path / "host")
    install(str(template), host, env)

    marker = tmp_path / "attacker-ran"
    evil = attacker_repo(tmp_path, marker)
    git(tmp_path, "clone", "-q", "--bare", str(evil), str(host / "evil.git"))
    where = str(host.resolve()).lstrip("/")
    link = host / decoy.format(abs=where)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(template)
    answers = host / ANSWERS
    text = answers.read_text(encoding="utf-8")
    line = f"_src_path: {template}\n"
    assert line in text
    answers.write_text(text.replace(line, f"_src_path: {url.format(abs=where)}\n"), "utf-8")
    commit_all(host, "an innocent-looking commit")
    release(template, "v0.0.2")

    result = upgrade(host, env)
    assert not marker.exists(), result.stdout + result.stderr


def test_an_scp_like_source_never_clones_a_work_tree_folder_of_the_same_name(
    tmp_path: Path,
) -> None:
    """`_src_path: git@github.com:org/eco-mem.git`, unchanged: no edit to the answers file.

    That string is also a relative path. A commit adds a bare repository there (a
    folder `git@github.com:org` holding `eco-mem.git`). Copier clones an existing
    path as a local repository, and git clone too tries its argument as a path
    before it reads it as scp-like `host:path`. The trust check and the ls-remote
    probes see the remote; the template Copier runs with --trust is the commit's.
    (An https:// source fails here only because git then reads the absolute path
    `/…/https://…` as a URL with an unknown protocol.)"""
    mirrors = tmp_path / "github"
    env = environment(
        GIT_CONFIG_COUNT="1",
        GIT_CONFIG_KEY_0=f"url.{mirrors}/.insteadOf",
        GIT_CONFIG_VALUE_0="git@github.com:",
    )
    template = snapshot_template(mirrors / "org" / "eco-mem.git", tag="v0.0.1")
    host = init_repo(tmp_path / "host")
    install("git@github.com:org/eco-mem.git", host, env)

    marker = tmp_path / "attacker-ran"
    evil = attacker_repo(tmp_path, marker)
    git(evil, "tag", "v0.0.2")  # the release the trusted template is about to make
    planted = host / "git@github.com:org" / "eco-mem.git"
    planted.parent.mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(evil), str(planted))
    commit_all(host, "an innocent-looking commit")
    release(template, "v0.0.2")

    result = upgrade(host, env)
    assert not marker.exists(), result.stdout + result.stderr


def test_restore_indexes_never_copies_from_a_work_tree_folder_named_like_the_source(
    tmp_path: Path,
) -> None:
    """The copy path of finding 2: `restore-indexes` runs `copier copy --trust` on the
    unchanged scp-like source; Copier loads the committed repository's Jinja extension
    at render time (--skip-tasks does not stop that)."""
    mirrors = tmp_path / "github"
    env = environment(
        GIT_CONFIG_COUNT="1",
        GIT_CONFIG_KEY_0=f"url.{mirrors}/.insteadOf",
        GIT_CONFIG_VALUE_0="git@github.com:",
    )
    snapshot_template(mirrors / "org" / "eco-mem.git", tag="v0.0.1")
    host = init_repo(tmp_path / "host")
    install("git@github.com:org/eco-mem.git", host, env)

    marker = tmp_path / "attacker-ran"
    evil = extension_attacker(tmp_path, marker)
    planted = host / "git@github.com:org" / "eco-mem.git"
    planted.parent.mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(evil), str(planted))
    (host / ".agents/memory/semantic/INDEX.md").unlink()
    commit_all(host, "an innocent-looking commit")

    result = run_ops(host, "restore-indexes", env=env)
    assert not marker.exists(), result.stdout + result.stderr
