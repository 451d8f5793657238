"""The one way these scripts start Copier: only on the template this clone trusts.

Every Copier call here passes `--trust`, which lets the template's Jinja
extensions, tasks and migrations run on this machine with this user's
environment (tokens included). So no caller builds a Copier command itself:
`run_trusted` refuses, in one line and before Copier starts, a source this
clone was never told to trust (template_source.check_trusted) or one that
would read as an option, and only then runs Copier.

`in_use` is the one exception, and it is not data from a file: copier.yml's
after-migration passes the template Copier is running at that moment (the
person chose it with `copier update --trust`), so a fresh clone without a
trust record can still restore a deleted INDEX during a plain update. It is
accepted only when the answers file names that same template.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .. import protocol
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


def run_trusted(
    root: Path,
    copier: list[str],
    operation: str,
    options: list[str],
    source: str,
    destination: str = "",
    *,
    in_use: str = "",
    stream: bool = False,
) -> tuple[int, str]:
    """Run `copier OPERATION --trust OPTIONS` on `source`, once `source` is trusted.

    `copy` gets `-- SOURCE DESTINATION` (this function adds them, so the source run
    is the source checked); `update` reads the answers file's `_src_path`, which is
    what `source` must be. Returns the exit code and Copier's last error line: with
    `stream`, output passes through and only a traceback is held back.
    """
    check_source(root, source, in_use)
    command = [*copier, operation, "--trust", *options]
    if operation == "copy":
        command += ["--", source, destination]
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
