"""Message shapes, the rules a valid history obeys, turns, and the OpenAI-style bridge.

The canonical format is the Anthropic Messages API: a list of `{"role", "content"}` dicts
where `content` is a string or a list of `text`, `tool_use` and `tool_result` blocks.
`validate()` enforces the rules the real API enforces, so every strategy can be checked
against them:

1. the first message comes from `user`, and roles alternate;
2. every `tool_use` id is answered by a `tool_result` in the very next (user) message,
   and those results come first in it;
3. a `tool_result` answers a `tool_use` of the message right before it;
4. tool-use ids are unique.

Because results always sit in the message right after their call, a history is safe to
cut in front of any assistant message: that is what `cut_points()` returns.

Left out: images, documents, thinking blocks and server tools; system prompts live
outside the message list, as in the API.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

Message = dict[str, Any]
Block = dict[str, Any]

ROLES = ("user", "assistant")
BLOCK_TYPES = {"user": {"text", "tool_result"}, "assistant": {"text", "tool_use"}}


class InvalidHistory(ValueError):
    """A history breaks one of the API's rules; `.index` is the message, `.rule` the rule."""

    def __init__(self, index: int, rule: str, detail: str = ""):
        self.index, self.rule = index, rule
        super().__init__(f"messages[{index}]: {rule}" + (f" ({detail})" if detail else ""))


