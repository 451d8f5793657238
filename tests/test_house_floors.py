"""The rendered package reads top-down (issue 34, item 5): no module imports from a floor
above its own, so a reader can learn the house from the ground up, and a module low in it
(what the merge driver copies, what verify loads on every commit) never drags in the
commands. The operator's package (eco_mem_ops/, never rendered into a host) stands on
the runtime: it imports ecomem, and no ecomem module imports it.

Imports are read with `ast` from the rendered files, those inside functions too (most of
the package imports lazily, to keep verify fast). `commands/__init__.py` loads a command
by name with `__import__`; that stays on its own floor and is not read here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import PROJECT

# Folders of ecomem/, low to high. "" is the ground: the modules at the top of ecomem/
# (errors, git, paths, safe_open, git_home, ...), one small concern each. cli.py is the
# roof: the parser over every command, so it stands on a floor of its own.
FLOORS = (
    "",
    "text",  # text as its reader sees it; the store asks it whether a name gives orders
    "store",  # the memory on disk
    "gitsetup",  # what git needs in the host: ignore re-includes, the merge driver
    "rules",  # verify's rules
    "write",  # the write gate, the lock, the transaction
    "hostfiles",  # eco-mem's blocks in AGENTS.md / CLAUDE.md, package stores (init)
    "review",  # the store read as a whole
    "commands",  # one module per command
    "cli",
)


def floor_of(module: tuple[str, ...]) -> str:
    """The floor of a module named by its parts under ecomem (("store", "load"))."""
    if not module:
        return ""  # ecomem/__init__.py
    if module == ("cli",):
        return "cli"
    return module[0] if len(module) > 1 or module[0] in FLOORS else ""


def imported(source: Path, package: tuple[str, ...]) -> list[tuple[int, tuple[str, ...]]]:
    """(line, module parts under ecomem) for each import of ecomem in `source`."""
    found = []
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)]
            target = base + tuple(node.module.split(".") if node.module else ())
            if node.module is None:  # `from .. import protocol`: each name is a module
                found += [(node.lineno, (*target, alias.name)) for alias in node.names]
            else:
                found.append((node.lineno, target))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            names += [node.module] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                parts = tuple(name.split("."))
                if parts[0] == "ecomem":
                    found.append((node.lineno, parts[1:]))
    return found


def modules(root: Path):
    """(path under ecomem, package parts) for every module file of the rendered package."""
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        parts = relative.with_suffix("").parts
        package = parts if parts[-1] == "__init__" else parts[:-1]
        yield relative, tuple(part for part in package if part != "__init__")


@pytest.fixture(scope="module")
def package() -> Path:
    return PROJECT / "runtime" / "ecomem"


def test_every_folder_of_the_package_stands_on_a_floor(package):
    folders = {path.name for path in package.iterdir() if (path / "__init__.py").is_file()}
    assert folders <= set(FLOORS), f"place each new folder in FLOORS: {folders - set(FLOORS)}"


def test_no_module_imports_from_a_floor_above_its_own(package):
    upward = []
    for relative, package_parts in modules(package):
        own = floor_of(relative.with_suffix("").parts)
        for line, target in imported(package / relative, package_parts):
            other = floor_of(target)
            if FLOORS.index(other) > FLOORS.index(own):
                upward.append(f"{relative}:{line} imports {'.'.join(target)} ({own!r} < {other!r})")
    assert not upward, "imports that run up a floor:\n" + "\n".join(upward)


def test_the_reader_of_imports_sees_those_inside_functions(package, tmp_path):
    """A lazy import counts like one at the top: the test above cannot pass a module that
    hides an upward import in a function body."""
    probe = tmp_path / "probe.py"
    probe.write_text("def late():\n    from ..commands.verify import run\n", encoding="utf-8")
    assert imported(probe, ("store",)) == [(2, ("commands", "verify"))]


# eco_mem_ops, low to high: everything in it stands on the whole runtime (ecomem).
OPS_FLOORS = ("", "install", "experiment", "commands", "cli")
OPS = Path(__file__).resolve().parent.parent / "eco_mem_ops"


def ops_floor_of(module: tuple[str, ...]) -> str:
    if not module or module == ("runtime",):
        return ""
    return module[0] if module[0] in OPS_FLOORS else ""


def ops_imports(source: Path, package: tuple[str, ...]) -> list[tuple[int, str, tuple[str, ...]]]:
    """(line, "ecomem" or "eco_mem_ops", parts under it) for each such import in `source`."""
    found = []
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)]
            target = base + tuple(node.module.split(".") if node.module else ())
            found.append((node.lineno, "eco_mem_ops", target))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            names += [node.module] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                parts = tuple(name.split("."))
                if parts[0] in ("ecomem", "eco_mem_ops"):
                    found.append((node.lineno, parts[0], parts[1:]))
    return found


def test_no_runtime_module_imports_the_operator(package):
    """What a host holds runs without what only an operator has."""
    found = [
        f"{relative}:{line}"
        for relative, package_parts in modules(package)
        for line, target in imported(package / relative, package_parts)
        if target[:1] == ("eco_mem_ops",)
    ]
    assert not found, found


def test_no_operator_module_imports_from_a_floor_above_its_own():
    upward = []
    for relative, package_parts in modules(OPS):
        own = ops_floor_of(relative.with_suffix("").parts)
        for line, home, target in ops_imports(OPS / relative, package_parts):
            if home != "eco_mem_ops":
                continue
            other = ops_floor_of(target)
            if OPS_FLOORS.index(other) > OPS_FLOORS.index(own):
                upward.append(f"{relative}:{line} imports {'.'.join(target)} ({own!r} < {other!r})")
    assert not upward, "imports that run up a floor:\n" + "\n".join(upward)
