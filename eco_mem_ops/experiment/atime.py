"""File access times as the witness of which memory files an agent opened.

Plant gives every memory file an access time older than its modification time. Linux's
default `relatime` updates the access time on a read only when it is not newer than the
modification time, so the first read after plant is always recorded; `strictatime`
records every read; `noatime` records none, and a probe says so.

Setting times changes a file's ctime, and git's index refresh (`git status`) re-reads
every file whose stat data changed, which would look like an agent opening them all. The
clone therefore tells git not to compare ctime (`core.trustctime false`), and the index
is refreshed after the mtimes are set and before the access times are.

verify reads every entry. Run inside an experiment clone it first records the access
times (a snapshot, ecomem/experiment_clone.py in the clone's own runtime), so reads before it stay visible. `find` records one too: it is the
protocol's load step, so the first snapshot marks the agent's first memory command.
Reads made before it are an observer's (someone looking around the clone, a grep), not
the agent's: they are reported and never counted, and without any snapshot a read
cannot be told from an observer's at all.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from . import key as experiment_key

DAY_NS = 86_400 * 1_000_000_000
VERIFY_WINDOW_NS = 30 * 1_000_000_000  # verify's own reads land within this of its snapshot


def read_unseen(path: Path) -> str:
    """The file's text, its access time put back: the scorer's own reads are no agent's."""
    before = path.stat()
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    finally:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def reads_recorded(folder: Path) -> bool:
    """Probe: does reading a file in `folder` move its access time forward?"""
    from ecomem.safe_open import write_bytes

    probe = folder / "eco-mem-atime-probe"
    write_bytes(folder, probe, b"probe\n")
    try:
        stamp = probe.stat()
        os.utime(probe, ns=(stamp.st_mtime_ns - DAY_NS, stamp.st_mtime_ns))
        with open(probe, "rb") as handle:
            handle.read()
        return probe.stat().st_atime_ns != stamp.st_mtime_ns - DAY_NS
    finally:
        probe.unlink()


def mount_options(path: Path) -> str:
    """The mount options of the file system holding `path` (Linux), for the report."""
    best, options = "", ""
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                fields = line.split()
                if (
                    len(fields) > 3
                    and str(path).startswith(fields[1])
                    and len(fields[1]) > len(best)
                ):
                    best, options = fields[1], fields[3]
    except OSError:
        return ""
    return options


def reset(root: Path, relpaths: list[str]) -> dict:
    """Give every file an access time a read will move, keeping git from reading them."""
    from ecomem.git import git, output  # only plant needs them; verify imports this module

    mtime_ns = (time.time_ns() // 1_000_000_000 - 3600) * 1_000_000_000
    atime_ns = mtime_ns - 2 * DAY_NS  # older than mtime, and older than relatime's day
    for relpath in relpaths:
        os.utime(root / relpath, ns=(atime_ns, mtime_ns))
    output(root, "config", "core.trustctime", "false")
    # Record the new mtimes in the index now; this reads the files, before the reset.
    git(root, "update-index", "-q", "--refresh")
    for _attempt in range(2):
        for relpath in relpaths:
            os.utime(root / relpath, ns=(atime_ns, mtime_ns))
        output(root, "status", "--porcelain")
        moved = [r for r in relpaths if (root / r).stat().st_atime_ns != atime_ns]
        if not moved:
            break
    recorded = reads_recorded(root / ".git")
    return {
        "atime_ns": atime_ns,
        "mtime_ns": mtime_ns,
        "files": relpaths,
        "reads_recorded": recorded,
        "git_status_reads": bool(moved),
    }


def snapshots(root: Path) -> list[dict]:
    taken = []
    for path in experiment_key.snapshots_paths(root):
        if path.is_file():
            lines = path.read_text(encoding="utf-8").splitlines()
            taken += [json.loads(line) for line in lines if line.strip()]
    return sorted(taken, key=lambda shot: shot["at_ns"])


class Reads:
    """What the access times say: files the agent read, and what could not be counted."""

    def __init__(self) -> None:
        self.opened: list[str] | None = None  # None: access times cannot tell
        self.notes: list[str] = []
        self.start: str | None = None  # the first memory command run in the clone
        self.before_start: list[str] = []  # read before it: an observer's, not counted
        self.unattributed: list[str] = []  # read, but no agent command to tie them to
        self.hides_later_reads = False  # relatime: reads before start mask the agent's

    def as_dict(self) -> dict:
        return {
            "first_agent_command": self.start,
            "read_before_first_command": self.before_start,
            "read_without_agent_command": self.unattributed,
        }


def opened(root: Path, key: dict) -> Reads:
    """Which memory files an agent opened since plant, from access times."""
    reads = Reads()
    reset_info = key["atime"]
    if not reset_info["reads_recorded"] or not reads_recorded(root / ".git"):
        options = mount_options(root.resolve())
        shown = f" (mount options: {options})" if options else ""
        reads.notes.append(f"this file system does not record reads{shown}")
        return reads
    if reset_info["git_status_reads"]:
        reads.notes.append(
            "git status re-read the memory files at plant; access times prove nothing"
        )
        return reads
    base = reset_info["atime_ns"]
    now = {}
    for relpath in reset_info["files"]:
        try:
            now[relpath] = (root / relpath).stat().st_atime_ns
        except OSError:
            continue  # deleted since plant: whether it was read first is unknown
    read = sorted(relpath for relpath, atime in now.items() if atime != base)
    shots = snapshots(root)
    if not shots:
        # No memory command ran here: an agent's reads and an observer's look the same.
        reads.unattributed = read
        reads.opened = []
        if read:
            reads.notes.append(
                f"{len(read)} memory file(s) read, but no memory command (find, verify) ran"
                " in the clone: an observer reads files too, so they are not counted as the"
                " agent's"
            )
        return reads
    first = shots[0]
    reads.start = f"{first.get('command', 'verify')} at {_clock(first['at_ns'])}"
    before = {r: a for r, a in first["atimes"].items() if r in now and a != base}
    reads.before_start = sorted(before)
    strict = "strictatime" in mount_options(root.resolve()).split(",")
    if before:
        reads.notes.append(
            f"{len(before)} memory file(s) read before the first agent command ({reads.start}):"
            " an observer's reads, not counted"
        )
        reads.hides_later_reads = not strict
    verify_shots = [shot for shot in shots if shot.get("command", "verify") == "verify"]
    if verify_shots:
        reads.notes.append(
            f"verify ran {len(verify_shots)} time(s); files it read are not counted, and on"
            " relatime mounts later reads of those files leave no trace"
        )
    windows = [
        (shot["at_ns"] - 1_000_000_000, shot["at_ns"] + VERIFY_WINDOW_NS) for shot in verify_shots
    ]
    seen = set()
    for relpath, atime in now.items():
        if atime == base or before.get(relpath) == atime:
            continue  # never read, or read only before the first agent command
        if not any(low <= atime <= high for low, high in windows):
            seen.add(relpath)
    # A verify snapshot that found a file already read (not by an observer): the agent's.
    for shot in verify_shots:
        for relpath, atime in shot["atimes"].items():
            if relpath in now and atime != base and before.get(relpath) != atime:
                seen.add(relpath)
    reads.opened = sorted(seen)
    return reads


def _clock(at_ns: int) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at_ns // 1_000_000_000))
