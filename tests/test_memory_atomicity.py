"""File and row land together or not at all, and writers queue instead of colliding.

The faults are real: the command is SIGKILLed by the kernel at the exact system call
between its two writes (an audit hook, installed by a wrapper around the unmodified
script, picks the moment), or the kernel refuses the second write because the process
may not write a file that large (RLIMIT_FSIZE). Nothing in the script knows it is tested.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from extensions.protocol import CAPS
from tests.helpers import MEMORY, assert_no_traceback
from tests.memory_helpers import SCRIPT, episode, fact, mem, rows, snapshot, today, verify_findings

SEMANTIC = f"{MEMORY}/semantic"

# Runs eco_mem.pyz unchanged, but SIGKILLs it when it is about to perform `event` on a
# path ending in `suffix`: the moment between the entry file's write and the row's.
# Writes name files inside a folder opened on its own (safe_open), so the path the
# audit hook sees is often the bare file name.
# With event "log" it only reports each rename on stderr, to show what happened when.
KILLER = """
import os, runpy, signal, sys
event, suffix, script = sys.argv[1:4]
def hook(name, args):
    if event == "log" and name == "os.rename":
        print("renamed to", args[1], file=sys.stderr)
    elif name == event and str(args[1] if name == "os.rename" else args[0]).endswith(suffix):
        os.kill(os.getpid(), signal.SIGKILL)
sys.path.insert(0, os.path.dirname(script))
sys.argv = sys.argv[3:]
sys.addaudithook(hook)
runpy.run_path(script, run_name="__main__")
"""


def killed_at(
    host: Path, event: str, suffix: str, *args: str, **options
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-B", "-c", KILLER, event, suffix, str(host / SCRIPT), *args],
        cwd=host,
        capture_output=True,
        text=True,
        timeout=60,
        **options,
    )


NEW_FACT = (
    *("new", "semantic", "--title", "Deploys need a tag", "--source", "verified"),
    *("--scope", "ci", "--expires", "never", "--body", "Checked the workflow."),
)


@pytest.mark.parametrize(
    ("setup", "command", "event", "suffix", "half_state"),
    [
        # new: the entry file is in place, the row is not yet.
        (None, NEW_FACT, "os.rename", "INDEX.md", "drift.file-without-row"),
        # revise: the new text is in place, the row still carries the old one-liner.
        (
            "fact",
            ("revise", "deploys-need-a-tag", "--title", "Deploys need a signed tag"),
            "os.rename",
            "INDEX.md",
            None,
        ),
        # forget: the row is gone, the file not yet.
        (
            "fact",
            ("forget", "deploys-need-a-tag"),
            "os.remove",
            "deploys-need-a-tag.md",
            "drift.file-without-row",
        ),
    ],
    ids=["new", "revise", "forget"],
)
def test_a_kill_between_file_and_row_is_rolled_back_by_the_next_command(
    host: Path, setup: str | None, command: tuple, event: str, suffix: str, half_state: str | None
) -> None:
    if setup:
        assert fact(host, "Deploys need a tag").returncode == 0
    before = snapshot(host)

    result = killed_at(host, event, suffix, *command)

    assert result.returncode == -signal.SIGKILL, result.stderr
    assert snapshot(host) != before  # the kill really landed between the two writes
    found = verify_findings(host)
    # The journal is in the git dir, where no commit reaches; verify names it on memory.
    assert ("structure.interrupted-write", MEMORY) in found
    assert (host / ".git/eco-mem/journal/manifest.json").is_file()
    if half_state:
        assert half_state in {rule for rule, _ in found}

    assert mem(host, "find", "tag").returncode == 0  # any memory command rolls back

    assert snapshot(host) == before
    assert verify_findings(host) == []
    assert mem(host, *command).returncode == 0  # and the store takes the write again


def test_a_kill_leaves_no_stale_lock(host: Path) -> None:
    assert killed_at(host, "os.rename", "INDEX.md", *NEW_FACT).returncode == -signal.SIGKILL

    again = mem(host, *NEW_FACT, env={"ECO_MEM_LOCK_TIMEOUT": "2"})

    assert again.returncode == 0, again.stderr


def limit_file_size(limit: int):
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # get EFBIG instead of dying
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_failed_row_write_takes_the_entry_file_back(host: Path, tmp_path: Path) -> None:
    assert episode(host, "Warm-up").returncode == 0
    # The limit lets an episode file through, but not the INDEX once it grows by a row.
    limit = (host / MEMORY / "episodic/INDEX.md").stat().st_size
    assert (host / MEMORY / f"episodic/{today()}-warm-up.md").stat().st_size < limit // 2
    before = snapshot(host)

    result = killed_at(
        host,
        *("log", "-", "new", "episodic", "--title", "Second", "--context", "c"),
        *("--action", "a", "--result", "r", "--lesson", "l"),
        preexec_fn=limit_file_size(limit),
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")},
    )

    assert result.returncode == 2, result.stdout + result.stderr
    assert_no_traceback(result)
    assert "File too large" in result.stderr
    # The entry file had landed when the row's write failed, and was taken back.
    assert f"renamed to {today()}-second.md" in result.stderr
    assert snapshot(host) == before
    assert not list((host / MEMORY).rglob(".eco-mem-tmp-*"))
    assert verify_findings(host) == []


def test_eight_writers_adding_five_facts_each_all_land(host: Path) -> None:
    writers, facts = 8, 5
    assert writers * facts <= CAPS["catalog_rows"]
    loop = (
        "for n in 1 2 3 4 5; do "
        f'"{sys.executable}" "{SCRIPT}" new semantic --title "Writer $W fact $n"'
        ' --source verified --scope ci --expires never --body "Fact $n of writer $W." || exit 1; '
        "done"
    )
    procs = [
        subprocess.Popen(
            ["sh", "-c", loop],
            cwd=host,
            env={**os.environ, "W": str(w)},
            stderr=subprocess.PIPE,
            text=True,
        )
        for w in range(writers)
    ]
    errors = [proc.communicate(timeout=300)[1] for proc in procs]

    assert [proc.returncode for proc in procs] == [0] * writers, errors
    files = sorted(path.name for path in (host / SEMANTIC).glob("*.md") if path.name != "INDEX.md")
    assert len(files) == writers * facts
    assert len(rows(host, "semantic")) == writers * facts
    assert sorted(row.split(" | ")[-1].rstrip(" |") for row in rows(host, "semantic")) == files
    assert verify_findings(host) == []


def test_a_held_lock_times_out_with_one_line_naming_it(host: Path) -> None:
    import fcntl

    lock = host / ".git/eco-mem/write.lock"
    lock.parent.mkdir(exist_ok=True)
    before = snapshot(host)
    with open(lock, "a+") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        result = mem(host, *NEW_FACT, env={"ECO_MEM_LOCK_TIMEOUT": "1"})

    assert result.returncode == 2
    assert_no_traceback(result)
    assert len(result.stderr.splitlines()) == 1
    assert str(lock) in result.stderr
    assert snapshot(host) == before
    assert mem(host, *NEW_FACT).returncode == 0
