"""What the answers file records, and what an existing install allows.

Copier writes `_src_path` exactly as typed. A relative local path such as
`.` means "the template" only from the folder the copy ran in; `copier
update` later resolves it from the host repository and fails. The
`findable_source` filter records such a path as an absolute one instead.

A second `copier copy` does not read our answers file (Copier looks for
`.copier-answers.yml` unless told otherwise), so it cannot know the paths
of the install it would overwrite, and rendering the skill at another path
over an existing one crashes deep inside Copier. `install_move_problem`
refuses any answer that moves an install while the install is still at its
recorded path, when answers are validated and before a file is written.
Moving is a documented recipe instead (docs/updating.md, "Move an install"):
the team moves the drawers with git (no render can move entries), removes
the old skill, then re-renders with the new paths as `--data`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import yaml
from jinja2 import Environment, pass_context
from jinja2.ext import Extension

# Every render reads copier.yml once more here (three times in an update): libyaml's
# loader, where PyYAML has it, reads it in 1 ms; the pure-Python one took 9.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# Anything with a scheme, scp-like `user@host:path`, or Copier's gh:/gl: shortcuts.
REMOTE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://|[^/@:]+@[^/:]+:|gh:|gl:)")


def findable_source(answers: dict) -> dict:
    """The answers with a relative local `_src_path` made absolute."""
    source = str(answers.get("_src_path", ""))
    if not source or REMOTE.match(source) or os.path.isabs(source):
        return answers
    local = Path(source).expanduser()
    if not local.exists():
        return answers
    return {**answers, "_src_path": str(local.resolve())}


class _DoubleQuotingDumper(yaml.SafeDumper):
    """PyYAML, quoting with double quotes where it would use single ones: prettier and
    oxfmt (and Biome) rewrite `_commit: '1234567'` as `_commit: "1234567"`, so a commit
    id of digits alone made a host's format check fail on the answers file."""

    def choose_scalar_style(self):
        style = super().choose_scalar_style()
        return '"' if style == "'" else style


def answers_yaml(answers: dict) -> str:
    """The answers file's body, as `to_nice_yaml` wrote it but with double quotes."""
    return yaml.dump(
        answers,
        Dumper=_DoubleQuotingDumper,
        indent=4,
        allow_unicode=True,
        default_flow_style=False,
    )


def recorded_answers(copier_conf) -> dict:
    """The host's eco-mem answers file as it is on disk, {} when there is none."""
    answers_file = Path(copier_conf["dst_path"]) / copier_conf["answers_file"]
    if not answers_file.is_file():
        return {}
    return yaml.safe_load(answers_file.read_text(encoding="utf-8")) or {}


def installed_skill_dir(copier_conf) -> str:
    """The skill folder recorded in the host's answers file.

    Before-migrations run before Copier has loaded any answers, yet they must
    call the script that is installed now; its path comes from the answers file.
    """
    return f"{recorded_answers(copier_conf)['skill_path']}/eco-mem"


# What each path answer puts in the host: a render at another path collides with it.
INSTALLED_AT = {"skill_path": "{}/eco-mem", "memory_path": "{}"}


def install_move_problem(copier_conf, name: str, value: str) -> str:
    """Why `name` may not be `value` in this destination, or "" when it may.

    A new path is fine once nothing is left at the recorded one: the drawers
    were moved with git and the old skill removed, as "Move an install" does,
    so the render cannot meet the old install and no entry stays behind.
    """
    recorded = recorded_answers(copier_conf).get(name)
    if recorded is None or recorded == value:
        return ""
    installed = INSTALLED_AT[name].format(recorded)
    if not os.path.lexists(Path(copier_conf["dst_path"]) / installed):
        return ""
    return (
        f"eco-mem is installed here with {name}={recorded}; keep that, or move the"
        " install first with the recipe 'Move an install' in eco-mem's docs/updating.md"
        f" ({installed} is still there)"
    )


@pass_context
def answer_problem(context, name: str) -> str:
    """Why the answer to `name` cannot be installed here, as "name: reason", or ""."""
    filters = context.environment.filters
    conf = context["_copier_conf"]
    value = context.get(name)
    recorded = recorded_answers(conf).get(name)
    why = ""
    if name in ("skill_path", "memory_path"):
        other = ("", "") if name == "skill_path" else (context.get("skill_path"), "skill_path")
        why = (
            filters["path_problem"](value, *other)
            or filters["layout_problem"](conf, value, recorded)
            or install_move_problem(conf, name, value)
        )
    elif name == "claude_code":
        why = filters["claude_problem"](conf, value)
    elif name == "ci":
        why = filters["ci_problem"](conf, value)
    elif name == "review_thresholds":
        why = filters["thresholds_problem"](value)
    return f"{name}: {why}" if why else ""


def typed_at_prompt(copier_conf, name: str) -> bool:
    """True when the answer to `name` comes from a person at Copier's prompt.

    Copier turns a validator's message into a ValueError with a 40-line traceback
    whenever the answer came from `--data`, `--defaults` or the answers file; only
    at the prompt does it show the message and ask again.
    """
    return not copier_conf["defaults"] and name not in (copier_conf["data"] or {})


@pass_context
def prompt_problem(context, name: str) -> str:
    """A question's validator: the reason, for an answer typed at the prompt only.

    Every other answer is judged by `refuse_bad_answers`, in one line.
    """
    if not typed_at_prompt(context["_copier_conf"], name):
        return ""
    return answer_problem(context, name)


def computed_questions(template_folder) -> list[str]:
    """The template's computed values: the questions copier.yml never asks, marked
    `when: false` or given no `help` (`answers_refused` runs its check in `when`)."""
    text = (Path(template_folder) / "copier.yml").read_text(encoding="utf-8")
    config = yaml.load(text, Loader=SAFE_LOADER)
    return [
        name
        for name, spec in config.items()
        if not name.startswith("_")
        and isinstance(spec, dict)
        and (spec.get("when") is False or "help" not in spec)
    ]


def computed_data_problem(copier_conf) -> str:
    """Why the data holds a computed value, or "".

    Copier lets `--data` (and the answers an update re-renders the old version with)
    replace a `when: false` value, so `skill_dir`, `verify_command` or the like would
    reach the rendered scripts and hooks as given, unchecked.
    """
    given = copier_conf["data"] or {}
    for name in computed_questions(copier_conf["src_path"]):
        if name in given:
            return (
                f"{name}: computed from the other answers, never given; remove it from"
                f" --data (or from {copier_conf['answers_file'] or 'the answers file'})"
            )
    return ""


@pass_context
def refuse_bad_answers(context, names: list[str]) -> str:
    """Stop before anything is written, in one line, at a computed value given as data
    or the first answer `answer_problem` refuses: Copier prints a UserMessageError raised
    while it renders copier.yml as its message alone (and the API raises it), where a
    validator's ends in a traceback."""
    problems = (answer_problem(context, name) for name in names)
    why = computed_data_problem(context["_copier_conf"]) or next(filter(None, problems), "")
    if why:
        from copier.errors import UserMessageError  # only Copier renders copier.yml

        raise UserMessageError(why)
    return ""


class AnswersExtension(Extension):
    """Expose the answers helpers to copier.yml and the answers file template."""

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.filters["findable_source"] = findable_source
        environment.filters["answers_yaml"] = answers_yaml
        environment.filters["installed_skill_dir"] = installed_skill_dir
        environment.filters["install_move_problem"] = install_move_problem
        environment.filters["prompt_problem"] = prompt_problem
        environment.filters["refuse_bad_answers"] = refuse_bad_answers
