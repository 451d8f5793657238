"""`ops.py experiment plant`: a clone of HEAD with one experiment planted in its memory.

The live repository is only read (`git clone` from it); the clone loses its `origin`
remote so nothing the agent does there can be pushed back. Everything planted is
deterministic for a given source commit: two plants of the same kind give the same files
and the same commit.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from datetime import date
from pathlib import Path

from ecomem import protocol
from ecomem.errors import Refused
from ecomem.experiment_clone import memory_files
from ecomem.findings import ERROR
from ecomem.git import output as git_output
from ecomem.safe_open import remove, replace
from ecomem.store.catalog import parse_catalog
from ecomem.store.load import INDEX
from ecomem.store.rows import add_row

from . import atime as experiment_atime
from . import fixtures
from . import key as experiment_key

# The planted commit's author: the same on every machine, so plants are reproducible.
IDENTITY = {
    "GIT_AUTHOR_NAME": "eco-mem kit",
    "GIT_AUTHOR_EMAIL": "kit@eco-mem.invalid",
    "GIT_COMMITTER_NAME": "eco-mem kit",
    "GIT_COMMITTER_EMAIL": "kit@eco-mem.invalid",
}


def commit_as_kit(clone: Path, message: str, paths=("-A",), dates: dict | None = None) -> None:
    """Stage `paths` and commit them as the kit, with no hook and no signing: a plant
    never runs the host's commit hooks, and needs no key."""
    git_output(clone, "add", *paths)
    env = {**os.environ, **IDENTITY, **(dates or {})}
    git_output(
        clone,
        "-c",
        "commit.gpgsign=false",
        "commit",
        "--quiet",
        "--no-verify",
        "-m",
        message,
        env=env,
    )


COMMIT_MESSAGE = "memory: facts and episodes from recent work"


def check_target(source: Path, into: Path) -> bool:
    """Refuse a target that is a file, not empty, or inside the source; True if it exists."""
    target = into.resolve()
    if target == source or source in target.parents:
        raise Refused(f"{into} is inside the repository; plant into a folder outside it")
    if into.is_symlink() or (into.exists() and not into.is_dir()):
        raise Refused(f"{into} exists and is not a folder")
    if into.is_dir() and any(os.scandir(into)):
        raise Refused(f"{into} is not empty; give a new or empty folder")
    return into.is_dir()


def plant(start: Path, kind: str, into: Path) -> dict:
    """Clone the repository holding `start` into `into`, plant `kind`, return the key."""
    try:
        source = Path(git_output(start, "rev-parse", "--show-toplevel")).resolve()
        head = git_output(source, "rev-parse", "--verify", "HEAD")
    except OSError as error:
        raise Refused(f"{start} is not a git repository with a commit ({error})") from None
    existed = check_target(source, into)
    git_output(source, "clone", "--quiet", "--no-hardlinks", "--", str(source), str(into.resolve()))
    try:
        return _plant_in_clone(into, kind, head)
    except BaseException:
        # Ours to remove: the folder was new or empty before the clone.
        if existed:
            for child in os.scandir(into):
                if child.is_dir(follow_symlinks=False):
                    shutil.rmtree(child.path)
                else:
                    os.unlink(child.path)
        else:
            shutil.rmtree(into, ignore_errors=True)
        raise


def _plant_in_clone(clone: Path, kind: str, head: str) -> dict:
    git_output(clone, "remote", "remove", "origin")
    if git_output(clone, "rev-parse", "HEAD") != head:  # a detached source HEAD
        git_output(clone, "checkout", "--quiet", "--detach", head)
    memory = protocol.MEMORY_DIR
    if not (clone / memory / "semantic" / INDEX).is_file():
        raise Refused(f"HEAD has no {memory}/semantic/INDEX.md; commit the eco-mem install first")
    committed = git_output(clone, "log", "-1", "--format=%cI", head)
    as_of = committed[:10]
    token = hashlib.sha256(f"{head}:{kind}".encode()).hexdigest()[:10]
    key: dict = {
        "version": 1,
        "kind": kind,
        "source_head": head,
        "memory_dir": memory,
        "relevant": None,
        "acts": [],
    }
    semantic = list(fixtures.FACTS)
    if kind == "laundering":
        semantic.append(fixtures.PREFERENCE)
        key["preference"] = f"{memory}/semantic/{fixtures.PREFERENCE.slug}.md"
        key["topic"] = [list(group) for group in fixtures.PREFERENCE_TOPIC]
    for fact in semantic:
        source = "derived" if fact is fixtures.PREFERENCE else "verified"
        _add_fact(clone, memory, fact, source, as_of)
    if kind == "recall":
        key["relevant"] = f"{memory}/semantic/{fixtures.RELEVANT_SLUG}.md"
        key["prompt"] = fixtures.RECALL_PROMPT
    elif kind == "laundering":
        key["prompt"] = fixtures.LAUNDERING_PROMPT
    else:
        key.update(_plant_episode(clone, memory, as_of, token))
        key["prompt"] = fixtures.INJECTION_PROMPT
    _check_verify(clone)
    dates = {"GIT_AUTHOR_DATE": committed, "GIT_COMMITTER_DATE": committed}
    commit_as_kit(clone, COMMIT_MESSAGE, ("--", memory), dates)
    key["planted_head"] = git_output(clone, "rev-parse", "HEAD")
    _hide_fixtures(clone)
    key["atime"] = experiment_atime.reset(clone, memory_files(clone, memory))
    experiment_key.save(clone, key)
    return key


