"""Codex CLI rollout logs (`~/.codex/sessions/.../rollout-*.jsonl`) as histories.

Each line is `{"timestamp", "type", "payload"}`. The conversation is in `response_item`
lines: `message` (user or assistant text), `function_call` / `custom_tool_call` /
`local_shell_call` (a tool call, with a `call_id`) and `*_output` (its result). A
`compacted` line is where Codex compacted: its `payload.message` is the summary, which
starts the next segment. `event_msg` lines of type `token_count` carry the usage the API
reported (`info.last_token_usage`). Older rollouts wrote the items without the wrapper.

Left out: `reasoning` items (encrypted; no signature a Claude history could carry), the
system and developer messages (instructions, not conversation) and turn metadata.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Session, SessionCompaction, Thread, Usage, read_jsonl

CALLS = ("function_call", "custom_tool_call", "local_shell_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")
SKIPPED = ("reasoning", "session_meta", "turn_context", "event_msg", "web_search_call")
ITEM_TYPES = ("message", *CALLS, *OUTPUTS)


def looks_like(entries: list[dict[str, Any]]) -> bool:
    kinds = {e.get("type") for e in entries[:50]}
    return bool(kinds & {"session_meta", "response_item", "turn_context"}) or (
        bool(kinds & {"function_call", "reasoning"}) and "parentUuid" not in entries[0])


def _call(item: dict[str, Any]) -> dict[str, Any]:
    args = item.get("arguments", item.get("input", item.get("action", {})))
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            args = {"input": args}
    return {"type": "tool_use", "id": str(item.get("call_id") or item.get("id")),
            "name": str(item.get("name", item["type"])),
            "input": args if isinstance(args, dict) else {"input": args}}


def _output(item: dict[str, Any]) -> dict[str, Any]:
    output = item.get("output", "")
    if isinstance(output, dict):
        output = output.get("content", json.dumps(output))
    return {"type": "tool_result", "tool_use_id": str(item.get("call_id")),
            "content": output if isinstance(output, str) else json.dumps(output)}


def load(text: str, source: str = "") -> Session:
    session = Session("codex", [], source=source)
    warn = session.warnings.append
    thread = Thread(warn)
    for number, line in read_jsonl(text, warn):
        kind, item = line.get("type"), line.get("payload", line)
        if not isinstance(item, dict):
            warn(f"line {number}: a {kind} line without a payload object; skipped")
            continue
        if kind == "compacted":
            if thread.messages:
                session.segments.append(thread.finish())
            thread = Thread(warn)
            summary = str(item.get("message", ""))
            session.compactions.append(
                SessionCompaction(len(session.segments), "auto", None, summary))
            thread.add("user", summary)
        elif kind == "event_msg" and item.get("type") == "token_count":
            last = (item.get("info") or {}).get("last_token_usage") or {}
            replies = [i for i, m in enumerate(thread.messages) if m["role"] == "assistant"]
            if replies and "input_tokens" in last:
                session.usage.append(Usage(len(session.segments), replies[-1],
                                           int(last["input_tokens"]),
                                           int(last.get("output_tokens") or 0), last))
        elif kind == "response_item" or kind in ITEM_TYPES:
            _item(thread, item, number, warn)
        elif kind not in SKIPPED:
            warn(f"line {number}: unknown entry type {kind!r}; skipped")
    if thread.messages:
        session.segments.append(thread.finish())
    return session


def _item(thread: Thread, item: dict[str, Any], number: int, warn) -> None:
    kind = item.get("type")
    if kind == "message":
        role = item.get("role")
        texts = [p.get("text", "") for p in item.get("content") or [] if isinstance(p, dict)]
        if role in ("user", "assistant"):
            thread.add(role, "\n".join(texts))
    elif kind in CALLS:
        thread.add("assistant", [_call(item)])
    elif kind in OUTPUTS:
        thread.add("user", [_output(item)])
    elif kind not in SKIPPED:
        warn(f"line {number}: unknown item type {kind!r}; skipped")
