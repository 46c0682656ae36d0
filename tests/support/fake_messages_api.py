"""A local stand-in for the Anthropic Messages API, for tests that drive the real SDK.

`FakeMessagesAPI` is a small threaded HTTP server on 127.0.0.1 (an ephemeral port) that
speaks enough of the API for `anthropic.Anthropic(base_url=fake.base_url, ...)`:

- `POST /v1/messages` and `POST /v1/messages/count_tokens`, with the real API's checks on
  the request: an API key (`x-api-key`, or `Authorization: Bearer`, which is what SDK 2.x
  sends) else 401, an `anthropic-version` header, the body's fields and block shapes (extra
  keys are rejected, as the real API does), role order, the `tool_use`/`tool_result`
  pairing and tool definitions for a history holding tool blocks, answered with a 400
  `invalid_request_error` worded like the real one. The checks
  are written here from the API's rules, independently of `jupyter_compaction.history`,
  so they catch the library's bugs instead of sharing them.
- `context_management` (context editing and compaction edits) and the memory tool are
  accepted with the `anthropic-beta` header each needs and checked for shape
  (`check_context_management`). Compaction (`compact_20260112`) is applied as the API
  documents it (`jupyter_compaction.server_compaction.serve`: what precedes a `compaction`
  block is ignored, a summary is made past the trigger, `pause_after_compaction` stops
  the reply, `usage.iterations` bills each step); the other edits are recorded, not
  applied. On-demand compaction (the top-level `compaction` parameter, beta
  `compact-2026-09-04`) answers one signed `compaction` block; every block sent back is
  checked for its signature and place, and the documented 400s carry the SDK's
  `error.details.error_code` (`compaction_signature_invalid`, `..._content_mismatch`,
  `..._block_misplaced`, `..._block_ambiguous`, `..._nothing_to_summarize`, ...).
- Answers come from a `responder` (request JSON -> partial response JSON); `model_responder`
  turns any `jupyter_compaction` `Model` into one.
- Usage is deterministic. Tokens are approximated as characters / 4 of a canonical
  serialization (see `approx_tokens`), and prompt caching is simulated: every prefix that
  ends at a `cache_control` breakpoint is remembered (by hash); a later request that starts
  with a remembered prefix reports it as `cache_read_input_tokens`, the rest up to its last
  breakpoint as `cache_creation_input_tokens`, and what follows as `input_tokens`.
- Faults can be injected (`Fault`): 429 / 529 / 500 / 400 responses, a timeout, a dropped
  connection, a malformed 200 body.
- `context_window=N` gives the model a window of N tokens: a request whose input alone is
  over it is a 400 "prompt is too long"; a reply that would not fit after the input is
  cut where the window ends (its text cut, its tool calls dropped) and stops with
  `stop_reason` "model_context_window_exceeded", as the API answers once a reply fills
  the window.
- `compatible=True` behaves as Ollama, llama.cpp or vLLM do behind `/v1/messages`: usage
  without cache fields, a 400 for any `anthropic-beta` header or `context_management`,
  no `count_tokens` (404), and, at the requests listed in `malformed_at`, tool calls with
  their arguments missing (as small models write them).

Left out: streaming, images and documents (accepted, counted as JSON), thinking, batches,
the 4096-token minimum cacheable prefix (settable with `min_cacheable_tokens`), cache TTLs.
Mid-conversation `system` messages are accepted right after a user message (text only,
with `clear_at` and `output_config`); the roles around them alternate as if they were
not there. Deliberately stricter than the real API: consecutive messages with the same
role are rejected (the API now merges them), which catches broken history surgery early.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import itertools
import json
import re
import socket
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from jupyter_compaction.server_compaction import PAUSED, CompactionRefused, serve
from jupyter_compaction.vocab import WINDOW_EXCEEDED

Responder = Callable[[dict[str, Any]], dict[str, Any]]

FAULT_KINDS = ("429", "529", "500", "400", "timeout", "disconnect", "malformed")

_FAULT_ERRORS: dict[str, tuple[int, str, str]] = {
    "429": (429, "rate_limit_error", "Number of request tokens has exceeded your rate limit."),
    "529": (529, "overloaded_error", "Overloaded"),
    "500": (500, "api_error", "Internal server error"),
    "400": (400, "invalid_request_error", "Injected fault: the request was rejected."),
}

_ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
_TOOL_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
_MESSAGE_KEYS = {
    "model",
    "messages",
    "max_tokens",
    "system",
    "tools",
    "tool_choice",
    "metadata",
    "stop_sequences",
    "stream",
    "temperature",
    "top_p",
    "top_k",
    "thinking",
    "cache_control",
    "service_tier",
    "context_management",
    "compaction",
}
_COUNT_KEYS = {"model", "messages", "system", "tools", "tool_choice", "thinking", "cache_control",
               "context_management", "compaction"}
_BLOCK_KEYS: dict[str, set[str]] = {
    "text": {"type", "text", "cache_control", "citations"},
    "image": {"type", "source", "cache_control"},
    "document": {"type", "source", "title", "context", "citations", "cache_control"},
    "tool_use": {"type", "id", "name", "input", "cache_control"},
    "tool_result": {"type", "tool_use_id", "content", "is_error", "cache_control"},
    "thinking": {"type", "thinking", "signature"},
    "redacted_thinking": {"type", "data"},
    "compaction": {"type", "content", "encrypted_content", "signature", "tool_changes",
                   "cache_control"},
}
_USER_ONLY = {"tool_result"}
_ASSISTANT_ONLY = {"tool_use", "thinking", "redacted_thinking", "compaction"}
_SYSTEM_KEYS = {"clear_at", "output_config"}  # what a mid-conversation system message adds
_TOOL_KEYS = {"type", "name", "description", "input_schema", "cache_control", "strict"}
MAX_CACHE_BREAKPOINTS = 4
TOOLS_REQUIRED = "Requests which include `tool_use` or `tool_result` blocks must define tools."


@dataclass
class Fault:
    """One injected failure. `at`: the 0-based index of the `/v1/messages` request it hits;
    None: the next one. Each fault fires once."""

    kind: str
    at: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; expected one of {FAULT_KINDS}")


# -- validation --------------------------------------------------------------------------


class _Invalid(Exception):
    pass


def _check_cache_control(value: Any, where: str) -> None:
    if not isinstance(value, dict) or value.get("type") != "ephemeral":
        raise _Invalid(f"{where}.cache_control.type: Input should be 'ephemeral'")
    extra = set(value) - {"type", "ttl"}
    if extra:
        raise _Invalid(f"{where}.cache_control.{sorted(extra)[0]}: Extra inputs are not permitted")
    if "ttl" in value and value["ttl"] not in ("5m", "1h"):
        raise _Invalid(f"{where}.cache_control.ttl: Input should be '5m' or '1h'")


def _check_text_block(block: Any, where: str) -> None:
    if not isinstance(block, dict):
        raise _Invalid(f"{where}: Input should be a valid dictionary")
    if block.get("type") != "text":
        raise _Invalid(f"{where}.type: Input should be 'text'")
    extra = set(block) - _BLOCK_KEYS["text"]
    if extra:
        raise _Invalid(f"{where}.{sorted(extra)[0]}: Extra inputs are not permitted")
    if not isinstance(block.get("text"), str):
        raise _Invalid(f"{where}.text: Field required")
    if not block["text"]:
        raise _Invalid(f"{where}.text: text content blocks must be non-empty")
    if "cache_control" in block:
        _check_cache_control(block["cache_control"], where)


def _check_block(block: Any, role: str, where: str) -> None:
    if not isinstance(block, dict):
        raise _Invalid(f"{where}: Input should be a valid dictionary")
    kind = block.get("type")
    if kind not in _BLOCK_KEYS:
        expected = ", ".join(f"'{k}'" for k in _BLOCK_KEYS)
        raise _Invalid(
            f"{where}.type: Input tag '{kind}' found using 'type' does not match any of the "
            f"expected tags: {expected}"
        )
    extra = set(block) - _BLOCK_KEYS[kind]
    if extra:
        raise _Invalid(f"{where}.{sorted(extra)[0]}: Extra inputs are not permitted")
    if role == "assistant" and kind in _USER_ONLY:
        raise _Invalid(f"{where}: `{kind}` blocks can only appear in `user` messages")
    if role == "user" and kind in _ASSISTANT_ONLY:
        raise _Invalid(f"{where}: `{kind}` blocks can only appear in `assistant` messages")
    if role == "system" and kind != "text":
        raise _Invalid(f"{where}: a `system` message holds text blocks only, not `{kind}`")
    if "cache_control" in block:
        _check_cache_control(block["cache_control"], where)
    if kind == "text":
        _check_text_block(block, where)
    elif kind == "tool_use":
        if not isinstance(block.get("id"), str):
            raise _Invalid(f"{where}.id: Field required")
        if not _ID_PATTERN.match(block["id"]):
            raise _Invalid(f"{where}.id: String should match pattern '^[a-zA-Z0-9_-]+$'")
        if not isinstance(block.get("name"), str) or not block["name"]:
            raise _Invalid(f"{where}.name: Field required")
        if not isinstance(block.get("input"), dict):
            raise _Invalid(f"{where}.input: Input should be a valid dictionary")
    elif kind == "compaction" and not (block.get("content") is None or (
            isinstance(block["content"], str) and block["content"])):
        raise _Invalid(f"{where}.content: Input should be a non-empty string or null")
    elif kind == "tool_result":
        if not isinstance(block.get("tool_use_id"), str):
            raise _Invalid(f"{where}.tool_use_id: Field required")
        if not _ID_PATTERN.match(block["tool_use_id"]):
            raise _Invalid(f"{where}.tool_use_id: String should match pattern '^[a-zA-Z0-9_-]+$'")
        if "is_error" in block and not isinstance(block["is_error"], bool):
            raise _Invalid(f"{where}.is_error: Input should be a valid boolean")
        content = block.get("content", "")
        if isinstance(content, list):
            for k, inner in enumerate(content):
                inner_where = f"{where}.content.{k}"
                if isinstance(inner, dict) and inner.get("type") in ("image", "document"):
                    continue
                _check_text_block(inner, inner_where)
        elif not isinstance(content, str):
            raise _Invalid(f"{where}.content: Input should be a valid string or a list of blocks")


def _blocks(content: Any) -> list[Any]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _check_pairing(messages: list[dict[str, Any]], *, compacting: bool = False) -> None:
    """`compacting`: a compaction request, whose unfinished last turn is refused by the
    compaction rules (`compaction_incomplete_turn`) rather than here."""
    seen_ids: set[str] = set()
    for i, message in enumerate(messages):
        blocks = _blocks(message["content"])
        if message["role"] == "assistant":
            ids: list[str] = []
            for j, block in enumerate(blocks):
                if block.get("type") == "tool_use":
                    if block["id"] in seen_ids:
                        raise _Invalid(f"messages.{i}.content.{j}: `tool_use` ids must be unique")
                    seen_ids.add(block["id"])
                    ids.append(block["id"])
            if not ids or (compacting and i == len(messages) - 1):
                continue
            following = messages[i + 1] if i + 1 < len(messages) else None
            answered = set()
            if following is not None and following["role"] == "user":
                answered = {
                    b["tool_use_id"]
                    for b in _blocks(following["content"])
                    if b.get("type") == "tool_result"
                }
            missing = [x for x in ids if x not in answered]
            if missing:
                raise _Invalid(
                    f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {', '.join(missing)}. Each `tool_use` block must have "
                    "a corresponding `tool_result` block in the next message."
                )
        else:
            previous = messages[i - 1] if i > 0 else None
            offered = set()
            if previous is not None and previous["role"] == "assistant":
                offered = {
                    b["id"] for b in _blocks(previous["content"]) if b.get("type") == "tool_use"
                }
            results: set[str] = set()
            for j, block in enumerate(blocks):
                if block.get("type") != "tool_result":
                    continue
                use_id = block["tool_use_id"]
                if use_id not in offered:
                    raise _Invalid(
                        f"messages.{i}.content.{j}: unexpected `tool_use_id` found in "
                        f"`tool_result` blocks: {use_id}. Each `tool_result` block must have a "
                        "corresponding `tool_use` block in the previous message."
                    )
                if use_id in results:
                    raise _Invalid(
                        f"messages.{i}.content.{j}: each `tool_use` id may have only one "
                        f"`tool_result` block, found more for: {use_id}"
                    )
                results.add(use_id)


def _validate(body: Any, count_tokens: bool) -> None:
    if not isinstance(body, dict):
        raise _Invalid("body: Input should be a valid dictionary")
    allowed = _COUNT_KEYS if count_tokens else _MESSAGE_KEYS
    for key in body:
        if key not in allowed:
            raise _Invalid(f"{key}: Extra inputs are not permitted")
    if "model" not in body:
        raise _Invalid("model: Field required")
    if not isinstance(body["model"], str) or not body["model"]:
        raise _Invalid("model: Input should be a valid string")
    if not count_tokens:
        if "max_tokens" not in body:
            raise _Invalid("max_tokens: Field required")
        max_tokens = body["max_tokens"]
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
            raise _Invalid("max_tokens: Input should be a valid integer")
        if max_tokens < 1:
            raise _Invalid("max_tokens: Input should be greater than or equal to 1")
        if body.get("stream"):
            raise _Invalid("stream: the fake Messages API does not stream; send stream=false")
    if "cache_control" in body:
        _check_cache_control(body["cache_control"], "cache_control")

    system = body.get("system")
    if isinstance(system, list):
        for k, block in enumerate(system):
            _check_text_block(block, f"system.{k}")
    elif system is not None and not isinstance(system, str):
        raise _Invalid("system: Input should be a valid string or a list of text blocks")

    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise _Invalid("tools: Input should be a valid list")
        names: set[str] = set()
        for k, tool in enumerate(tools):
            where = f"tools.{k}"
            if not isinstance(tool, dict):
                raise _Invalid(f"{where}: Input should be a valid dictionary")
            if "cache_control" in tool:
                _check_cache_control(tool["cache_control"], where)
            if tool.get("type", "custom") != "custom":
                continue  # a server tool: not checked here
            extra = set(tool) - _TOOL_KEYS
            if extra:
                raise _Invalid(f"{where}.custom.{sorted(extra)[0]}: Extra inputs are not permitted")
            name = tool.get("name")
            if not isinstance(name, str):
                raise _Invalid(f"{where}.custom.name: Field required")
            if not _TOOL_NAME_PATTERN.match(name):
                raise _Invalid(
                    f"{where}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'"
                )
            if not isinstance(tool.get("input_schema"), dict):
                raise _Invalid(f"{where}.custom.input_schema: Field required")
            if name in names:
                raise _Invalid("tools: Tool names must be unique.")
            names.add(name)

    if "messages" not in body:
        raise _Invalid("messages: Field required")
    messages = body["messages"]
    if not isinstance(messages, list):
        raise _Invalid("messages: Input should be a valid list")
    if not messages:
        raise _Invalid("messages: at least one message is required")
    for i, message in enumerate(messages):
        where = f"messages.{i}"
        if not isinstance(message, dict):
            raise _Invalid(f"{where}: Input should be a valid dictionary")
        allowed = {"role", "content"} | (_SYSTEM_KEYS if message.get("role") == "system" else set())
        extra = set(message) - allowed
        if extra:
            raise _Invalid(f"{where}.{sorted(extra)[0]}: Extra inputs are not permitted")
        if message.get("role") not in ("user", "assistant", "system"):
            raise _Invalid(f"{where}.role: Input should be 'user', 'assistant' or 'system'")
        if message["role"] == "system" and (i == 0 or not isinstance(messages[i - 1], dict)
                                            or messages[i - 1].get("role") != "user"):
            raise _Invalid(f"{where}: a system message must immediately follow a user message")
        if message.get("clear_at", "never") not in ("next_user_message", "never"):
            raise _Invalid(f"{where}.clear_at: Input should be 'next_user_message' or 'never'")
        if "content" not in message:
            raise _Invalid(f"{where}.content: Field required")
        content = message["content"]
        if not isinstance(content, str | list):
            raise _Invalid(f"{where}.content: Input should be a valid string or a list of blocks")
        final_assistant = i == len(messages) - 1 and message["role"] == "assistant"
        if not content and not final_assistant:
            raise _Invalid(
                f"{where}: all messages must have non-empty content except for the optional "
                "final assistant message"
            )
        if isinstance(content, list):
            for j, block in enumerate(content):
                _check_block(block, message["role"], f"{where}.content.{j}")

    first = _blocks(messages[0]["content"])[:1]
    on_demand = bool(first) and isinstance(first[0], dict) and first[0].get("type") == "compaction"
    if messages[0]["role"] != "user" and not on_demand:  # an on-demand block comes first
        raise _Invalid('messages: first message must use the "user" role')
    turns = [m for m in messages if m["role"] != "system"]  # system messages sit between
    for previous, message in itertools.pairwise(turns):
        if previous["role"] == message["role"]:
            raise _Invalid(
                'messages: roles must alternate between "user" and "assistant", but found '
                f'multiple "{message["role"]}" roles in a row'
            )
    _check_pairing(messages, compacting="compaction" in body)
    if not tools and any(
        isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result")
        for m in messages for b in _blocks(m["content"])
    ):
        raise _Invalid(TOOLS_REQUIRED)

    breakpoints = _count_cache_controls(body)
    if breakpoints > MAX_CACHE_BREAKPOINTS:
        raise _Invalid(
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. "
            f"Found {breakpoints}."
        )


def _count_cache_controls(body: dict[str, Any]) -> int:
    def count(value: Any) -> int:
        if isinstance(value, dict):
            return int("cache_control" in value) + sum(count(v) for v in value.values())
        if isinstance(value, list):
            return sum(count(v) for v in value)
        return 0

    return count(body.get("system")) + count(body.get("tools")) + count(body.get("messages"))


# Context management (beta): each edit's keys, the `anthropic-beta` value it needs, and the
# smallest compaction trigger the API takes. The memory tool needs the same beta.
_EDIT_KEYS = {
    "clear_tool_uses_20250919": {"type", "trigger", "keep", "clear_at_least", "exclude_tools",
                                 "clear_tool_inputs"},
    "clear_thinking_20251015": {"type", "keep"},
    "compact_20260112": {"type", "trigger", "instructions", "pause_after_compaction"},
}
_EDIT_BETA = {"clear_tool_uses_20250919": "context-management-2025-06-27",
              "clear_thinking_20251015": "context-management-2025-06-27",
              "compact_20260112": "compact-2026-01-12"}
_THRESHOLDS = {"trigger": {"input_tokens", "tool_uses"}, "keep": {"tool_uses"},
               "clear_at_least": {"input_tokens"}}
_THINKING_KEEP = {"thinking_turns"}  # clear_thinking's `keep`: these, or the string "all"
_MEMORY_TOOL, _MIN_COMPACT_TRIGGER = "memory_20250818", 50_000
_ON_DEMAND_BETA = "compact-2026-09-04"


def check_context_management(body: dict[str, Any], betas: str) -> str | None:
    """The 400 message for a bad `context_management`, memory tool or on-demand
    `compaction` parameter (which needs its beta), else None."""
    enabled = {b.strip() for b in betas.split(",")}
    if "compaction" in body and _ON_DEMAND_BETA not in enabled:
        return f"compaction: needs the anthropic-beta header {_ON_DEMAND_BETA}"
    memory = any(isinstance(t, dict) and t.get("type") == _MEMORY_TOOL
                 for t in body.get("tools") or [])
    if memory and "context-management-2025-06-27" not in enabled:
        return "tools: the memory tool needs the context-management-2025-06-27 beta"
    if "context_management" not in body:
        return None
    config = body["context_management"]
    if not isinstance(config, dict) or set(config) - {"edits"}:
        return "context_management: only `edits` is permitted"
    for k, edit in enumerate(config.get("edits") or []):
        where = f"context_management.edits.{k}"
        kind = edit.get("type") if isinstance(edit, dict) else None
        if kind not in _EDIT_KEYS:
            return f"{where}.type: Input tag {kind!r} does not match any of the expected tags"
        if _EDIT_BETA[kind] not in enabled:
            return f"{where}: {kind} needs the anthropic-beta header {_EDIT_BETA[kind]}"
        extra = set(edit) - _EDIT_KEYS[kind]
        if extra:
            return f"{where}.{sorted(extra)[0]}: Extra inputs are not permitted"
        for key, kinds in _THRESHOLDS.items():
            value = edit.get(key)
            if kind == "clear_thinking_20251015" and key == "keep":
                if value == "all":
                    continue
                kinds = _THINKING_KEEP
            if key in edit and not (isinstance(value, dict) and value.get("type") in kinds
                                    and type(value.get("value")) is int and value["value"] >= 0):
                return f"{where}.{key}: expected {{'type': one of {sorted(kinds)}, 'value': int}}"
        if kind == "compact_20260112" and "trigger" in edit and (
                edit["trigger"]["type"] != "input_tokens"
                or edit["trigger"]["value"] < _MIN_COMPACT_TRIGGER):
            return f"{where}.trigger: must be at least {_MIN_COMPACT_TRIGGER} input_tokens"
        names = edit.get("exclude_tools", [])
        if not (isinstance(names, list) and all(isinstance(n, str) for n in names)):
            return f"{where}.exclude_tools: Input should be a valid list of strings"
    return None


def validate_request(body: Any, *, count_tokens: bool = False) -> str | None:
    """The 400 message the fake would answer for `body`, or None when it is valid."""
    try:
        _validate(body, count_tokens)
    except _Invalid as err:
        return str(err)
    return None


# -- token approximation and the prompt cache ----------------------------------------------


def strip_cache_control(value: Any) -> Any:
    """A deep copy of `value` without any `cache_control` keys."""
    if isinstance(value, dict):
        return {k: strip_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [strip_cache_control(v) for v in value]
    return copy.deepcopy(value)


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _segments(body: dict[str, Any]) -> list[tuple[str, bool]]:
    """The request as cacheable units in cache order (tools, system, message blocks), each
    as (canonical text without markers, whether it carries a breakpoint)."""
    segments: list[tuple[str, bool]] = []
    for tool in body.get("tools") or []:
        segments.append((_canon({"tool": strip_cache_control(tool)}), "cache_control" in tool))
    system = body.get("system")
    if isinstance(system, str):  # a string counts like the one text block it stands for
        system = [{"type": "text", "text": system}] if system else []
    if isinstance(system, list):
        for block in system:
            marked = "cache_control" in block
            segments.append((_canon({"system": strip_cache_control(block)}), marked))
    for message in body.get("messages") or []:
        for j, block in enumerate(_blocks(message["content"])):
            unit = {"block": strip_cache_control(block)}
            if j == 0:
                unit["role"] = message["role"]
            marked = isinstance(block, dict) and "cache_control" in block
            segments.append((_canon(unit), marked))
    if segments and "cache_control" in body:  # top-level automatic caching
        segments[-1] = (segments[-1][0], True)
    return segments


def approx_tokens(body: dict[str, Any]) -> int:
    """The fake's token count of a request: characters / 4 of the canonical serialization
    of its tools, system prompt and message blocks, with `cache_control` markers left out
    (so a request counts the same with and without caching). An approximation, but
    deterministic, and equal to input + cache creation + cache read of `/v1/messages`."""
    return max(1, sum(len(text) for text, _ in _segments(body)) // 4)


# -- the server ----------------------------------------------------------------------------


def default_responder(body: dict[str, Any]) -> dict[str, Any]:
    """A fixed short text answer."""
    return {"content": [{"type": "text", "text": "Hello from the fake Messages API."}]}


def model_responder(model: Any) -> Responder:
    """A responder that answers with any `jupyter_compaction` `Model`.

    The model sees the request as the library would have built it: system blocks joined
    into one string, `cache_control` markers removed.
    """

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        system = body.get("system") or ""
        if isinstance(system, list):
            system = "\n\n".join(block["text"] for block in system)
        reply = model.create(
            system=system,
            messages=strip_cache_control(body["messages"]),
            tools=strip_cache_control(body.get("tools") or []),
            max_tokens=body["max_tokens"],
            cache=_count_cache_controls(body) > 0 or "cache_control" in body,
        )
        out: dict[str, Any] = {
            "content": copy.deepcopy(reply.content),
            "stop_reason": reply.stop_reason,
        }
        if reply.usage.output_tokens > 0:
            out["usage"] = {"output_tokens": reply.usage.output_tokens}
        return out

    return respond


def scenario_responder() -> Responder:
    """Answer each request with the simulated model of the bundled scenario whose task opens
    its history (the first scenario when none does): one fake API serves a whole lesson."""
    from jupyter_compaction import scenarios
    from jupyter_compaction.models.simulated import SimulatedModel

    tasks = {name: scenarios.load(name).task[:60] for name in scenarios.names()}
    responders = {name: model_responder(SimulatedModel(name)) for name in tasks}

    def respond(body: dict[str, Any]) -> dict[str, Any]:
        opening = str(body.get("messages", [])[:1])
        name = next((n for n, task in tasks.items() if task in opening), next(iter(tasks)))
        return responders[name](body)

    return respond


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    api: FakeMessagesAPI


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two sends; don't wait
    server_version = "FakeMessagesAPI/1.0"
    timeout = 10  # idle keep-alive connections are dropped after this many seconds
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
        pass  # quiet: no request log on stderr

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        self.server.api._handle(self)

    def do_GET(self) -> None:  # noqa: N802
        self.server.api._handle(self)


class FakeMessagesAPI:
    """The fake API server; use it as a context manager (`with FakeMessagesAPI() as fake:`).

    `requests` records every request: `path`, `method`, `headers` (lower-case names; the
    `x-api-key` and `authorization` values are never kept), `auth` (`"x-api-key"`,
    `"bearer"` or None), `body` (parsed JSON, None if unreadable), `index` (for
    `/v1/messages`: its 0-based number), `fault` (the fault that hit it) and `status` and
    `response` (what was answered); `refusals` lists the ones answered with an error.
    `faults` is the queue of `Fault`s; `fired` lists
    `(index, kind)` for each fault that fired.
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        timeout_sleep: float = 2.0,
        retry_after_ms: int = 10,
        min_cacheable_tokens: int = 0,
        compatible: bool = False,
        malformed_at: tuple[int, ...] = (),
        context_window: int | None = None,
    ) -> None:
        self.responder: Responder = responder or default_responder
        self.context_window = context_window
        self.compatible = compatible
        self.malformed_at = set(malformed_at)
        self.timeout_sleep = timeout_sleep
        self.retry_after_ms = retry_after_ms
        self.min_cacheable_tokens = min_cacheable_tokens
        self.requests: list[dict[str, Any]] = []
        self.faults: list[Fault] = []
        self.fired: list[tuple[int, str]] = []
        self.errors: list[str] = []  # responder exceptions, for debugging failing tests
        self._cache: set[str] = set()
        self._lock = threading.Lock()
        self._respond_lock = threading.Lock()
        self._stop = threading.Event()
        self._message_index = 0
        self._ids = itertools.count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        if self._server is None:
            raise RuntimeError("FakeMessagesAPI is not running; use it in a `with` block")
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeMessagesAPI:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.api = self
        self._server = server
        self._stop.clear()
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._thread = None

    def __enter__(self) -> FakeMessagesAPI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- views --------------------------------------------------------------------------

    @property
    def message_requests(self) -> list[dict[str, Any]]:
        """The recorded `POST /v1/messages` requests."""
        return [r for r in self.requests if r["path"] == "/v1/messages"]

    @property
    def refusals(self) -> list[tuple[str, int, str]]:
        """`(path, status, error message)` of every request answered with an error, in order
        (an injected fault included): what a test compares with the refusals it expects."""
        return [(r["path"], r["status"], str(r["response"]["error"]["message"]))
                for r in self.requests
                if r["status"] is not None and r["status"] >= 400
                and isinstance(r["response"], dict) and "error" in r["response"]]

    def reset_cache(self) -> None:
        self._cache.clear()

    # -- request handling ---------------------------------------------------------------

    def _handle(self, handler: _Handler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        raw = handler.rfile.read(length) if length else b""
        path = handler.path.split("?", 1)[0]
        headers = {
            k.lower(): v
            for k, v in handler.headers.items()
            if k.lower() not in ("x-api-key", "authorization")
        }
        if handler.headers.get("x-api-key"):
            auth = "x-api-key"
        elif (handler.headers.get("authorization") or "").lower().startswith("bearer "):
            auth = "bearer"
        else:
            auth = None
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        record: dict[str, Any] = {
            "path": path,
            "method": handler.command,
            "headers": headers,
            "auth": auth,
            "body": body,
            "index": None,
            "fault": None,
            "status": None,
            "response": None,
        }
        fault = None
        with self._lock:
            self.requests.append(record)
            if path == "/v1/messages" and handler.command == "POST":
                record["index"] = index = self._message_index
                self._message_index += 1
                if auth is not None:
                    fault = self._take_fault(index)
                    if fault is not None:
                        record["fault"] = fault.kind
                        self.fired.append((index, fault.kind))

        def reply(status: int, payload: Any, extra: dict[str, str] | None = None) -> None:
            record["status"], record["response"] = status, payload
            self._send(handler, status, json.dumps(payload).encode(), extra)

        def error(status: int, kind: str, message: str, extra: dict[str, str] | None = None,
                  code: str | None = None):
            reply(status, _error_body(kind, message, code), extra)

        if handler.command != "POST" or path not in ("/v1/messages", "/v1/messages/count_tokens"):
            return error(404, "not_found_error", f"Not found: {handler.command} {path}")
        if auth is None:
            return error(401, "authentication_error", "x-api-key header is required")
        if not handler.headers.get("anthropic-version"):
            return error(400, "invalid_request_error", "anthropic-version: header is required")
        if fault is not None:
            return self._fire(fault, handler, record, error)
        if body is None:
            return error(400, "invalid_request_error", "The request body is not valid JSON.")
        counting = path.endswith("/count_tokens")
        if self.compatible and counting:
            return error(404, "not_found_error", f"Not found: POST {path}")
        if self.compatible and (handler.headers.get("anthropic-beta")
                                or "context_management" in body):
            return error(400, "invalid_request_error",
                         "unknown field: context_management (anthropic-beta is not supported)")
        problem = validate_request(body, count_tokens=counting)
        if problem is None and isinstance(body, dict):
            problem = check_context_management(body, handler.headers.get("anthropic-beta", ""))
        if problem is not None:
            return error(400, "invalid_request_error", problem)
        if counting:
            return reply(200, {"input_tokens": approx_tokens(body)})
        with self._respond_lock:
            try:
                seen, answer, steps = serve(copy.deepcopy(body), self.responder, approx_tokens)
            except CompactionRefused as err:
                return error(400, "invalid_request_error", str(err), code=err.code)
            except Exception as err:  # the responder's bug becomes a 500, and is recorded
                self.errors.append(f"{type(err).__name__}: {err}")
                return error(500, "api_error", f"responder failed: {type(err).__name__}: {err}")
            if self.context_window is not None:
                room = self.context_window - approx_tokens(seen)
                if room <= 0:
                    return error(400, "invalid_request_error", f"prompt is too long: "
                                 f"{approx_tokens(seen)} tokens > {self.context_window} maximum")
                answer = _within(answer, room)
            message = self._billed(self._message(seen, answer), steps,
                                   on_demand="compaction" in body)
            if self.compatible:
                self._as_compatible(message, record["index"])
            return reply(200, message)

    def _take_fault(self, index: int) -> Fault | None:
        for k, fault in enumerate(self.faults):
            if fault.at is None or fault.at == index:
                return self.faults.pop(k)
        return None

    def _fire(self, fault: Fault, handler: _Handler, record: dict[str, Any], error: Any) -> None:
        if fault.kind in _FAULT_ERRORS:
            status, kind, message = _FAULT_ERRORS[fault.kind]
            extra = None
            if fault.kind != "400":
                # The SDK ignores `retry-after: 0` (it needs > 0) and falls back to its
                # backoff (0.5 s and up); `retry-after-ms` keeps the tests fast.
                extra = {"retry-after": "0", "retry-after-ms": str(self.retry_after_ms)}
            return error(status, kind, message, extra)
        if fault.kind == "malformed":
            record["status"] = 200
            return self._send(handler, 200, b'{"id": "msg_fake_broken", "type": "mess')
        if fault.kind == "timeout":
            # Answer nothing until the client has given up; the request is never processed.
            self._stop.wait(self.timeout_sleep)
        _drop(handler)  # "timeout" ends like "disconnect": the socket closes, no response
        return None

    def _message(self, body: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        content = copy.deepcopy(answer.get("content") or [])
        stop_reason = answer.get("stop_reason") or (
            "tool_use" if any(b.get("type") == "tool_use" for b in content) else "end_turn"
        )
        given = answer.get("usage") or {}
        output_tokens = given.get("output_tokens")
        if not isinstance(output_tokens, int):
            output_tokens = max(1, len(_canon(content)) // 4)
        return {
            "id": f"msg_fake_{next(self._ids):06d}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {**self._usage(body), "output_tokens": output_tokens},
        }

    def _as_compatible(self, message: dict[str, Any], index: int) -> None:
        """What a compatible server answers: usage without cache fields, and, at the
        requests in `malformed_at`, tool calls whose arguments are missing."""
        usage = message["usage"]
        message["usage"] = {"input_tokens": sum(v for k, v in usage.items()
                                                if k.endswith("input_tokens")),
                            "output_tokens": usage["output_tokens"]}
        if index in self.malformed_at:
            for block in message["content"]:
                if block.get("type") == "tool_use":
                    block["input"] = {}

    @staticmethod
    def _billed(message: dict[str, Any], steps: list[dict[str, Any]], *,
                on_demand: bool = False) -> dict[str, Any]:
        """`message` with server compaction's `usage.iterations`: the summary step, then
        the reply's own (the top-level counts), or none when it paused after compacting.
        An on-demand compaction's cost is in its iteration alone (top-level zeros)."""
        if not steps:
            return message
        usage = message["usage"]
        if message["stop_reason"] == PAUSED:
            usage.update({k: 0 for k in usage if k.endswith("input_tokens")})
            usage["output_tokens"] = 0 if on_demand else steps[0]["output_tokens"]
            usage["iterations"] = steps[:1]
        else:
            usage["iterations"] = [steps[0], {"type": "message", **usage}]
        return message

    def _usage(self, body: dict[str, Any]) -> dict[str, int]:
        """The input split of a request, and the cache updated with its breakpoints."""
        segments = _segments(body)
        digest = hashlib.sha256()
        prefixes: list[str] = []
        ends: list[int] = []
        chars = 0
        for text, _ in segments:
            digest.update(text.encode())
            digest.update(b"\x00")
            prefixes.append(digest.copy().hexdigest())
            chars += len(text)
            ends.append(chars)
        total = max(1, chars // 4)
        marked = [k for k, (_, is_marked) in enumerate(segments) if is_marked]
        if not marked or ends[marked[-1]] // 4 < self.min_cacheable_tokens:
            return {
                "input_tokens": total,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            }
        last = marked[-1]
        hits = [k for k in range(last + 1) if prefixes[k] in self._cache]
        read = ends[hits[-1]] // 4 if hits else 0
        cached = ends[last] // 4
        self._cache.update(prefixes[k] for k in marked)
        return {
            "input_tokens": total - cached,
            "cache_creation_input_tokens": cached - read,
            "cache_read_input_tokens": read,
        }

    def _send(
        self,
        handler: _Handler,
        status: int,
        payload: bytes,
        extra: dict[str, str] | None = None,
    ) -> None:
        try:
            handler.send_response(status)
            handler.send_header("content-type", "application/json")
            handler.send_header("content-length", str(len(payload)))
            handler.send_header("request-id", f"req_fake_{next(self._ids):06d}")
            for name, value in (extra or {}).items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(payload)
            handler.wfile.flush()
        except OSError:  # the client went away (e.g. after its own timeout)
            handler.close_connection = True


def _within(answer: dict[str, Any], room: int) -> dict[str, Any]:
    """`answer` cut to `room` output tokens: its text cut, its tool calls dropped, and the
    stop reason the API gives a reply that filled the context window."""
    content = answer.get("content") or []
    if max(1, len(_canon(content)) // 4) <= room:
        return answer
    text = "".join(b.get("text", "") for b in content if b.get("type") == "text")
    return {"content": [{"type": "text", "text": text[:room * 4] or "."}],
            "stop_reason": WINDOW_EXCEEDED, "usage": {"output_tokens": room}}


def _error_body(kind: str, message: str, code: str | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"type": kind, "message": message}
    if code:  # what the SDK reads as `APIStatusError.error_code`
        error["details"] = {"error_code": code}
    return {"type": "error", "error": error}


def _drop(handler: _Handler) -> None:
    """Close the connection without a response."""
    handler.close_connection = True
    with contextlib.suppress(OSError):
        handler.connection.shutdown(socket.SHUT_RDWR)
