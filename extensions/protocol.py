"""The eco-mem protocol's numbers and names, defined once.

Every rendered file reads these through the `protocol` global: SKILL.md, the
INDEX contracts and the verify script's constants. Change a cap here and the
whole template follows; nothing else in the repository may restate a number.

The `path_problem` filter backs the path validators in copier.yml, so the
rules for a valid answer live in Python instead of in long Jinja expressions;
the charset part of it is the rendered scripts' ecomem/path_rule.py, loaded
from the template so the fleet and the installed scripts apply the same rule.
"""

from __future__ import annotations

import importlib.util
import posixpath
import sys
from pathlib import Path
from pprint import pformat

from jinja2 import Environment
from jinja2.ext import Extension


def _load_path_rule():
    """The rendered scripts' own path rule module, loaded from the template by its file:
    the validators, the fleet and the installed scripts judge a folder answer alike."""
    file = Path(__file__).resolve().parents[1] / "template" / "{{skill_path}}" / "eco-mem"
    file = file / "scripts" / "ecomem" / "path_rule.py"
    spec = importlib.util.spec_from_file_location("eco_mem_path_rule", file)
    module = importlib.util.module_from_spec(spec)
    # No bytecode cache: it would land beside path_rule.py in Copier's clone of the
    # template, and Copier renders that folder, cache included, into the host.
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module


path_rule_problem = _load_path_rule().path_rule_problem

DRAWERS = ("working", "semantic", "episodic", "procedural")

CAPS = {
    "desks": 3,  # active working desks at one time
    "desk_lines": 80,
    "semantic_lines": 30,
    "episodic_lines": 40,
    "procedural_lines": 40,  # a staging checklist's body
    "catalog_rows": 40,  # past this, archive dead rows before adding one
    "entries_per_task": 5,  # entry files opened per task, the desk not counted
}

SEMANTIC_FIELDS = ("as_of", "source", "scope", "expires")
SEMANTIC_SOURCES = ("user-confirmed", "verified", "derived")
EPISODIC_SECTIONS = ("context", "action", "result", "lesson")

# The last column of every catalog names the entry file inside the drawer.
CATALOG_COLUMNS = {
    "working": ("desk", "goal", "file"),
    "semantic": ("slug", "one-liner", "as_of", "source", "file"),
    "episodic": ("date", "event", "lesson", "file"),
    "procedural": ("name", "use when", "points to", "file"),
}

# `review`'s thresholds and their defaults: days before a derived fact counts as
# unconfirmed, days before a desk is stale, the percent of a catalog's cap that is
# near it, and the always-loaded surface's budget in bytes.
REVIEW_THRESHOLDS = {"unconfirmed_days": 90, "desk_days": 14, "near_cap": 90, "load_budget": 20000}

PROTOCOL = {
    "drawers": DRAWERS,
    "caps": CAPS,
    "semantic_fields": SEMANTIC_FIELDS,
    "semantic_sources": SEMANTIC_SOURCES,
    "episodic_sections": EPISODIC_SECTIONS,
    "catalog_columns": CATALOG_COLUMNS,
    "review_thresholds": REVIEW_THRESHOLDS,
}


def thresholds_problem(value: object) -> str:
    """Why a `review_thresholds` answer is unusable ("" if it is fine): NAME=N pairs,
    comma-separated, each NAME one of REVIEW_THRESHOLDS, near_cap a percent."""
    for part in filter(None, (piece.strip() for piece in str(value or "").split(","))):
        name, equals, number = (piece.strip() for piece in part.partition("="))
        if not equals or name not in REVIEW_THRESHOLDS or not number.isdigit():
            known = ", ".join(REVIEW_THRESHOLDS)
            return f"{part!r} is not NAME=N with NAME one of {known}"
        if name == "near_cap" and not 0 < int(number) <= 100:
            return f"near_cap is a percent of the cap, 1 to 100, not {number}"
    return ""


def path_problem(value: object, other: str = "", other_name: str = "") -> str:
    """Return why `value` is not a usable repo-relative folder, or "" if it is.

    `other` is an already answered path that must not contain `value` nor sit
    inside it (the skill and the memory store are separate folders).
    """
    path = "" if value is None else str(value)
    why = path_rule_problem(path)
    if why:
        return why
    if other and _nested(path, other):
        return f"must not contain or sit inside {other_name or other} ({other})"
    return ""


def _nested(first: str, second: str) -> bool:
    a, b = first.split("/"), second.split("/")
    shorter = min(len(a), len(b))
    return a[:shorter] == b[:shorter]


def relpath(target: str, start: str) -> str:
    """Relative POSIX path from folder `start` to `target`, both repo-relative."""
    return posixpath.relpath(target, start)


def catalog_header(drawer: str) -> str:
    """The two header lines of a drawer's catalog table."""
    columns = CATALOG_COLUMNS[drawer]
    return "| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|"


def code_list(values: object) -> str:
    """`a`, `b`, `c`: names as they appear in inline code."""
    return ", ".join(f"`{value}`" for value in values)


def python_literal(value: object) -> str:
    """Render a value as Python source, for the rendered script's constants."""
    return pformat(value, width=88, sort_dicts=False)


class ProtocolExtension(Extension):
    """Expose the protocol and the path helpers to every template."""

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.globals["protocol"] = PROTOCOL
        environment.globals["catalog_header"] = catalog_header
        environment.filters["path_problem"] = path_problem
        environment.filters["thresholds_problem"] = thresholds_problem
        environment.filters["relpath"] = relpath
        environment.filters["python_literal"] = python_literal
        environment.filters["code_list"] = code_list
