"""A push module for the fleet tests that stands in for a pull-request push.

all-repos' pull-request modules (github_pull_request, gitlab_pull_request, ...)
push the autofix branch to origin and then open a pull request through the
host's API. This one does the first half only, with real git and no network:
the origin gets the branch, its default branch is left alone. all-repos loads
it by name from all-repos.json (`"push": "tests.branch_push"`).
"""

from __future__ import annotations

from typing import NamedTuple

from all_repos import autofix_lib


class Settings(NamedTuple):
    pass


def push(settings: Settings, branch_name: str) -> None:
    autofix_lib.run("git", "push", "origin", f"HEAD:refs/heads/{branch_name}", "--quiet")
