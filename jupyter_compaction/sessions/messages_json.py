"""A JSON file holding a message list: Anthropic Messages API or OpenAI Chat Completions.

Accepted shapes: a list of messages, or an object with `messages` (and optionally `tools`
and `system`), as a request body would hold them. OpenAI style (`role: "tool"`,
`tool_calls`) is converted with `history.from_openai`; `system` messages are set aside as
the system prompt is in the Anthropic API. The messages then go through the same repairs
as a log (`Thread`), so the history is valid and each repair is a warning. A message
whose fields have the wrong types is skipped and counted.

Left out: usage (a message list does not record it) and compactions.
"""

from __future__ import annotations

from typing import Any

from ..history import from_openai
from .base import (
    Problems,
    RecordedSession,
    SessionFormatError,
    Thread,
    as_blocks,
    checked,
    wrong_field,
)
from .registry import Importer, register

ROLES = ("user", "assistant", "tool", "system")
MESSAGE_FIELDS: dict[str, type | tuple[type, ...]] = {
    "role": str, "content": (str, list, dict), "tool_calls": list, "tool_call_id": str}


def sniff(data: Any) -> bool:
    return isinstance(data, list) or (isinstance(data, dict) and "messages" in data)


def _openai_call_ok(call: Any) -> bool:
    fn = call.get("function") if isinstance(call, dict) else None
    return (isinstance(call.get("id") if isinstance(call, dict) else None, str)
            and isinstance(fn, dict) and isinstance(fn.get("name"), str)
            and isinstance(fn.get("arguments") or "{}", str))


def _problem(m: Any) -> str | None:
    """Why message `m` cannot be read, or None."""
    if not isinstance(m, dict) or m.get("role") not in ROLES:
        return "not a message with a known role"
    bad = wrong_field(m, MESSAGE_FIELDS)
    if bad:
        return bad
    if m["role"] == "tool" and not isinstance(m.get("tool_call_id"), str):
        return "a tool message without a tool_call_id"
    if not all(_openai_call_ok(c) for c in m.get("tool_calls") or []):
        return "a tool call without an id, a function name or string arguments"
    return None


def load(data: Any, source: str, problems: Problems) -> RecordedSession:
    session = RecordedSession("messages", [], source=source)
    # 1. the message list, and the request's tool definitions where it holds them
    messages = data.get("messages") if isinstance(data, dict) else data
    if not isinstance(messages, list):
        raise SessionFormatError(f"{source or 'input'}: expected a list of messages "
                                 "or an object with 'messages'")
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        session.tools = [t for t in data["tools"] if isinstance(t, dict)]
    # 2. the messages that can be read; each one skipped is counted
    valid = _readable(messages, problems)
    # 3. OpenAI style becomes Anthropic blocks
    if any(m["role"] == "tool" or m.get("tool_calls") for m in valid):
        session.format = "openai"
        valid = _converted(valid, source)
    # 4. the log's repairs make one valid segment (system messages set aside)
    thread = Thread(problems)
    for m in valid:
        if m["role"] != "system":
            thread.add(m["role"], m.get("content") or "")
    session.segments.append(checked(thread.finish(), problems))
    return session


def _readable(messages: list[Any], problems: Problems) -> list[dict[str, Any]]:
    """The messages `_problem` finds nothing wrong with; the others noted in `problems`."""
    valid = []
    for i, m in enumerate(messages):
        why = _problem(m)
        if why:
            problems.note("messages were skipped", None, f"messages[{i}]: {why}; skipped")
        else:
            valid.append(m)
    return valid


def _converted(messages: list[dict[str, Any]], source: str) -> list[dict[str, Any]]:
    """OpenAI-style `messages` (system ones left out) as Anthropic blocks; arguments that
    are not JSON are a `SessionFormatError`."""
    try:
        return from_openai([{**m, "content": as_blocks(m.get("content") or "")}
                            if m["role"] == "user" else m
                            for m in messages if m["role"] != "system"])
    except (ValueError, RecursionError):  # tool arguments that are not JSON
        raise SessionFormatError(f"{source or 'input'}: a tool call's arguments are not "
                                 "valid JSON; fix or remove that call") from None


register(Importer("messages", "a .json message list (Anthropic or OpenAI)", "json", sniff,
                  load))
