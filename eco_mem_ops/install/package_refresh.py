"""Package stores brought current on every update (`ops.py blocks`): each store's INDEX
contracts rewritten above their catalogs, rows byte for byte, and its AGENTS.md block.

The operator's alone: a host writes a package store once, with `eco_mem.pyz init`
(ecomem/hostfiles/packages.py); only a release changes the contracts afterwards.
"""

from __future__ import annotations

import os
from pathlib import Path

from ecomem import protocol
from ecomem.hostfiles.packages import package_contract, write_package_block
from ecomem.safe_open import make_folders, replace
from ecomem.store import INDEX, stores


def refresh_contract(root: Path, memory_dir: str, drawer: str) -> bool:
    """Rewrite the contract above the catalog of one package INDEX; rows byte for byte.
    An INDEX without a catalog header is left to verify."""
    path = root / memory_dir / drawer / INDEX
    if not path.is_file() or path.is_symlink():
        return False
    with open(path, encoding="utf-8", newline="") as handle:
        lines = handle.read().splitlines(keepends=True)
    contract = package_contract(memory_dir, drawer)
    header = contract.splitlines()[-2]  # the column names, above the |---| line
    at = next((i for i, line in enumerate(lines) if line.startswith("|---")), None)
    if at is None or at == 0 or lines[at - 1].strip() != header:
        return False  # no catalog, or other columns: catalog-migrate's to change
    new = contract + "".join(lines[at + 1 :])
    if new == "".join(lines):
        return False
    replace(root, path, new.encode("utf-8"))
    return True


def refresh_packages(root: Path) -> list[str]:
    """Every package store's contracts and AGENTS.md block brought current; files changed."""
    changed = []
    for memory_dir in stores.package_stores(root):
        for drawer in protocol.DRAWERS:
            index = f"{memory_dir}/{drawer}/{INDEX}"
            if not os.path.lexists(root / index):
                # A drawer without its INDEX is broken: put it back, as restore-indexes
                # does at the root.
                make_folders(root, (root / index).parent)
                replace(root, root / index, package_contract(memory_dir, drawer).encode("utf-8"))
                changed.append(f"{index} (restored)")
            elif refresh_contract(root, memory_dir, drawer):
                changed.append(index)
        changed += write_package_block(root, memory_dir)
    return changed
