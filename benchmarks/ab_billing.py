"""The team's own A/B on conventions: a small billing service, three tasks, three arms.

`build DIR` makes the service (a Python package with tests, a changelog-fragment folder
and a history in the team's commit style), installs eco-mem from this working tree, writes
the 20 facts of benchmarks/data/conventions.json with the rendered `new semantic` (the
eight conventions marked `--always`, with their paths) and commits. `experiment plant ab`
then clones it into the three arms for each task; a person (or an agent harness) runs an
agent in each arm with the task's prompt. `score DIR...` reads each arm's commits since
the plant and reports, per task, which of its labelled conventions the change followed.
The checks read files and git only, never a transcript:

  gettext     every string literal the change adds to billing/ that a user reads (in
              print, an exception or argparse help) goes through _()
  cents       no float arithmetic or float() added to billing/
  fragment    a new file under changes/
  commit      every new commit's subject is `area: summary`, lower case, no final period
  tests       a test added or changed under tests/unit/ mirroring the module's path
  kebab       new CLI options are --kebab-case long names without a short form

From the repository root:

    python -m benchmarks.ab_billing build /tmp/ab-billing        # the service, memory in
    python -m benchmarks.ab_billing plant /tmp/ab-billing /tmp/ab   # 3 tasks x 3 arms
    # run an agent in each arm with its prompt (printed by plant), then:
    python -m benchmarks.ab_billing score /tmp/ab
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data" / "conventions.json"
SCRIPT = ".agents/skills/eco-mem/scripts/eco_mem.pyz"
OPS = str(Path(__file__).resolve().parent.parent / "ops.py")  # the operator's kit

TASKS = {
    "currency": (
        "Add a --currency option to the `report` command so totals can be printed in EUR"
        " or USD (EUR stays the default).",
        ["gettext", "cents", "fragment", "commit", "tests", "kebab"],
    ),
    "split": (
        "Add a function that splits an invoice total evenly among N people; when it does"
        " not divide evenly, the first people pay the leftover.",
        ["cents", "fragment", "commit", "tests"],
    ),
    "negative": (
        "The importer should reject a row with a negative amount, with a clear error that"
        " names the row.",
        ["gettext", "cents", "commit", "tests"],
    ),
}

FILES = {
    "pyproject.toml": '[project]\nname = "billing"\nversion = "1.4.0"\nrequires-python = ">=3.9"\n\n'
    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n',
    "README.md": "# billing\n\nInvoices, imports and reports for the shop.\n\n"
    "    python -m billing.cli report data/sample.csv\n",
    "CHANGELOG.md": "# Changelog\n\n## 1.4.0\n\n- Reports show the invoice count.\n",
    "changes/.gitkeep": "",
    "billing/__init__.py": "",
    "billing/i18n.py": '"""Translations: _() marks a message for the catalogs in locale/."""\n\n\n'
    "def _(message: str) -> str:\n    return message\n",
    "billing/money.py": '"""Money in integer cents."""\n\nSYMBOLS = {"EUR": "\\u20ac"}\n\n\n'
    'def fmt(cents: int, currency: str = "EUR") -> str:\n'
    "    return f\"{SYMBOLS.get(currency, currency + ' ')}{cents // 100}.{cents % 100:02d}\"\n",
    "billing/importer.py": '"""Read invoice rows from CSV: customer,amount_cents."""\n\nimport csv\n\n\n'
    "def read_rows(path):\n    rows = []\n    with open(path, newline='') as handle:\n"
    "        for number, (customer, amount) in enumerate(csv.reader(handle), 1):\n"
    "            rows.append((customer, int(amount)))\n    return rows\n",
    "billing/invoices/__init__.py": "",
    "billing/invoices/totals.py": "def total(rows):\n    return sum(amount for _, amount in rows)\n",
    "billing/cli/__init__.py": "",
    "billing/cli/__main__.py": "from billing.cli.main import main\n\nraise SystemExit(main())\n",
    "billing/cli/main.py": "import argparse\n\nfrom billing.cli import report\nfrom billing.i18n import _\n\n\n"
    "def main(argv=None):\n    parser = argparse.ArgumentParser(prog='billing')\n"
    "    commands = parser.add_subparsers(dest='command', required=True)\n"
    "    report.add_arguments(commands.add_parser('report', help=_('print totals')))\n"
    "    args = parser.parse_args(argv)\n    return report.run(args)\n",
    "billing/cli/report.py": "from billing.i18n import _\nfrom billing.importer import read_rows\n"
    "from billing.invoices.totals import total\nfrom billing.money import fmt\n\n\n"
    "def add_arguments(parser):\n    parser.add_argument('path', help=_('CSV of invoice rows'))\n\n\n"
    "def run(args):\n    rows = read_rows(args.path)\n"
    "    print(_('{count} invoices, total {total}').format(count=len(rows), total=fmt(total(rows))))\n"
    "    return 0\n",
    "data/sample.csv": "acme,1250\nglobex,9900\n",
    "tests/unit/test_importer.py": "from billing.importer import read_rows\n\n\n"
    "def test_reads_cents(tmp_path):\n    path = tmp_path / 'rows.csv'\n"
    "    path.write_text('acme,1250\\n')\n    assert read_rows(path) == [('acme', 1250)]\n",
    "tests/unit/invoices/test_totals.py": "from billing.invoices.totals import total\n\n\n"
    "def test_total():\n    assert total([('a', 100), ('b', 250)]) == 350\n",
    "tests/unit/cli/test_report.py": "from billing.cli.main import main\n\n\n"
    "def test_report(capsys):\n    assert main(['report', 'data/sample.csv']) == 0\n"
    "    assert '2 invoices, total \\u20ac111.50' in capsys.readouterr().out\n",
}
HISTORY = ("importer: read amounts as cents", "report: show the invoice count")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def build(target: Path) -> None:
    from tests.helpers import copy_template, snapshot_template

    target.mkdir(parents=True)
    git(target, "init", "-q", "-b", "main")
    for relpath, text in FILES.items():
        (target / relpath).parent.mkdir(parents=True, exist_ok=True)
        (target / relpath).write_text(text, encoding="utf-8")
    git(target, "add", "-A")
    git(target, "commit", "-qm", HISTORY[0])
    (target / "CHANGELOG.md").write_text(FILES["CHANGELOG.md"] + "- Imports read cents.\n")
    git(target, "commit", "-qam", HISTORY[1])
    template = snapshot_template(target.parent / f"{target.name}-template", "v0.0.1")
    copy_template(template, target)
    for fact in json.loads(DATA.read_text(encoding="utf-8"))["facts"]:
        args = ["new", "semantic", "--title", fact["title"], "--source", "verified"]
        args += ["--scope", fact["scope"], "--expires", "never", "--body", fact["body"]]
        if "always" in fact:
            args += ["--always", fact["always"]] if fact["always"] else ["--always"]
        done = subprocess.run(
            [sys.executable, SCRIPT, *args], cwd=target, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(done.stderr)
    git(target, "add", "-A")
    git(target, "commit", "-qm", "memory: the team's facts")


STRING = re.compile(r"""(?<![\w)])(?:f?["'])([^"'\n]*[A-Za-z]{3}[^"'\n]*)["']""")
USER_FACING = re.compile(r"\b(?:print|raise|Error|help=|error\(|exit\()")
SUBJECT = re.compile(r"^[a-z][a-z0-9_/-]*: [^A-Z].*[^.]$")


