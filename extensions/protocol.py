"""The protocol, as the template renders it: numbers, names and INDEX contracts.

They are written once, in the scripts the template installs (ecomem/protocol.py and
ecomem/store/contracts.py), and loaded from there by path: SKILL.md, the INDEX files
and the scripts' own checks read the same numbers and the same text. Change a cap
there and the whole template follows.

The `path_problem` filter backs the path validators in copier.yml, so the rules for a
valid answer live in Python instead of in long Jinja expressions; the charset part of
it is the scripts' ecomem/path_rule.py, the rule the fleet and the scripts apply too.
"""

from __future__ import annotations

import importlib.util
import posixpath
import sys
from pathlib import Path

from jinja2 import Environment
from jinja2.ext import Extension

RUNTIME = Path(__file__).resolve().parents[1] / "runtime" / "ecomem"


def _load(relpath: str, name: str):
    """A module of the scripts the template installs, loaded from the template by its
    file: the protocol's numbers and contracts are written there once, and the
    validators and the fleet judge a folder answer by the scripts' own rule."""
    spec = importlib.util.spec_from_file_location(name, RUNTIME / relpath)
    module = importlib.util.module_from_spec(spec)
    # No bytecode cache: it would land beside the module in Copier's clone of the
    # template, and Copier renders that folder, cache included, into the host.
    saved, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
    return module


path_rule_problem = _load("path_rule.py", "eco_mem_path_rule").path_rule_problem
_protocol = _load("protocol.py", "eco_mem_protocol")
_contracts = _load("store/contracts.py", "eco_mem_contracts")
CAPS, DRAWERS, CATALOG_COLUMNS = _protocol.CAPS, _protocol.DRAWERS, _protocol.CATALOG_COLUMNS
REVIEW_THRESHOLDS = _protocol.REVIEW_DEFAULTS

PROTOCOL = {
    "drawers": DRAWERS,
    "caps": CAPS,
    "semantic_fields": _protocol.SEMANTIC_FIELDS,
    "semantic_sources": _protocol.SEMANTIC_SOURCES,
    "episodic_sections": _protocol.EPISODIC_SECTIONS,
    "catalog_columns": CATALOG_COLUMNS,
    "review_thresholds": REVIEW_THRESHOLDS,
}


def index_contract(drawer: str, skill_dir: str, memory_path: str) -> str:
    """A drawer's INDEX.md up to its empty catalog, as the scripts write and check it."""
    return _contracts.contract_text(drawer, skill_dir, memory_path, _protocol)


def memory_file(name: str, skill_dir: str) -> str:
    """A small file at the memory root (`.ignore`, a host tool's settings) or the working
    drawer's `.gitignore`, as the scripts write and check it."""
    if name == ".ignore":
        return _contracts.search_ignore(skill_dir)
    if name == "working/.gitignore":
        return _contracts.WORKING_IGNORE
    return _contracts.TOOL_FILES[name]


def tool_file(place: str, name: str, skill_dir: str) -> str:
    """A host tool's settings file the release ships to `place` ("skill", "scripts"), as
    verify holds it (the scripts' SHIPPED_TOOL_FILES)."""
    return _contracts.tool_files(place, skill_dir)[name]


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


def code_list(values: object) -> str:
    """`a`, `b`, `c`: names as they appear in inline code."""
    return ", ".join(f"`{value}`" for value in values)


# The runtime file Copier copies verbatim into every host (eco_mem_ops/runtime_build.py
# builds it from runtime/); its literal folder name holds no Jinja tag.
RUNTIME_FILE = Path(__file__).resolve().parents[1] / "template" / "{{skill_path}}" / "eco-mem"
RUNTIME_FILE = RUNTIME_FILE / "scripts" / "eco_mem.pyz"


def runtime_sha256(_: object = None) -> str:
    """The sha256 of the runtime file this template copies: read from the file itself,
    so the record a host keeps beside it cannot disagree with the bytes it got."""
    import hashlib

    return hashlib.sha256(RUNTIME_FILE.read_bytes()).hexdigest()


class ProtocolExtension(Extension):
    """Expose the protocol and the path helpers to every template."""

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        environment.globals["protocol"] = PROTOCOL
        environment.globals["index_contract"] = index_contract
        environment.globals["memory_file"] = memory_file
        environment.globals["tool_file"] = tool_file
        environment.filters["path_problem"] = path_problem
        environment.filters["thresholds_problem"] = thresholds_problem
        environment.filters["relpath"] = relpath
        environment.filters["code_list"] = code_list
        environment.filters["runtime_sha256"] = runtime_sha256
