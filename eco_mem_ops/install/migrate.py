"""Carry catalog rows across a release that reshapes a catalog table.

Copier merges a team's rows by the lines around them; when a release changes
a catalog's header, that context is gone and rows would conflict. So a
release that reshapes a catalog runs two migration steps:

- before the update, `stash` lifts every row out of the INDEX files (into a
  file inside .git) and stages the row-less INDEX, which is then identical to
  what the old version rendered: Copier has nothing to merge there;
- after the update, `restore` appends the rows under the new header, moving
  each cell to its column by name (`--rename drawer:old=new` for renamed
  columns; a new column gets `-`), and unstages the INDEX files.

Both steps run from the operator's checkout of the release being applied
(copier.yml runs ops.py from `_copier_conf.src_path`), never the host's copy.
"""

from __future__ import annotations

import json
from pathlib import Path

from ecomem import protocol
from ecomem.git import output as git_output
from ecomem.safe_open import remove, replace, write_text
from ecomem.store.catalog import parse_catalog, split_cells
from ecomem.store.load import INDEX
from ecomem.store.rows import row_text

STASH_NAME = "eco-mem-catalog-stash.json"


def _stash_path(root: Path) -> Path:
    return Path(git_output(root, "rev-parse", "--absolute-git-dir")) / STASH_NAME


def _index(root: Path, drawer: str) -> Path:
    return root / protocol.MEMORY_DIR / drawer / INDEX


def stash(root: Path) -> int:
    """Move all catalog rows into the stash; return how many rows moved."""
    saved, moved = {}, 0
    for drawer in protocol.DRAWERS:
        path = _index(root, drawer)
        if not path.is_file():
            continue
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        catalog = parse_catalog([line.rstrip("\r\n") for line in lines])
        if not catalog.rows:
            continue
        row_lines = {row.line - 1 for row in catalog.rows}
        saved[drawer] = {
            "columns": catalog.columns,
            "rows": [lines[number].rstrip("\r\n") for number in sorted(row_lines)],
        }
        replace(root, path, "".join(line for n, line in enumerate(lines) if n not in row_lines))
        git_output(root, "add", "--", str(path))
        moved += len(row_lines)
    if saved:
        stash_file = _stash_path(root)
        write_text(stash_file.parent, stash_file, json.dumps(saved, indent=1))
    return moved


def reshape(cells: list[str], old: list[str], new: list[str], renames: dict[str, str]) -> list[str]:
    """Re-order one row's cells from the old columns to the new ones, by name."""
    by_name = {renames.get(name, name): cell for name, cell in zip(old, cells)}
    return [by_name.get(name, "-") for name in new]


def restore(root: Path, renames: dict[str, dict[str, str]]) -> int:
    """Append stashed rows under the current headers; return how many rows came back."""
    stash_file = _stash_path(root)
    if not stash_file.is_file():
        return 0
    saved = json.loads(stash_file.read_text(encoding="utf-8"))
    restored = 0
    for drawer, table in saved.items():
        path = _index(root, drawer)
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        catalog = parse_catalog(lines)
        end = table_end(lines, catalog.heading_line)
        # The one row writer: it escapes a pipe inside a cell, as the reader expects.
        rows = [
            row_text(
                reshape(
                    split_cells(row), table["columns"], catalog.columns, renames.get(drawer, {})
                )
            )
            for row in table["rows"]
        ]
        lines[end:end] = rows
        replace(root, path, "\n".join(lines) + "\n")
        git_output(root, "reset", "-q", "--", str(path))
        restored += len(rows)
    remove(stash_file.parent, stash_file)
    return restored


def table_end(lines: list[str], heading_line: int) -> int:
    """Index just past the last table line under the catalog heading."""
    end = heading_line
    for number in range(heading_line, len(lines)):
        if lines[number].lstrip().startswith("|"):
            end = number + 1
        elif lines[number].strip() and end > heading_line:
            break
    return end


def parse_renames(specs: list[str]) -> dict[str, dict[str, str]]:
    """`semantic:one-liner=fact` -> {"semantic": {"one-liner": "fact"}}."""
    renames: dict[str, dict[str, str]] = {}
    for spec in specs:
        drawer, _, change = spec.partition(":")
        old, _, new = change.partition("=")
        if drawer not in protocol.DRAWERS or not old or not new:
            raise ValueError(f"--rename {spec!r}: expected DRAWER:OLD=NEW")
        renames.setdefault(drawer, {})[old.strip().lower()] = new.strip().lower()
    return renames


# Package stores: Copier never renders them, so their rows move here, in place.
def reshape_catalog(root: Path, memory_dir: str, drawer: str, renames: dict[str, str]) -> int:
    """Move one package INDEX's rows under the current header, each cell to its column
    by name (`-` for a new one); the rows moved. Copier never renders a package store,
    so there is nothing to stash: a release that reshapes a catalog changes it in place,
    where `package_refresh.refresh_contract` leaves a header it does not know."""
    from ecomem.hostfiles.packages import package_contract

    path = root / memory_dir / drawer / INDEX
    if not path.is_file() or path.is_symlink():
        return 0
    with open(path, encoding="utf-8", newline="") as handle:
        lines = handle.read().splitlines()
    catalog = parse_catalog(lines)
    contract = package_contract(memory_dir, drawer)
    columns = parse_catalog(contract.splitlines()).columns
    if not catalog.columns or catalog.columns == columns or catalog.problems:
        return 0  # current already, or broken in a way verify names: nothing to move
    rows = [row_text(reshape(row.cells, catalog.columns, columns, renames)) for row in catalog.rows]
    after = lines[table_end(lines, catalog.heading_line) :]
    replace(root, path, contract + "".join(f"{line}\n" for line in (*rows, *after)))
    return len(rows)


def reshape_packages(root: Path, renames: dict[str, dict[str, str]]) -> int:
    """`reshape_catalog` over every package store; the rows moved."""
    from ecomem.store import stores

    return sum(
        reshape_catalog(root, memory_dir, drawer, renames.get(drawer, {}))
        for memory_dir in stores.package_stores(root)
        for drawer in protocol.DRAWERS
    )
