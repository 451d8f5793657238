"""The runtime file a host holds, `scripts/eco_mem.pyz`, built from `runtime/`.

One zip application per release, the same bytes on every machine: anyone rebuilds it
from the release's source and compares the sha256 with the one the host records
(`scripts/eco_mem.pyz.sha256`). So nothing in it depends on the machine: entries in
sorted order, one fixed date (1980-01-01, the earliest a zip can say) and mode, no
bytecode, line endings as git stores them, and no compression (zlib and zlib-ng, both
common builds of Python, compress the same input to different bytes).
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent
SOURCE = CHECKOUT / "runtime"
# Copier copies it verbatim (no .jinja suffix): the name is a literal, not a Jinja tag.
ARTIFACT = CHECKOUT / "template" / "{{skill_path}}" / "eco-mem" / "scripts" / "eco_mem.pyz"
SHEBANG = b"#!/usr/bin/env python3\n"
STAMP = (1980, 1, 1, 0, 0, 0)
MODE = 0o100644  # a regular file, rw-r--r--
UNIX = 3  # the "made by" system zipfile would otherwise take from this machine
REBUILD = "python3 ops.py build-runtime"


def sources(source: Path = SOURCE) -> list[tuple[str, Path]]:
    """(name in the archive, file) for every .py of the runtime, sorted by name; caches
    and whatever a tool left beside them (.ruff_cache, editor files) stay out."""
    found = []
    for folder, subfolders, files in os.walk(source):
        subfolders[:] = [name for name in subfolders if name != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                path = Path(folder) / name
                found.append((path.relative_to(source).as_posix(), path))
    return sorted(found)


def build(source: Path = SOURCE) -> bytes:
    """The runtime file's bytes, built from `source`."""
    buffer = io.BytesIO()
    buffer.write(SHEBANG)
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        for name, path in sources(source):
            entry = zipfile.ZipInfo(name, date_time=STAMP)
            entry.create_system = UNIX
            entry.external_attr = MODE << 16
            entry.compress_type = zipfile.ZIP_STORED
            # A checkout with autocrlf holds CRLF; the release's bytes hold what git does.
            archive.writestr(entry, path.read_bytes().replace(b"\r\n", b"\n"))
    return buffer.getvalue()


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write(target: Path = ARTIFACT, source: Path = SOURCE) -> str:
    """Build the runtime into `target` (by temp file and rename); its sha256."""
    data = build(source)
    temp = target.with_name(f".{target.name}.{os.getpid()}")
    temp.write_bytes(data)
    os.chmod(temp, 0o644)
    os.replace(temp, target)
    return digest(data)


def stale(target: Path = ARTIFACT, source: Path = SOURCE) -> str:
    """Why the committed runtime file is not a fresh build of `source`, or ""."""
    try:
        committed = target.read_bytes()
    except OSError as error:
        return f"{target}: {error.strerror}; run `{REBUILD}`"
    fresh = build(source)
    if committed == fresh:
        return ""
    return (
        f"{target.name} (sha256 {digest(committed)}) is not a build of {source.name}/"
        f" (sha256 {digest(fresh)}); run `{REBUILD}` and commit it"
    )
