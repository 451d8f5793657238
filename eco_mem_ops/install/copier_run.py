"""The one way these scripts start Copier: on releases of the template this clone trusts.

Every Copier call here passes `--trust`, which lets the template's Jinja
extensions, tasks and migrations run on this machine with this user's
environment (tokens included). So no caller builds a Copier command itself:
`released` refuses, in one line and before anything is fetched, a source this
clone was never told to trust (template_source.check_trusted) or one that would
read as an option; only then does it fetch that template's release tags into a
snapshot (releases.py), and `run_copier` renders nothing but that snapshot.

`in_use` is the one exception to the trust record, and it is not data from a
file: copier.yml's after-migration passes the template Copier is running at
that moment (the person chose it with `copier update --trust`), so a fresh
clone without a trust record can still restore a deleted INDEX during a plain
update. It is accepted only when the answers file names that same template.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from ecomem import protocol

from . import releases as release_tags
from . import template_source

TRACEBACK = "Traceback (most recent call last)"


def check_source(root: Path, source: str, in_use: str = "") -> None:
    """Raise UsageError unless `source` may run with --trust here."""
    answers = protocol.ANSWERS_FILE
    template_source.refuse_option(f"_src_path in {answers}", source)
    if in_use:
        template_source.refuse_option("the template in use", in_use)
        where = template_source.location
        if template_source.same_template(where(in_use, root), where(source, root)):
            return
    template_source.check_trusted(root, source, answers)


@contextlib.contextmanager
def released(
    root: Path, source: str, in_use: str = "", given: str = ""
) -> Iterator[release_tags.Releases]:
    """The releases of `source`, once it may run here: a snapshot fetched now, or the
    one `given` (the fleet fetches one for its whole run)."""
    check_source(root, source, in_use)
    with release_tags.snapshot(template_source.location(source, root), given) as found:
        yield found


def run_copier(
    root: Path,
    copier: list[str],
    operation: str,
    options: list[str],
    releases: release_tags.Releases,
    destination: str = "",
    *,
    stream: bool = False,
) -> tuple[int, str]:
    """Run `copier OPERATION --trust OPTIONS` on the release snapshot, never elsewhere.

    `copy` gets `-- SNAPSHOT DESTINATION`; `update` reads the answers file's
    `_src_path`, which releases.answers_pinned points at the snapshot. Each caller
    passes `--vcs-ref` with a commit a release tag points to. Returns the exit code
    and Copier's last error line: with `stream`, output passes through and only a
    traceback is held back.
    """
    command = [*copier, operation, "--trust", *options]
    if operation == "copy":
        command += ["--", str(releases.folder), destination]
    if not stream:
        done = subprocess.run(command, cwd=root, capture_output=True, text=True)
        lines = done.stderr.strip().splitlines() or [f"copier {operation} failed"]
        return done.returncode, "" if done.returncode == 0 else lines[-1]
    process = subprocess.Popen(command, cwd=root, stderr=subprocess.PIPE, text=True)
    held: list[str] = []
    assert process.stderr is not None
    for line in process.stderr:
        if held or line.startswith(TRACEBACK):
            held.append(line)
        else:
            sys.stderr.write(line)
            sys.stderr.flush()
    code = process.wait()
    return code, held[-1].strip() if held else ""
