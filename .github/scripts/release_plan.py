"""Decide which release tag, if any, the commit being built should get.

    python3 .github/scripts/release_plan.py [--root DIR] [--json]
        [--notes-file FILE] [--github-output FILE]

The template's version lives in one place, `version` in pyproject.toml. A
release is cut by giving CHANGELOG.md a `## vX.Y.Z` (or `## X.Y.Z`) section
for that version. This script compares the two with the repository's tags:

- the version is tagged already: nothing to do;
- the version is lower than the newest `vX.Y.Z` tag: refused, versions only go up;
- CHANGELOG.md has no section for it yet (the release is still being
  prepared under "Unreleased"): nothing to do, and it says so;
- otherwise: create tag `vX.Y.Z`, with that section as the release notes.

Exit codes: 0 a plan (a tag or none), 1 refused, 2 usage or I/O error.
Standard library only, Python 3.9 or newer.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")
TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")
# "## v0.2.0 — 2026-12-01", "## 0.3.0", "## v1.0.0 (2027-01-05)"
HEADING = re.compile(r"^## v?(\d+\.\d+\.\d+)(?:\s.*)?$")


class Refused(Exception):
    """The repository is in a state no release may be cut from (exit 1)."""


class Broken(Exception):
    """A file or git could not be read (exit 2)."""


def read_version(root: Path) -> str:
    """`version` of the `[project]` table (a plain `version = "X.Y.Z"` line, as we write it)."""
    path = root / "pyproject.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise Broken(f"{path}: {error}") from None
    table, version = None, ""
    for line in text.splitlines():
        header = re.match(r"^\[([^\]]+)\]\s*(?:#.*)?$", line.strip())
        if header:
            table = header.group(1).strip()
            continue
        found = re.match(r"^version\s*=\s*[\"']([^\"']*)[\"']\s*(?:#.*)?$", line.strip())
        if table == "project" and found:
            version = found.group(1)
            break
    if not VERSION.match(version):
        raise Broken(f"{path}: [project] version {version!r} is not MAJOR.MINOR.PATCH")
    return version


def version_tags(root: Path) -> list[tuple[int, ...]]:
    listing = subprocess.run(
        ["git", "-C", str(root), "tag", "--list", "v*"], capture_output=True, text=True
    )
    if listing.returncode != 0:
        raise Broken(f"git tag --list failed: {listing.stderr.strip() or listing.returncode}")
    found = (TAG.match(line.strip()) for line in listing.stdout.splitlines())
    return sorted(tuple(int(part) for part in match.groups()) for match in found if match)


def changelog_section(root: Path, version: str) -> str | None:
    """The text under this version's `##` heading, or None when there is no such heading."""
    path = root / "CHANGELOG.md"
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise Broken(f"{path}: {error}") from None
    start = None
    for number, line in enumerate(lines):
        heading = HEADING.match(line)
        if start is None:
            if heading and heading.group(1) == version:
                start = number + 1
        elif line.startswith("## "):
            return "\n".join(lines[start:number]).strip()
    return None if start is None else "\n".join(lines[start:]).strip()


def plan(root: Path) -> dict:
    version = read_version(root)
    wanted = tuple(int(part) for part in version.split("."))
    tags = version_tags(root)
    newest = "v{}.{}.{}".format(*tags[-1]) if tags else None
    result = {"version": version, "newest_tag": newest, "tag": None, "notes": None}
    if tags and wanted < tags[-1]:
        raise Refused(
            f"pyproject.toml says {version}, lower than the newest tag {newest};"
            " versions only go up"
        )
    if wanted in tags:
        return {**result, "reason": f"v{version} is tagged already"}
    notes = changelog_section(root, version)
    if notes is None:
        reason = f"CHANGELOG.md has no '## v{version}' section yet; the release is cut when it does"
        return {**result, "reason": reason}
    if not notes:
        raise Refused(f"CHANGELOG.md's section for {version} is empty")
    return {**result, "tag": f"v{version}", "notes": notes, "reason": f"create v{version}"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="release_plan.py",
        description="Say which release tag to create for this commit, if any.",
        epilog="Exit codes: 0 a plan (a tag or none), 1 refused, 2 usage or I/O error.",
    )
    parser.add_argument("--root", default=".", help="repository root (default: .)")
    parser.add_argument("--json", action="store_true", help="print the plan as one JSON object")
    parser.add_argument("--notes-file", help="write the release notes here when a tag is due")
    parser.add_argument(
        "--github-output", help="append tag=... (empty for none) to this file ($GITHUB_OUTPUT)"
    )
    args = parser.parse_args(argv)
    try:
        decided = plan(Path(args.root))
    except Refused as error:
        print(f"release_plan: {error}", file=sys.stderr)
        return 1
    except Broken as error:
        print(f"release_plan: {error}", file=sys.stderr)
        return 2
    try:
        if args.notes_file and decided["tag"]:
            Path(args.notes_file).write_text(decided["notes"] + "\n", encoding="utf-8")
        if args.github_output:
            with open(args.github_output, "a", encoding="utf-8") as output:
                output.write(f"tag={decided['tag'] or ''}\n")
    except OSError as error:
        print(f"release_plan: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(decided, indent=2))
    else:
        print(f"{decided['tag'] or 'no tag'}: {decided['reason']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
