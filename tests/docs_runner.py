"""Run the shell examples of a Markdown page, as a reader would type them.

A page's fenced shell blocks (sh, bash, shell, console) run in one bash
process, in page order, so a walkthrough builds on itself: a function, a
variable or a `cd` from one block holds in the next. Each block runs under
`set -e -o pipefail`, and a block whose last command fails fails too (bash's
`set -e` lets `false && x` through); the failure names the page's line of the
block. A block the line before marks `<!-- not run: REASON -->` is skipped.

Why not an existing runner: pytest-codeblocks runs every block in a shell of
its own (no state carries from one block to the next), cram and prysk want a
`$ ` prompt and the expected output under each command, and phmdoctest and
pytest-markdown-docs run Python blocks only.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

SHELL_LANGUAGES = frozenset({"sh", "bash", "shell", "console"})
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(?P<reason>.*?)\s*-->\s*$")
# The first line of bash's report for a failed block (read back by the test).
FAILED = "docs-runner: block at line"


@dataclass(frozen=True)
class Block:
    """One fenced block: the page line of its opening fence, its language and text."""

    line: int
    language: str
    text: str
    not_run: str | None  # the reason, when the line before the fence marks it
    end: int  # the line of the closing fence (or the page's last line)


def blocks(page: str) -> list[Block]:
    """Every fenced block of a Markdown page, in order."""
    found: list[Block] = []
    lines = page.splitlines()
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        words = opening["info"].strip().split()
        language = words[0].lower() if words else ""
        marker = NOT_RUN.match(lines[index - 1]) if index else None
        body: list[str] = []
        end = index + 1
        while end < len(lines):
            stripped = lines[end].strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                break
            line = lines[end]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            end += 1
        reason = marker["reason"] if marker else None
        found.append(Block(index + 1, language, "\n".join(body) + "\n", reason, end + 1))
        index = end + 1
    return found


def stray_markers(page: str) -> list[int]:
    """Lines holding a `not run` marker that is not right above a shell block.

    A marker shown inside a fenced block (as an example of the syntax) is text.
    """
    found = blocks(page)
    marked = {block.line - 1 for block in found if block.language in SHELL_LANGUAGES}
    inside = {n for block in found for n in range(block.line, block.end + 1)}
    return [
        number
        for number, line in enumerate(page.splitlines(), start=1)
        if NOT_RUN.match(line) and number not in marked and number not in inside
    ]


def commands(block: Block) -> str:
    """The shell text of a block: a console block keeps only its `$ ` lines."""
    if block.language != "console":
        return block.text
    return "".join(line[2:] + "\n" for line in block.text.splitlines() if line.startswith("$ "))


def session_script(page_name: str, page: str) -> tuple[str, list[Block]]:
    """One bash script for the page's runnable blocks, and those blocks."""
    runnable = [b for b in blocks(page) if b.language in SHELL_LANGUAGES and b.not_run is None]
    name = shlex.quote(page_name)
    parts = [
        "__docs_block=0",
        # bash runs this trap when `set -e` ends the script, naming the block it was in.
        f"trap '__docs_status=$?; if [ $__docs_status -ne 0 ]; then"
        f' echo "{FAILED} $__docs_block of "{name}" failed (exit $__docs_status)" >&2; fi\' EXIT',
    ]
    for block in runnable:
        parts += [
            f"__docs_block={block.line}",
            f"echo '--- {page_name}:{block.line}' >&2",
            "set -e -o pipefail",
            commands(block).rstrip("\n"),
            # Reached only when `set -e` did not stop the block: its last command decides.
            "__docs_last=$?; set +e +o pipefail",
            "if [ $__docs_last -ne 0 ]; then exit $__docs_last; fi",
        ]
    return "\n".join(parts) + "\n", runnable


@dataclass(frozen=True)
class Outcome:
    status: int
    output: str  # stdout and stderr, interleaved as bash wrote them
    ran: list[Block]

    @property
    def failed_line(self) -> int | None:
        match = re.search(re.escape(FAILED) + r" (\d+) ", self.output)
        return int(match.group(1)) if match else None


def run_page(
    page_name: str, page: str, cwd: Path, env: dict[str, str], timeout: float = 240
) -> Outcome:
    """Run a page's shell blocks in one bash session in `cwd`."""
    script, runnable = session_script(page_name, page)
    script_file = cwd.parent / f".{Path(page_name).name}.docs-session.sh"
    script_file.write_text(script, encoding="utf-8")
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", str(script_file)],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
    return Outcome(done.returncode, done.stdout, runnable)
