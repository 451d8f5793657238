"""Measure what a host holds, and how much of it no host-side command loads (issue 34).

Counts, never clocks. The template is rendered once with default answers into a
temporary git repository; then every command that runs in a host is run there for
real under `python -X importtime`, and the `ecomem.*` modules each one imported are
collected from its stderr:

  - the memory commands (find, new in each drawer, a travelling desk, revise, confirm,
    forget, end-task, adopt of a branch another clone wrote), context (the command and
    the hook form with no arguments), verify, review (plain, --tidy, --suggest-cites),
    track, init, and the two names that only point elsewhere (upgrade, uninstall);
  - what git and the harness run from the copy `track` keeps in the git dir: the merge
    driver, during a real merge of two branches that each add a fact (a `python3` put
    first on PATH adds -X importtime, since the driver runs `python3 -I -S`), the
    session hook's context.py, and resolve.py on a merge that stopped.

A module of the copy counts for the runtime's module of the same name. The report: the
runtime file's Python modules, their lines (wc -l) and code lines (no blank, comment
or docstring line), the lines of modules no command
loaded (named), and their share. tests/test_host_size.py holds the limits.

    python -m benchmarks.host_size [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import tokenize
import zipfile
from pathlib import Path

from tests.helpers import SKILL, commit_all, copy_template, git, init_repo, snapshot_template

SCRIPTS = f"{SKILL}/scripts"
IMPORT_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s+(\S+)\s*$")
FACT = ("--source", "verified", "--scope", "repo", "--expires", "never")


def imported_modules(stderr: str) -> set[str]:
    """The ecomem modules an `-X importtime` run names on stderr."""
    found = set()
    for line in stderr.splitlines():
        match = IMPORT_LINE.match(line)
        if match and match.group(1).split(".")[0] == "ecomem":
            found.add(match.group(1))
    return found


class Host:
    """A rendered host and the modules its commands have loaded so far."""

    def __init__(self, root: Path, bin_dir: Path) -> None:
        self.root = root
        self.loaded: dict[str, set[str]] = {}  # command label -> modules
        # git runs the merge driver as `python3 -I -S driver.py`: this python3 is ours.
        bin_dir.mkdir(parents=True, exist_ok=True)
        wrapper = bin_dir / "python3"
        wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -X importtime "$@"\n')
        wrapper.chmod(0o755)
        self.env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}

    def python(self, label: str, *argv: str, ok=(0,), cwd: Path | None = None):
        result = subprocess.run(
            [sys.executable, "-X", "importtime", *argv],
            cwd=cwd or self.root,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        if result.returncode not in ok:
            said = [line for line in result.stderr.splitlines() if not IMPORT_LINE.match(line)]
            raise RuntimeError(
                f"{label}: exit {result.returncode}: {' '.join(argv)}\n" + "\n".join(said)
            )
        self.loaded.setdefault(label, set()).update(imported_modules(result.stderr))
        return result

    def mem(self, label: str, *args: str, ok=(0,), cwd: Path | None = None):
        script = str((cwd or self.root) / SCRIPTS / "eco_mem.pyz")
        return self.python(label, script, *args, ok=ok, cwd=cwd)

    def git_merge(self, label: str, branch: str):
        """`git merge`, its driver runs counted under `label`; it may stop on conflicts."""
        result = subprocess.run(
            ["git", "merge", "--no-edit", branch],
            cwd=self.root,
            capture_output=True,
            text=True,
            env=self.env,
        )
        self.loaded.setdefault(label, set()).update(imported_modules(result.stderr))
        return result


def run_every_command(host: Host, scratch: Path) -> None:
    root = host.root
    host.mem("find", "find")
    host.mem("find", "find", "deploys", "--json")
    host.mem(
        "new",
        "new",
        "semantic",
        "--title",
        "Deploys need a tag",
        *FACT,
        "--body",
        "See [the runbook](AGENTS.md).",
    )
    episode = ("--action", "reran the job", "--result", "it passed", "--lesson", "Run serially.")
    host.mem("new", "new", "episodic", "--title", "Flaky tests", "--context", "run 9", *episode)
    host.mem(
        "new",
        "new",
        "procedural",
        "--name",
        "cut a release",
        "--use-when",
        "tagging",
        "--points-to",
        "AGENTS.md",
    )
    host.mem("new", "new", "working", "--title", "Fix login", "--goal", "login works")
    host.mem("revise", "revise", "deploys-need-a-tag", "--title", "Deploys need a signed tag")
    host.mem("confirm", "confirm", "deploys-need-a-tag", "--by-user")
    host.mem("end-task", "end-task", "fix-login")
    host.mem("new", "new", "semantic", "--title", "Old note", *FACT, "--body", "Gone.")
    host.mem("forget", "forget", "old-note")
    host.mem("verify", "verify")
    host.mem("verify", "verify", "--json")
    host.mem("review", "review", ok=(0, 1))
    host.mem("review", "review", "--tidy")
    host.mem("review", "review", "--suggest-cites", ok=(0, 1))
    host.mem("track", "track")
    (root / "packages/web").mkdir(parents=True)
    host.mem("init", "init", "packages/web")
    host.mem("context", "context")  # the hook form: no arguments, no parser
    host.mem("context", "context", "--root", str(root))
    for moved in ("upgrade", "uninstall"):
        host.mem(moved, moved, ok=(2,))
    commit_all(root, "memory")

    # A travelling desk on a task branch (commands/desks.py stages it).
    git(root, "checkout", "-q", "-b", "task")
    host.mem("desks", "new", "working", "--title", "Ship it", "--goal", "out", "--travel")
    host.mem("desks", "end-task", "ship-it")
    commit_all(root, "task done")
    git(root, "checkout", "-q", "main")

    # Memory another clone wrote on its branch: named, then shown and adopted here.
    other = scratch / "other"
    git(scratch, "clone", "-q", str(root), str(other))
    git(other, "checkout", "-q", "-b", "contrib")
    host.mem(
        "new", "new", "semantic", "--title", "Login uses OAuth", *FACT, "--body", "SSO.", cwd=other
    )
    commit_all(other, "contributor fact")
    git(root, "fetch", "-q", str(other), "contrib:contrib")
    git(root, "checkout", "-q", "contrib")
    # adopt shows first and takes on a second run, by the token of what it showed.
    shown = host.mem("adopt", "adopt", "--all", "--json")
    host.mem("adopt", "adopt", "--all", "--take", json.loads(shown.stdout)["token"])
    git(root, "checkout", "-q", "main")

    # Two branches each add a fact: git runs the catalog driver's copy in the git dir.
    for branch, title in (("left", "Cache lives a day"), ("right", "Logs go to stderr")):
        git(root, "checkout", "-q", "-b", branch, "main")
        host.mem("new", "new", "semantic", "--title", title, *FACT, "--body", "Seen in CI.")
        commit_all(root, branch)
    merged = host.git_merge("merge-catalog", "left")
    if merged.returncode != 0:
        raise RuntimeError(f"the two facts did not merge: {merged.stdout}{merged.stderr}")

    # Both sides revise one row: the merge stops and `resolve` runs the git dir's copy.
    git(root, "checkout", "-q", "-b", "theirs", "main")
    host.mem(
        "revise",
        "revise",
        "deploys-need-a-tag",
        "--title",
        "Deploys need two tags",
        "--source",
        "verified",
    )
    commit_all(root, "theirs")
    git(root, "checkout", "-q", "main")
    host.mem(
        "revise",
        "revise",
        "deploys-need-a-tag",
        "--title",
        "Deploys need a tag",
        "--source",
        "verified",
    )
    commit_all(root, "ours")
    if host.git_merge("merge-catalog", "theirs").returncode == 0:
        raise RuntimeError("the row both sides revised merged cleanly")
    host.mem("resolve", "resolve", ok=(1,))  # the shim: it imports none of the tree
    common = root / ".git/eco-mem"
    host.python("resolve", "-I", "-S", str(common / "resolve.py"), ok=(1,))
    git(root, "merge", "--abort")
    host.python("context", "-I", "-S", str(common / "context.py"), str(root))


def module_name(relpath: str) -> str:
    """ecomem/store/load.py -> ecomem.store.load; a package's __init__.py -> the package."""
    parts = relpath[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def host_python_files(root: Path) -> dict[str, int]:
    """{module path in the runtime file: lines} for every .py the host's runtime holds
    (the host tracks no .py of its own: the runtime is one zip of runtime/'s source)."""
    return {name: text.count("\n") for name, text in runtime_sources(root).items()}


def runtime_sources(root: Path) -> dict[str, str]:
    """{module path: source} of the host's runtime file."""
    with zipfile.ZipFile(root / SCRIPTS / "eco_mem.pyz") as runtime:
        return {
            name: runtime.read(name).decode("utf-8")
            for name in runtime.namelist()
            if name.endswith(".py")
        }


def code_lines(source: str) -> int:
    """The lines that hold code: not blank, not only a comment, not a docstring (a
    statement that is a lone string)."""
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    lines: set[int] = set()
    statement: list[tokenize.TokenInfo] = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skipped and token.type != tokenize.ENDMARKER:
            statement.append(token)
        if token.type == tokenize.NEWLINE or token.type == tokenize.ENDMARKER:
            if statement and not all(part.type == tokenize.STRING for part in statement):
                for part in statement:
                    lines.update(range(part.start[0], part.end[0] + 1))
            statement = []
    return len(lines)


def report(files: dict[str, int], loaded: dict[str, set[str]], code: int) -> dict:
    everything = set().union(*loaded.values())
    unloaded = {
        path: lines
        for path, lines in files.items()
        if path != "__main__.py" and module_name(path) not in everything
    }
    total = sum(files.values())
    return {
        "python_files": len(files),
        "lines": total,
        "code_lines": code,
        "unloaded_lines": sum(unloaded.values()),
        "unloaded_percent": round(100 * sum(unloaded.values()) / total, 1),
        "unloaded": dict(sorted(unloaded.items(), key=lambda item: -item[1])),
        "loaded": {label: sorted(modules) for label, modules in sorted(loaded.items())},
        "largest": dict(sorted(files.items(), key=lambda item: -item[1])[:15]),
    }


def measure(template: Path, scratch: Path) -> dict:
    """Render `template` into scratch/host, run every host command, and report."""
    root = init_repo(scratch / "host")
    copy_template(template, root)
    commit_all(root, "install eco-mem")
    files = host_python_files(root)
    code = sum(code_lines(source) for source in runtime_sources(root).values())
    host = Host(root, scratch / "bin")
    run_every_command(host, scratch)
    return report(files, host.loaded, code)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    # The install's tasks print to the inherited stdout: send that to stderr, so that
    # stdout holds the report alone (--json is read by a program).
    sys.stdout.flush()
    stdout = os.dup(1)
    os.dup2(2, 1)
    try:
        with tempfile.TemporaryDirectory(prefix="eco-mem-host-size-") as tmp:
            scratch = Path(tmp)
            result = measure(snapshot_template(scratch / "template", "v0.0.1"), scratch)
    finally:
        os.dup2(stdout, 1)
        os.close(stdout)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"host: {result['python_files']} Python files, {result['lines']:,} lines")
    print(
        f"loaded by no host command: {result['unloaded_lines']:,} lines"
        f" ({result['unloaded_percent']}%)"
    )
    for path, lines in result["unloaded"].items():
        print(f"  {lines:5d}  {path}")
    print("largest modules:")
    for path, lines in result["largest"].items():
        print(f"  {lines:5d}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
