"""Codex CLI rollout logs (`~/.codex/sessions/.../rollout-*.jsonl`) as histories.

Each line is `{"timestamp", "type", "payload"}`. The conversation is in `response_item`
lines: `message` (user or assistant text), `function_call` / `custom_tool_call` /
`local_shell_call` (a tool call, with a `call_id`) and `*_output` (its result). A
`compacted` line is where Codex compacted: its `payload.message` is the summary, which
starts the next segment. `event_msg` lines of type `token_count` carry the usage the API
reported (`info.last_token_usage`). Older rollouts wrote the items without the wrapper.
Every field read is type-checked; a line with a wrong type is skipped and counted.

Left out: `reasoning` items (encrypted; no signature a Claude history could carry), the
system and developer messages (instructions, not conversation) and turn metadata.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .base import (
    Problems,
    RecordedSession,
    ReportedUsage,
    SessionCompaction,
    Thread,
    checked,
    count_of,
    parse_json,
    shown,
    wrong_field,
)
from .registry import Importer, register

CALLS = ("function_call", "custom_tool_call", "local_shell_call")
OUTPUTS = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")
SKIPPED = ("reasoning", "session_meta", "turn_context", "event_msg", "web_search_call")
ITEM_TYPES = ("message", *CALLS, *OUTPUTS)
WRAPPERS = {"session_meta", "response_item", "turn_context"}
ITEM_FIELDS: dict[str, type | tuple[type, ...]] = {
    "type": str, "role": str, "content": list, "name": str, "call_id": str, "id": str,
    "arguments": (str, dict), "input": (str, dict), "output": (str, dict, list),
    "message": str, "info": dict}


def sniff(entries: list[dict[str, Any]]) -> bool:
    kinds = {e.get("type") for e in entries if isinstance(e.get("type"), str)}
    return not any("parentUuid" in e for e in entries) and (
        bool(kinds & WRAPPERS) or bool(kinds & {"function_call", "reasoning"}))


def _call(item: dict[str, Any]) -> dict[str, Any]:
    args = item.get("arguments", item.get("input", item.get("action", {})))
    if isinstance(args, str):
        parsed, why = parse_json(args)
        args = {"input": args} if why else parsed
    return {"type": "tool_use", "id": str(item.get("call_id") or item.get("id") or "call"),
            "name": str(item.get("name") or item["type"]),
            "input": args if isinstance(args, dict) else {"input": args}}


def _output(item: dict[str, Any]) -> dict[str, Any]:
    output = item.get("output", "")
    if isinstance(output, dict):
        output = output.get("content", json.dumps(output))
    return {"type": "tool_result", "tool_use_id": str(item.get("call_id")),
            "content": output if isinstance(output, str) else json.dumps(output)}


def _reported(item: dict[str, Any]) -> dict[str, Any] | None:
    """The last call's usage in a token_count event, if it has one."""
    info = item.get("info")
    last = info.get("last_token_usage") if isinstance(info, dict) else None
    return last if isinstance(last, dict) and "input_tokens" in last else None


def load(lines: Iterable[tuple[int, dict[str, Any]]], source: str,
         problems: Problems) -> RecordedSession:
    session = RecordedSession("codex", [], source=source)
    thread = Thread(problems)
    for number, line in lines:
        kind, item = line.get("type"), line.get("payload", line)
        bad = ("a line without a payload object" if not isinstance(item, dict)
               else wrong_field(item, ITEM_FIELDS))
        if bad:
            problems.skip(number, bad)
        elif kind == "compacted":
            if len(thread):
                session.segments.append(checked(thread.finish(), problems))
            thread = Thread(problems)
            summary = str(item.get("message") or "")
            session.compactions.append(
                SessionCompaction(len(session.segments), "auto", None, summary))
            thread.add("user", summary, number)
        elif kind == "event_msg" and item.get("type") == "token_count":
            last = _reported(item)
            if thread.last_assistant is not None and last is not None:
                session.usage.append(ReportedUsage(
                    len(session.segments), thread.last_assistant, count_of(last["input_tokens"]),
                    count_of(last.get("output_tokens")), last))
        elif kind == "response_item" or kind in ITEM_TYPES:
            _item(thread, item, number, problems)
        elif kind not in SKIPPED:
            problems.skip(number, "an unknown entry type")
    if len(thread):
        session.segments.append(checked(thread.finish(), problems))
    return session


def _item(thread: Thread, item: dict[str, Any], number: int, problems: Problems) -> None:
    kind = item.get("type")
    if kind == "message":
        role = item.get("role")
        texts = [p["text"] for p in item.get("content") or []
                 if isinstance(p, dict) and isinstance(p.get("text"), str)]
        if role in ("user", "assistant"):
            thread.add(role, "\n".join(texts), number)
    elif kind in CALLS:
        thread.add("assistant", [_call(item)], number)
    elif kind in OUTPUTS:
        thread.add("user", [_output(item)], number)
    elif kind not in SKIPPED:
        problems.note("items of an unknown type were skipped", number,
                      f"unknown item type {shown(kind)!r}; skipped")


register(Importer("codex", "a Codex .jsonl rollout", "jsonl", sniff, load))