def added(arm: Path, base: str, *paths: str) -> list[str]:
    diff = git(arm, "diff", "--unified=0", f"{base}..HEAD", "--", *paths)
    return [
        line[1:]
        for line in diff.splitlines()
        if line.startswith("+") and not line.startswith("+++")
    ]


def checks(arm: Path, base: str) -> dict[str, bool]:
    code = added(arm, base, "billing")
    facing = [line for line in code if USER_FACING.search(line) and STRING.search(line)]
    changed = git(arm, "diff", "--name-status", f"{base}..HEAD").splitlines()
    new_files = [line.split("\t")[-1] for line in changed if line.startswith("A")]
    touched = [line.split("\t")[-1] for line in changed]
    subjects = git(arm, "log", "--format=%s", f"{base}..HEAD").splitlines()
    options = [found for line in code for found in re.findall(r"add_argument\(([^)]*)", line)]
    return {
        "gettext": all("_(" in line for line in facing),
        "cents": not any(re.search(r"\bfloat\b|\d\.\d|/ 100\b(?!\d)", line) for line in code),
        "fragment": any(path.startswith("changes/") for path in new_files),
        "commit": bool(subjects) and all(SUBJECT.match(subject) for subject in subjects),
        "tests": any(path.startswith("tests/unit/") for path in touched),
        "kebab": all(
            re.search(r"'--[a-z]+(?:-[a-z]+)*'|\"--[a-z]+(?:-[a-z]+)*\"", option)
            and not re.search(r"['\"]-[a-zA-Z]['\"]", option)
            for option in options
            if "'--" in option or '"--' in option
        ),
    }


PLANTED = "refs/eco-mem/planted"  # where each arm started: no tag or branch an agent lists


def plant(base: Path, into: Path) -> dict:
    """`experiment plant ab` once per task under `into`; each arm's start kept in PLANTED."""
    prompts = {}
    for task, (text, _) in TASKS.items():
        done = subprocess.run(
            [
                *(sys.executable, "-I", OPS, "experiment", "plant", "ab"),
                *("--into", str(into / task), "--task", text),
                *("--check", "python -m pytest -q", "--json"),
            ],
            cwd=base,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        planted = json.loads(done.stdout)
        for name, arm in planted["arms"].items():
            git(Path(arm), "update-ref", PLANTED, "HEAD")
            prompts[f"{task}/{name}"] = {"dir": arm, "prompt": planted["prompts"][name]}
    return prompts


def score(into: Path) -> None:
    print("| task | arm | conventions followed | missed |")
    print("|---|---|---|---|")
    for task, (_, labelled) in TASKS.items():
        for arm in sorted(path for path in (into / task).iterdir() if path.is_dir()):
            found = checks(arm, git(arm, "rev-parse", PLANTED).strip())
            missed = [name for name in labelled if not found[name]]
            kept = len(labelled) - len(missed)
            print(f"| {task} | {arm.name} | {kept}/{len(labelled)} | {', '.join(missed) or '-'} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("build").add_argument("target", type=Path)
    planting = actions.add_parser("plant")
    planting.add_argument("base", type=Path)
    planting.add_argument("into", type=Path)
    actions.add_parser("score").add_argument("into", type=Path)
    args = parser.parse_args()
    if args.action == "build":
        build(args.target)
    elif args.action == "plant":
        print(json.dumps(plant(args.base.resolve(), args.into.resolve()), indent=2))
    else:
        score(args.into)
    return 0


if __name__ == "__main__":
    sys.exit(main())
