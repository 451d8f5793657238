"""Install eco-mem into every cloned repository that does not have it yet.

    python -m eco_mem_fleet.install -C all-repos.json --template SRC [--vcs-ref REF]
        [--data-file answers.yml] [--report FILE] [--diff | --log FILE] [--dry-run] [-j N]
        [--limit N | --repos ...] [--host-checks [--host-checks-may-download]]

A repository counts as installed when it has `.copier-answers.eco-mem.yml`.
Each copy runs Copier's API (trusted, defaults plus the data file), stages
the new files, runs the repository's own pre-commit hooks on them
(host_checks.py; a failing hook fails the repository, nothing pushed),
commits "Install eco-mem REF" and pushes through the push module in the
all-repos config. It prints one line per repository as each
finishes, then the summary; all-repos' own log (commands, diffs) goes to a
file the summary names, or to stdout with --diff. Exit 0 when no repository
failed, else 1.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml
from all_repos import autofix_lib

from eco_mem_fleet import autofix
from eco_mem_fleet.fixes import already_installed, install_one
from eco_mem_fleet.own_scripts import fleet_release
from eco_mem_fleet.report import Outcome
from eco_mem_fleet.versions import UNREADABLE, read_answers, template_source, unreadable


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m eco_mem_fleet.install",
        description=__doc__.split("\n\n")[0],
        epilog="Exit codes: 0 every repository fine, 1 a repository failed, 2 usage error.",
    )
    autofix_lib.add_fixer_args(parser)
    parser.add_argument("--template", required=True, help="eco-mem template: git URL or path")
    parser.add_argument("--vcs-ref", help="template tag or commit (default: the newest tag)")
    parser.add_argument("--data-file", help="YAML answers for the template's questions")
    autofix.add_output_args(parser)
    return parser


def load_data(path: str | None) -> dict:
    """The --data-file answers; ValueError with a one-line reason when unusable."""
    if not path:
        return {}
    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        reason = str(error).strip().splitlines()[0]
        raise ValueError(f"--data-file {path}: {reason}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"--data-file {path}: expected a mapping of question: answer")
    return data


def not_installed(path: str, name: str, ref: str = "?") -> Outcome | None:
    """A `select` for autofix.run: leave alone repos that have eco-mem; fail one whose
    answers file cannot be read (the run goes on for the others)."""
    try:
        answers = read_answers(Path(path))
    except UNREADABLE as error:
        return Outcome(name, "install", "?", ref, "failed", message=unreadable(error))
    if answers is None:
        return None
    return already_installed(name, answers, ref)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    template = template_source(args.template)
    try:
        data = load_data(args.data_file)
    except ValueError as error:
        print(f"install: {error}", file=sys.stderr)
        return 2
    # One snapshot of the releases, one commit, for the whole run (releases.py).
    with fleet_release("install", template, args.vcs_ref) as pinned:
        if pinned is None:
            return 2
        releases, ref = pinned
        return autofix.run(
            args,
            action="install",
            fixer=install_one,
            select=functools.partial(not_installed, ref=ref),
            msg=f"Install eco-mem {ref}",
            branch_name="eco-mem-install",
            argv=argv,
            options={
                "template": template,
                "vcs_ref": ref,
                "ref": ref,
                "data": data,
                "releases": releases,
                "renders": True,  # one Copier process per run, forked per render
            },
        )


if __name__ == "__main__":
    sys.exit(main())
