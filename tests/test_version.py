"""One version, one place: pyproject.toml. Everything else that names a version agrees.

Docs, copier.yml and the rendered files may name the current version or one
that CHANGELOG.md lists as released; nothing else, so a doc never promises a
tag that does not exist. Fenced YAML examples (a future migration in
docs/development.md) and an action's own version beside its pin are not
versions of this template and are left out.
"""

from __future__ import annotations

import importlib.util
import re

import pytest

from tests.helpers import PROJECT

spec = importlib.util.spec_from_file_location(
    "release_plan", PROJECT / ".github/scripts/release_plan.py"
)
release_plan = importlib.util.module_from_spec(spec)
spec.loader.exec_module(release_plan)

MENTION = re.compile(r"\bv(\d+\.\d+\.\d+)\b")
HEADING = re.compile(r"^## (?:v(\d+\.\d+\.\d+)\b.*|Unreleased)$", re.M)


def pyproject_version() -> str:
    """The version, read by the same function the release workflow uses."""
    return release_plan.read_version(PROJECT)


def changelog_headings() -> list[str]:
    """Version headings top to bottom; "Unreleased" for that section."""
    text = (PROJECT / "CHANGELOG.md").read_text(encoding="utf-8")
    return [match.group(1) or "Unreleased" for match in HEADING.finditer(text)]


def as_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def mentions(text: str) -> list[tuple[int, str]]:
    """(line number, version) for each `vX.Y.Z`, outside fenced YAML and action pins."""
    found, fence = [], None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = None if fence is not None else stripped[3:].strip()
            continue
        if fence == "yaml" or "uses: " in line:
            continue
        found += [(number, match.group(1)) for match in MENTION.finditer(line)]
    return found


def scanned_files():
    yield PROJECT / "README.md"
    yield PROJECT / "copier.yml"
    yield from sorted((PROJECT / "docs").glob("*.md"))
    for path in sorted((PROJECT / "template").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            yield path


def test_the_version_is_major_minor_patch() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", pyproject_version())


def test_the_changelog_agrees_with_the_version() -> None:
    version, headings = pyproject_version(), changelog_headings()
    released = [heading for heading in headings if heading != "Unreleased"]
    assert released == sorted(released, key=as_tuple, reverse=True), "newest release first"
    assert len(set(released)) == len(released)
    if version in released:
        assert released[0] == version, f"{version} is cut, yet a newer heading sits above it"
    else:
        # Being prepared: its entries wait under Unreleased, at the top.
        assert headings[0] == "Unreleased", f"no '## Unreleased' section for {version}"
        assert as_tuple(version) > as_tuple(released[0]), (
            f"pyproject.toml says {version}, not above the last release {released[0]}"
        )


def test_docs_name_only_the_current_or_a_released_version() -> None:
    allowed = {pyproject_version(), *changelog_headings()}
    stray = []
    for path in scanned_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        stray += [
            f"{path.relative_to(PROJECT)}:{line}: v{version}"
            for line, version in mentions(text)
            if version not in allowed
        ]
    assert not stray, "versions that were never released:\n" + "\n".join(stray)


def test_the_scan_sees_a_stray_version() -> None:
    text = "Install v9.9.9 now.\n```yaml\nversion: v8.0.0\n```\n```sh\ngit tag v7.0.0\n```\n"
    assert mentions(text) == [(1, "9.9.9"), (6, "7.0.0")]


def test_the_release_script_reads_what_a_toml_parser_reads() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    text = (PROJECT / "pyproject.toml").read_text(encoding="utf-8")
    assert tomllib.loads(text)["project"]["version"] == pyproject_version()