def blocks(message: Message) -> list[Block]:
    """The message's content as a list of blocks (a string becomes one text block)."""
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def result_text(block: Block) -> str:
    """The text of a `tool_result` block, whether its content is a string or text blocks."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


def block_text(block: Block) -> str:
    """Everything a block says, as plain text (tool inputs as JSON)."""
    kind = block.get("type")
    if kind == "text":
        return block["text"]
    if kind == "tool_use":
        return f"{block['name']} {json.dumps(block.get('input', {}), sort_keys=True)}"
    return result_text(block)


def message_text(message: Message) -> str:
    return "\n".join(block_text(b) for b in blocks(message))


def tool_use_ids(message: Message) -> list[str]:
    return [b["id"] for b in blocks(message) if b.get("type") == "tool_use"]


def tool_result_ids(message: Message) -> list[str]:
    return [b["tool_use_id"] for b in blocks(message) if b.get("type") == "tool_result"]


def _check_shape(i: int, message: Any) -> None:
    if not isinstance(message, dict):
        raise InvalidHistory(i, "a message must be a dict", type(message).__name__)
    if message.get("role") not in ROLES:
        raise InvalidHistory(i, "role must be 'user' or 'assistant'", repr(message.get("role")))
    content = message.get("content")
    if isinstance(content, str):
        return
    if not isinstance(content, list) or not content:
        raise InvalidHistory(i, "content must be a string or a non-empty list of blocks")
    for block in content:
        kind = block.get("type") if isinstance(block, dict) else None
        if not isinstance(kind, str) or kind not in BLOCK_TYPES[message["role"]]:
            raise InvalidHistory(i, f"a {message['role']} message cannot hold a {kind!r} block")
        _check_block(i, block)


def _check_block(i: int, block: Block) -> None:
    kind = block["type"]
    if kind == "text" and not isinstance(block.get("text"), str):
        raise InvalidHistory(i, "a text block needs a string 'text'")
    if kind == "tool_use" and not (
        isinstance(block.get("id"), str) and block["id"]
        and isinstance(block.get("name"), str) and isinstance(block.get("input"), dict)
    ):
        raise InvalidHistory(i, "a tool_use block needs a string 'id', a 'name' and a dict 'input'")
    if kind == "tool_use":
        try:
            json.dumps(block["input"], sort_keys=True)
        except (TypeError, ValueError):
            raise InvalidHistory(i, "a tool_use 'input' must be JSON-serializable") from None
    if kind == "tool_result":
        content = block.get("content", "")
        parts_ok = isinstance(content, list) and all(
            isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
            for p in content
        )
        if not isinstance(block.get("tool_use_id"), str) or not (
            isinstance(content, str) or parts_ok
        ):
            raise InvalidHistory(
                i, "a tool_result needs a 'tool_use_id' and string or text-block content"
            )


def validate(messages: Sequence[Message]) -> None:
    """Raise `InvalidHistory` naming the first message that breaks a rule; else return."""
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise InvalidHistory(0, "a history must be a list of messages")
    seen: set[str] = set()
    for i, message in enumerate(messages):
        _check_shape(i, message)
        expected = ROLES[i % 2]
        if message["role"] != expected:
            rule = "the first message must come from user" if i == 0 else "roles must alternate"
            raise InvalidHistory(i, rule, f"expected {expected}, got {message['role']}")
        results = tool_result_ids(message)
        asked = tool_use_ids(messages[i - 1]) if i else []
        for tid in results:
            if tid not in asked:
                raise InvalidHistory(i, "tool_result without a tool_use in the message before", tid)
        if asked:
            missing = [tid for tid in asked if tid not in results]
            if missing:
                raise InvalidHistory(
                    i, "tool_use not answered by a tool_result in the next message", missing[0]
                )
            kinds = [b["type"] for b in blocks(message)]
            if kinds[: len(results)] != ["tool_result"] * len(results):
                raise InvalidHistory(i, "tool_result blocks must come first in the message")
        for tid in tool_use_ids(message):
            if tid in seen:
                raise InvalidHistory(i, "duplicate tool_use id", tid)
            seen.add(tid)


def cut_points(messages: Sequence[Message]) -> list[int]:
    """Indices where a valid history can be split without orphaning a tool call or result.

    Cutting in front of an assistant message is always safe: its calls are answered in the
    message after it, and the results before it answer the message before that.
    """
    return [i for i in range(1, len(messages)) if messages[i]["role"] == "assistant"]


def turns(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """Group a valid history into `(start, end)` slices: the task, then each assistant
    message with the user message that answers it. Dropping whole groups keeps it valid."""
    starts = [0, *cut_points(messages)]
    return list(zip(starts, [*starts[1:], len(messages)], strict=True))


# --- the OpenAI chat-completions style (`tool_calls`, `role: "tool"`) -------------------------


def from_openai(messages: Sequence[Message]) -> list[Message]:
    """Convert OpenAI-style messages (`tool_calls`, `role: "tool"`) to Anthropic blocks.

    Consecutive `tool` messages become the `tool_result` blocks of one user message.
    """
    out: list[Message] = []
    for m in messages:
        role = m["role"]
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": m["tool_call_id"],
                     "content": m.get("content") or ""}
            if out and out[-1]["role"] == "user" and tool_result_ids(out[-1]):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        elif role == "assistant" and m.get("tool_calls"):
            text = m.get("content")
            content: list[Block] = [{"type": "text", "text": text}] if text else []
            for call in m["tool_calls"]:
                fn = call["function"]
                content.append({"type": "tool_use", "id": call["id"], "name": fn["name"],
                                "input": json.loads(fn.get("arguments") or "{}")})
            out.append({"role": "assistant", "content": content})
        elif role == "user" and out and out[-1]["role"] == "user":
            out[-1]["content"].append({"type": "text", "text": m.get("content") or ""})
        else:
            out.append({"role": role, "content": m.get("content") or ""})
    return out


def to_openai(messages: Sequence[Message]) -> list[Message]:
    """Convert Anthropic-style messages to OpenAI style; `from_openai` inverts it."""
    out: list[Message] = []
    for m in messages:
        if isinstance(m["content"], str):
            out.append({"role": m["role"], "content": m["content"]})
            continue
        texts = [b["text"] for b in m["content"] if b["type"] == "text"]
        calls = [b for b in m["content"] if b["type"] == "tool_use"]
        for b in m["content"]:
            if b["type"] == "tool_result":
                out.append({"role": "tool", "tool_call_id": b["tool_use_id"],
                            "content": result_text(b)})
        if m["role"] == "assistant" and calls:
            out.append({"role": "assistant", "content": "".join(texts) or None, "tool_calls": [
                {"id": c["id"], "type": "function",
                 "function": {"name": c["name"], "arguments": json.dumps(c["input"])}}
                for c in calls]})
        elif texts or not m["content"]:
            out.append({"role": m["role"], "content": "".join(texts)})
    return out
