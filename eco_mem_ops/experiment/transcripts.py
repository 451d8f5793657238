"""Read what an agent did from its own record of the session.

Three formats, told apart by their records:

- Claude Code: `~/.claude/projects/<slug>/<session>.jsonl`. Records of type `assistant`
  carry `message.content` blocks; a `tool_use` block names the tool and its `input`
  (Read: `file_path`; Bash: `command`; Grep: `path`, `glob`, `type`; Glob and LS list).
  Every record carries the session's `cwd`.
- Codex: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`. `response_item` records wrap a
  `payload`: `function_call` (arguments: a JSON string with `command`, an argv list such as
  ["bash", "-lc", "cat x"] or a string, and `workdir`), `local_shell_call` (`action.command`,
  `action.working_directory`) and `message`; `session_meta` holds the `cwd`. Older
  rollouts hold the payloads without the wrapper. The stream `codex exec --json` prints
  (`item.completed` with `command_execution` and `agent_message` items) is read too.
- A plain list of paths, one per line (`#` starts a comment).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from .shell import Access, accesses, inner_script


class UnknownFormat(ValueError):
    """The file is JSON lines, but neither Claude Code's nor Codex's."""


class Trace:
    def __init__(self, fmt: str) -> None:
        self.format = fmt
        self.root: str | None = None  # the directory the session ran in
        self.accesses: list[Access] = []
        self.commands: list[str] = []  # shell text and tool calls, for evidence
        self.final_message: str | None = None


CODEX_RECORDS = {"session_meta", "response_item", "turn_context", "event_msg", "compacted"}
CODEX_PAYLOADS = {"message", "function_call", "local_shell_call", "reasoning", "custom_tool_call"}


def read_trace(path: Path) -> Trace:
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = [line for line in text.splitlines() if line.strip()]
    if not any(line.lstrip().startswith("{") for line in lines):
        return _path_list(lines)
    records = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a torn last line while the agent was still writing
        if isinstance(record, dict):
            records.append(record)
    types = {str(record.get("type", "")) for record in records}
    if types & CODEX_RECORDS or types & CODEX_PAYLOADS:
        return _codex(records)
    if any(kind.startswith(("item.", "thread.", "turn.")) for kind in types):
        return _codex_exec(records)
    if types & {"user", "assistant"}:
        return _claude(records)
    raise UnknownFormat(f"{path}: JSON lines, but not a Claude Code or Codex session")


def _path_list(lines: list[str]) -> Trace:
    trace = Trace("path list")
    for line in lines:
        entry = line.strip()
        if entry and not entry.startswith("#"):
            trace.accesses.append(Access("read", entry, None, True))
    return trace


def _claude(records: list[dict]) -> Trace:
    trace = Trace("Claude Code")
    texts: dict[str, list[str]] = {}
    last_text_id = None
    searches: dict[str, str | None] = {}  # Grep calls by tool_use id: their results name files
    for number, record in enumerate(records):
        cwd = record.get("cwd")
        trace.root = trace.root or cwd
        message = record.get("message")
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        message_id = str(message.get("id") or number)
        for block in content if isinstance(content, list) else ():
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if record.get("type") == "user":
                if kind == "tool_result" and block.get("tool_use_id") in searches:
                    _grep_result(trace, block.get("content"), searches[block["tool_use_id"]])
                continue
            if kind == "text" and str(block.get("text", "")).strip():
                texts.setdefault(message_id, []).append(str(block["text"]))
                last_text_id = message_id
            elif kind == "tool_use":
                name, given = str(block.get("name", "")), block.get("input") or {}
                _claude_tool(trace, name, given, cwd)
                if name == "Grep":
                    searches[str(block.get("id"))] = cwd
    if last_text_id is not None:
        trace.final_message = "\n".join(texts[last_text_id])
    return trace


def _claude_tool(trace: Trace, name: str, given: dict, cwd: str | None) -> None:
    trace.commands.append(f"{name} {json.dumps(given, ensure_ascii=False)}")
    if name in ("Read", "NotebookRead", "Edit", "MultiEdit", "NotebookEdit"):
        path = given.get("file_path") or given.get("notebook_path")
        if path:
            trace.accesses.append(Access("read", str(path), cwd, True))
    elif name == "Bash" and given.get("command"):
        trace.accesses.extend(accesses(str(given["command"]), cwd))
    elif name == "Grep":
        # Grep is ripgrep with its defaults: hidden folders such as .agents/ are skipped
        # unless `path` points inside one (anthropics/claude-code#16936). Files its
        # results name are counted separately, whatever the version does.
        args = ["-e", "x", str(given.get("path") or ".")]
        if given.get("glob"):
            args[:0] = ["-g", str(given["glob"])]
        if given.get("type"):
            args[:0] = ["-t", str(given["type"])]
        trace.accesses.extend(accesses("rg " + " ".join(shlex.quote(a) for a in args), cwd))
    elif name in ("Glob", "LS"):
        trace.accesses.append(Access("list", str(given.get("path") or "."), cwd, True))


def _grep_result(trace: Trace, content, cwd: str | None) -> None:
    """Files a Grep result names (`path` or `path:line:text` lines) were read by it."""
    text = content if isinstance(content, str) else _text(content)
    for line in text.splitlines():
        path = line.split(":", 1)[0].strip()
        if path.endswith(".md"):
            trace.accesses.append(Access("read", path, cwd, True))


def _codex(records: list[dict]) -> Trace:
    trace = Trace("Codex")
    cwd = None
    for record in records:
        kind = record.get("type")
        payload = record.get("payload") if kind in CODEX_RECORDS else record
        if not isinstance(payload, dict):
            continue
        if kind in ("session_meta", "turn_context") and payload.get("cwd"):
            cwd = str(payload["cwd"])
            trace.root = trace.root or cwd
            continue
        if kind == "event_msg":
            if payload.get("type") == "agent_message" and payload.get("message"):
                trace.final_message = str(payload["message"])
            continue
        item = payload.get("type")
        if item == "function_call":
            arguments = payload.get("arguments")
            try:
                given = json.loads(arguments) if isinstance(arguments, str) else arguments
            except ValueError:
                given = {"command": arguments}
            if isinstance(given, dict):
                command = given.get("command") or given.get("cmd")
                if command:
                    _shell(trace, command, given.get("workdir") or cwd)
        elif item == "local_shell_call":
            action = payload.get("action") or {}
            if action.get("command"):
                _shell(trace, action["command"], action.get("working_directory") or cwd)
        elif item == "message" and payload.get("role") == "assistant":
            text = _text(payload.get("content"))
            if text.strip():
                trace.final_message = text
    return trace


def _codex_exec(records: list[dict]) -> Trace:
    trace = Trace("Codex exec --json")
    for record in records:
        item = record.get("item")
        if record.get("type") != "item.completed" or not isinstance(item, dict):
            continue
        if item.get("type") == "command_execution" and item.get("command"):
            try:
                argv = shlex.split(str(item["command"]))
            except ValueError:
                argv = str(item["command"]).split()
            _shell(trace, argv, None)
        elif item.get("type") == "agent_message" and item.get("text"):
            trace.final_message = str(item["text"])
    return trace


def _shell(trace: Trace, command, cwd) -> None:
    script = inner_script(command)
    trace.commands.append(script)
    trace.accesses.extend(accesses(script, str(cwd) if cwd else None))


def _text(content) -> str:
    if isinstance(content, str):
        return content
    parts = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") in ("output_text", "text"):
            parts.append(str(block.get("text", "")))
    return "\n".join(parts)
