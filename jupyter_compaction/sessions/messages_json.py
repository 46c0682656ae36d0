"""A JSON file holding a message list: Anthropic Messages API or OpenAI Chat Completions.

Accepted shapes: a list of messages, or an object with `messages` (and optionally `tools`
and `system`), as a request body would hold them. OpenAI style (`role: "tool"`,
`tool_calls`) is converted with `history.from_openai`; `system` messages are set aside as
the system prompt is in the Anthropic API. The messages then go through the same repairs
as a log (`Thread`), so the history is valid and each repair is a warning.

Left out: usage (a message list does not record it) and compactions.
"""

from __future__ import annotations

import json
from typing import Any

from ..history import from_openai
from .base import Session, Thread


def load(text: str, source: str = "") -> Session:
    session = Session("messages", [], source=source)
    warn = session.warnings.append
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ValueError(f"{source or 'input'}: not valid JSON ({exc}); "
                         "pass a message list or a session log") from None
    messages = data.get("messages") if isinstance(data, dict) else data
    if not isinstance(messages, list):
        raise ValueError(f"{source or 'input'}: expected a list of messages "
                         "or an object with 'messages'")
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        session.tools = data["tools"]
    valid = []
    for i, m in enumerate(messages):
        if isinstance(m, dict) and m.get("role") in ("user", "assistant", "tool", "system"):
            valid.append(m)
        else:
            warn(f"messages[{i}]: not a message with a known role; skipped")
    if any(m["role"] == "tool" or m.get("tool_calls") for m in valid):
        session.format = "openai"
        valid = from_openai([m for m in valid if m["role"] != "system"])
    thread = Thread(warn)
    for m in valid:
        if m["role"] != "system":
            thread.add(m["role"], m.get("content") or "")
    session.segments.append(thread.finish())
    return session


def looks_like(data: Any) -> bool:
    return isinstance(data, list) or (isinstance(data, dict) and "messages" in data)