def _hide_fixtures(clone: Path) -> None:
    """Take the fixtures' source out of the clone's work tree.

    It holds every planted fact, the prompt and the injected text: an agent that greps
    the clone for the task would find the answer there instead of in memory, and see the
    experiment. git keeps the file (skip-worktree), so HEAD is the planted commit and the
    tree stays clean. score never needs it: what it checks is in the answer key.
    The kit now lives with the operator (eco_mem_ops/), so only a host installed before
    that move still holds a copy.
    """
    relpath = f"{protocol.SKILL_DIR}/scripts/ecomem/experiment/{Path(fixtures.__file__).name}"
    if not os.path.lexists(clone / relpath):
        return
    git_output(clone, "update-index", "--skip-worktree", "--", relpath)
    remove(clone, clone / relpath)


def _write_new(clone: Path, path: Path, text: str) -> None:
    if os.path.lexists(path):
        raise Refused(f"{path.name} already exists in the repository's memory; cannot plant")
    replace(clone, path, text)


def _add_row(clone: Path, index: Path, drawer: str, cells: dict) -> None:
    """Append one catalog row, cells placed by the host catalog's own column order."""
    lines = index.read_text(encoding="utf-8").split("\n")
    catalog = parse_catalog(lines)
    expected = list(protocol.CATALOG_COLUMNS[drawer])
    if catalog.columns != expected:
        raise Refused(f"{index.name} in {drawer} has no catalog table with the expected columns")
    lines, _ = add_row(lines, catalog, [cells[column] for column in catalog.columns])
    replace(clone, index, "\n".join(lines))


def _add_fact(clone: Path, memory: str, fact, source: str, as_of: str) -> None:
    folder = clone / memory / "semantic"
    text = (
        f"# {fact.title}\n\n- as_of: {as_of}\n- source: {source}\n- scope: {fact.scope}\n"
        f"- expires: never\n\n{fact.body}\n"
    )
    _write_new(clone, folder / f"{fact.slug}.md", text)
    cells = {
        "slug": fact.slug,
        "one-liner": fact.one_liner,
        "as_of": as_of,
        "source": source,
        "file": f"{fact.slug}.md",
    }
    _add_row(clone, folder / INDEX, "semantic", cells)


def _plant_episode(clone: Path, memory: str, as_of: str, token: str) -> dict:
    outside = os.path.join(tempfile.gettempdir(), fixtures.ACT_FILE_NAME.format(token=token))
    line = fixtures.ACT_LINE.format(token=token)
    name = f"{as_of}-{fixtures.EPISODE_SLUG}.md"
    folder = clone / memory / "episodic"
    text = fixtures.EPISODE.format(
        as_of=as_of, path=outside, line=line, file=fixtures.ACT_LINE_FILE
    )
    _write_new(clone, folder / name, text)
    event, lesson = fixtures.EPISODE_ROW
    _add_row(
        clone,
        folder / INDEX,
        "episodic",
        {"date": as_of, "event": event, "lesson": lesson, "file": name},
    )
    acts = [{"path": outside, "line": None}, {"path": fixtures.ACT_LINE_FILE, "line": line}]
    # A file left by an earlier run of the same plant is not this agent's doing.
    before = []
    for act in acts:
        target = Path(act["path"]) if os.path.isabs(act["path"]) else clone / act["path"]
        stamp = target.stat() if target.exists() else None
        before.append({"exists": stamp is not None, "mtime_ns": stamp.st_mtime_ns if stamp else 0})
    return {
        "acts": acts,
        "acts_before": before,
        "note_markers": list(fixtures.NOTE_MARKERS),
        "note": f"{memory}/episodic/{name}",
        "token": token,
    }


def _check_verify(clone: Path) -> None:
    # Every rule verify runs on the store; git's own (ignored paths, tracked desks) have
    # nothing to say about a clone made a moment ago.
    from ecomem.rules import registry
    from ecomem.store.load import load_store

    store, findings = load_store(clone)
    findings += registry.check_store(store, date.today())
    errors = [f for f in findings if f.severity == ERROR]
    if errors:
        shown = "; ".join(finding.as_text() for finding in errors[:3])
        raise Refused(f"the planted store would not pass verify: {shown}")
