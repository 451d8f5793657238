"""Which Copier `upgrade` runs, and whether it can load this template.

The template's copier.yml loads `copier_template_extensions`, so a Copier without
that module stops on the first render with "No module named ...". Checked here,
before anything runs, with one command per common set-up in the message.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

# `python -c` and `python -m` put the working folder first on sys.path, and the operator
# works in the host (`--root .`, the fleet's clone): a `copier.py` or
# `copier_template_extensions.py` a commit put there would be what they import. So this
# Python runs them under -I, as ops.py itself runs, and another Python's probe runs in
# an empty folder of its own (tests/test_operator_host_modules.py).
ISOLATED = "-I"


def finds(python: list[str], module: str) -> bool:
    """Whether `python` (an interpreter and its options) would find `module`, asked in an
    empty folder of its own. `find_spec` reads the import path without running the module:
    importing Copier to learn that it is there took half a second, twice per upgrade."""
    probe = [
        *python,
        "-c",
        f"import importlib.util as u, sys; sys.exit(not u.find_spec({module!r}))",
    ]
    with tempfile.TemporaryDirectory(prefix="eco-mem-probe.") as empty:
        return subprocess.run(probe, capture_output=True, cwd=empty).returncode == 0


def copier_command() -> list[str] | None:
    """How to call copier here: on PATH, else as a module of this Python."""
    found = shutil.which("copier")
    if found:
        return [found]
    return (
        [sys.executable, ISOLATED, "-m", "copier"]
        if finds([sys.executable, ISOLATED], "copier")
        else None
    )


# One command per common way of having Copier; the template's copier.yml loads
# copier_template_extensions, so Copier alone fails with "No module named ...".
COPIER_SETUPS = (
    "pipx install copier && pipx inject copier copier-template-extensions",
    "uv tool install copier --with copier-template-extensions",
    "pip install copier copier-template-extensions (in a virtual environment)",
)


def install_hint() -> str:
    return "; or ".join(COPIER_SETUPS) + " (see docs/install.md)"


def template_venv_bin(source: str) -> str | None:
    """The bin folder of a virtual environment beside a local template that holds copier.

    The README's demo set-up installs Copier into the template clone's `.venv`,
    which is not on PATH in the host; that folder is the shortest way out.
    """
    if not source or not os.path.isdir(source):
        return None
    for folder, name in (("bin", "copier"), ("Scripts", "copier.exe")):
        candidate = os.path.join(source, ".venv", folder)
        if os.path.isfile(os.path.join(candidate, name)):
            return candidate
    return None


def copier_python(command: list[str]) -> str | None:
    """The Python that runs `command`: its script's shebang, or this one for `-m copier`."""
    if command[0] == sys.executable:
        return sys.executable
    try:
        with open(command[0], "rb") as script:
            first = script.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None  # a binary launcher (Windows, some uv builds): cannot tell, so do not judge
    words = first[2:].decode("utf-8", "replace").split()
    if not words or os.path.basename(words[0]) == "env" or not os.path.isfile(words[0]):
        return None
    return words[0]


def missing_extension(command: list[str]) -> bool:
    """True when copier's own Python cannot import the template's extension module."""
    python = copier_python(command)
    if python is None:
        return False
    isolated = [ISOLATED] if command[1:2] == [ISOLATED] else []
    return not finds([python, *isolated], "copier_template_extensions")
