"""Chat logs pasted into memory: keep the conclusion, not the conversation.

A transcript is a back-and-forth: a human-side turn, an assistant-side turn, and the human
again (or the other way round). One tagged line such as "User: prefers tabs" is a fact, and a
glossary that lists each role once is documentation; neither is a conversation. Messages in
chat-API shape (`{"role": "user", "content": ...}`) count when a reply is among them,
because an example request that only sends system and user messages is a recipe, not a log.
"""

from __future__ import annotations

import re

from ..findings import ERROR, Finding
from ..lazy_re import lazy
from ..text.normalise import judged_lowered

RULE = "transcript.chat-log"

_HUMAN = {"user", "human", "customer", "me", "you", "q"}
_ASSISTANT_NAMES = r"assistant|ai|bot|claude|chatgpt|gpt(?:-?[0-9][\w.-]*)?|gemini|copilot|model"
_ROLES = rf"user|human|customer|me|{_ASSISTANT_NAMES}|system|tool|q|a"

# A turn line: optional quote, list marker, timestamp and emphasis, then a role, maybe a
# time or "said" (ChatGPT's export: `You said:`, `ChatGPT said:`), and a colon
# (`> **User:**`, `- Assistant:`, `**Claude**:`, `User (10:32):`, `[10:32] Me:`), or a
# heading that is only the role (`## Human`).
_TURN = lazy(
    r"^[ \t]*(?:>[ \t]*)*(?:[-*+][ \t]+)?(?:\[[0-9:apm. ]{3,12}\][ \t]*)?(?:\*\*|__|\*|_)?"
    rf"(?:(?P<role>{_ROLES})|(?P<said>you|{_ASSISTANT_NAMES})[ \t]+(?:said|asked|wrote|replied))"
    r"(?:[ \t]*[(\[][0-9:apm. ]{3,12}[)\]])?[ \t]*(?:\*\*|__|\*|_)?[ \t]*:"
    rf"|^[ \t]*#{{1,6}}[ \t]+(?P<heading>{_ROLES})[ \t]*:?[ \t]*$",
    re.MULTILINE,
)
_JSON_ROLE = lazy(rf"[\"']role[\"'][ \t]*:[ \t]*[\"'](?P<role>{_ROLES}|function|developer)[\"']")
# A conversation needs both sides, so an entry without a word for each cannot be one.
_HUMAN_HINTS = ("user", "human", "customer", "me", "you", "q:")
_ASSISTANT_HINTS = ("assistant", "ai", "bot", "claude", "gpt", "gemini", "copilot", "model", "a:")
_TURNS_NEEDED = 3  # human, assistant, human: the shortest exchange that is a conversation
# Q:/A: is also how a FAQ is written: three questions answered make it a conversation.
_QA_TURNS_NEEDED = 5
_JSON_MESSAGES_NEEDED = 2


def scan(path: str, lines: list[str]) -> list[Finding]:
    # Patterns are lowercase and run on lowercased text: faster than IGNORECASE, and
    # str.lower keeps every newline, so line numbers still count right.
    text = judged_lowered(lines)  # text/normalise.py
    if not (
        any(hint in text for hint in _HUMAN_HINTS)
        and any(hint in text for hint in _ASSISTANT_HINTS)
    ):
        return []
    starts = [
        start for start in (_first_exchange(text), _first_json_log(text)) if start is not None
    ]
    if not starts:
        return []
    line = text.count("\n", 0, min(starts)) + 1
    message = (
        "looks like a chat transcript; keep what was decided as a fact or an episode "
        "summary, not the conversation"
    )
    return [Finding(path, line, RULE, ERROR, message)]


def _side(role: str) -> str | None:
    """Which side of a conversation a role speaks for; system and tool speak for neither."""
    if role in _HUMAN:
        return "human"
    if role in ("system", "tool", "function", "developer"):
        return None
    return "assistant"


def _first_exchange(text: str) -> int | None:
    """Offset of the first turn once the speaking side has changed twice."""
    first, sides, qa = None, [], False
    for match in _TURN.finditer(text):
        role = match.group("role") or match.group("heading") or match.group("said")
        if role == "you" and not match.group("said"):
            continue  # "You: ..." alone is how instructions talk; "You said:" is a turn
        side = _side(role)
        if side is None:
            continue
        qa = qa or role in ("q", "a")
        if first is None:
            first = match.start()
        if not sides or sides[-1] != side:
            sides.append(side)
            if len(sides) >= (_QA_TURNS_NEEDED if qa else _TURNS_NEEDED):
                return first
    return None


def _first_json_log(text: str) -> int | None:
    if "role" not in text:
        return None
    matches = list(_JSON_ROLE.finditer(text))
    has_reply = any(_side(m.group("role")) == "assistant" for m in matches)
    if len(matches) >= _JSON_MESSAGES_NEEDED and has_reply:
        return matches[0].start()
    return None
