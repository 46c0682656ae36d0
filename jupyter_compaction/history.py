"""Message shapes, the rules a valid history obeys, turns, and the OpenAI-style bridge.

The canonical format is the Anthropic Messages API: a list of `{"role", "content"}` dicts
where `content` is a string or a list of `text`, `tool_use` and `tool_result` blocks, and
`image`/`document` blocks (in user messages and tool results; see `media.py`).
`validate()` enforces the rules the real API enforces, so every strategy can be checked
against them:

1. the first message comes from `user` (or is an on-demand `compaction` block, put
   first), and roles alternate;
2. every `tool_use` id is answered by a `tool_result` in the very next (user) message,
   and those results come first in it;
3. a `tool_result` answers a `tool_use` of the message right before it;
4. tool-use ids are unique;
5. with `tools=` given (the request's tool definitions), a history holding `tool_use` or
   `tool_result` blocks needs at least one tool: the API refuses it otherwise.

Because results always sit in the message right after their call, a history is safe to
cut in front of any assistant message: that is what `cut_points()` returns.

Thinking, redacted thinking and server-tool blocks follow their own rules, kept together
in one section at the end of the file (`BLOCK_RULES`); images and documents follow media.py.

Left out: system prompts live outside the message list, as in the API.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .media import MEDIA_KINDS, media_label, media_problem

Message = dict[str, Any]
Block = dict[str, Any]

SYSTEM = "system"  # a mid-conversation system message (see the end of the file)
ROLES = ("user", "assistant", SYSTEM)
TURN_ROLES = ROLES[:2]  # the roles that alternate
BLOCK_TYPES = {"user": {"text", "tool_result", *MEDIA_KINDS}, "assistant": {"text", "tool_use"},
               SYSTEM: {"text"}}
RESULT_PART_TYPES = {"text", *MEDIA_KINDS}  # block types a tool_result's list content may hold


class InvalidHistory(ValueError):
    """A history breaks one of the API's rules; `.index` is the message, `.rule` the rule."""

    def __init__(self, index: int, rule: str, detail: str = ""):
        self.index, self.rule = index, rule
        super().__init__(f"messages[{index}]: {rule}" + (f" ({detail})" if detail else ""))


def input_json(tool_input: Any) -> str:
    """A tool call's input as canonical JSON (sorted keys): equal inputs, equal text."""
    return json.dumps(tool_input, sort_keys=True, default=str)


def call_key(name: str, tool_input: Any) -> tuple[str, str]:
    """What makes two tool calls "the same call": the tool and its input."""
    return name, input_json(tool_input)


def blocks(message: Message) -> list[Block]:
    """The message's content as a list of blocks (a string becomes one text block)."""
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def result_text(block: Block) -> str:
    """The text of a `tool_result` block, whether its content is a string or text blocks."""
    content = block.get("content", "")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") if part.get("type") == "text" else block_text(part)
                   for part in content)


def block_text(block: Block) -> str:
    """Everything a block says, as plain text (tool inputs as JSON)."""
    kind = block.get("type")
    if kind == "text":
        return block["text"]
    if kind in BLOCK_TEXT:
        return BLOCK_TEXT[kind](block)
    if kind == "tool_use":
        return f"{block['name']} {input_json(block.get('input', {}))}"
    if kind in MEDIA_KINDS:
        return media_label(block)
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
        raise InvalidHistory(i, "role must be 'user', 'assistant' or 'system'",
                             repr(message.get("role")))
    if message["role"] == SYSTEM:
        _check_system_fields(i, message)
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
    """One block's fields, by its type: the rules below (`SHAPE_RULES`), the special
    blocks' at the end of the file (`BLOCK_RULES`), and media.py's."""
    kind = block["type"]
    for rules in (BLOCK_RULES, SHAPE_RULES):
        if kind in rules:
            rules[kind](i, block)
    _check_media(i, block)


def _check_text(i: int, block: Block) -> None:
    if not isinstance(block.get("text"), str):
        raise InvalidHistory(i, "a text block needs a string 'text'")


def _check_tool_use(i: int, block: Block) -> None:
    if not (isinstance(block.get("id"), str) and block["id"]
            and isinstance(block.get("name"), str) and isinstance(block.get("input"), dict)):
        raise InvalidHistory(i, "a tool_use block needs a string 'id', a 'name' and a dict 'input'")
    try:
        json.dumps(block["input"], sort_keys=True)
    except (TypeError, ValueError):
        raise InvalidHistory(i, "a tool_use 'input' must be JSON-serializable") from None


def _check_tool_result(i: int, block: Block) -> None:
    content = block.get("content", "")
    parts_ok = isinstance(content, list) and all(_part_ok(i, p) for p in content)
    if not isinstance(block.get("tool_use_id"), str) or not (isinstance(content, str) or parts_ok):
        raise InvalidHistory(i, "a tool_result needs a 'tool_use_id' and string content or"
                                " a list of text, image and document blocks")


SHAPE_RULES = {"text": _check_text, "tool_use": _check_tool_use,
               "tool_result": _check_tool_result}


# --- images and documents: the rules live in media.py --------------------------------------


def _check_media(i: int, block: Block) -> None:
    problem = media_problem(block) if block["type"] in MEDIA_KINDS else None
    if problem:
        raise InvalidHistory(i, problem)


TOOLS_RULE = "requests which include tool_use or tool_result blocks must define tools"


def check_tools_defined(messages: Sequence[Message], tools: Sequence[Any]) -> None:
    """Rule 5: raise `InvalidHistory` if a message holds tool blocks and `tools` is empty."""
    if tools:
        return
    for i, message in enumerate(messages):
        if tool_use_ids(message) or tool_result_ids(message):
            raise InvalidHistory(i, TOOLS_RULE, "pass the tool definitions as tools=[...]")


def _part_ok(i: int, part: Any) -> bool:
    """One block of a tool_result's list content: a text block or a checked RESULT_PART_TYPES."""
    if not isinstance(part, dict) or part.get("type") not in RESULT_PART_TYPES:
        return False
    if part["type"] == "text":
        return isinstance(part.get("text"), str)
    _check_block(i, part)
    return True


def validate(messages: Sequence[Message], tools: Sequence[Any] | None = None) -> None:
    """Raise `InvalidHistory` naming the first message that breaks a rule; else return.

    `tools` (the request's tool definitions) also checks rule 5; None skips it."""
    if not isinstance(messages, Sequence) or isinstance(messages, str | bytes):
        raise InvalidHistory(0, "a history must be a list of messages")
    rules = Rules(opens_with_compaction(messages))
    for message in messages:
        rules.take(message)
    if tools is not None:
        check_tools_defined(messages, tools)


class Rules:
    """Rules 1-4 and the block rules, checked one message at a time, in order.

    What a message must obey depends only on the messages before it; their traces are kept
    here (whose turn it is, the tool_use ids seen, the message before). So a caller that
    repairs a message that breaks a rule checks the repaired one and goes on, each message
    checked once, instead of validating the whole history again after every repair."""

    def __init__(self, opened: bool = False):
        self.opened = opened  # the history opens with an on-demand compaction block
        self._turn = int(opened)
        self._seen: set[str] = set()
        self._previous: Message | None = None
        self._index = 0

    def take(self, message: Any) -> None:
        """Check the next message: raise `InvalidHistory` (and take nothing) if it breaks
        a rule after the messages taken so far; else take it."""
        i = self._index
        _check_shape(i, message)
        if message["role"] == SYSTEM:  # between turns: it follows a user message
            if self._previous is None or self._previous.get("role") != "user":
                raise InvalidHistory(i, "a system message must come right after a user message")
        else:
            expected = TURN_ROLES[self._turn % 2]
            if message["role"] != expected:
                rule = "the first message must come from user" if i == 0 else "roles must alternate"
                raise InvalidHistory(i, rule, f"expected {expected}, got {message['role']}")
            _check_answers(i, message, tool_use_ids(self._previous) if self._previous else [])
            ids: set[str] = set()
            for tid in tool_use_ids(message):  # unique in the history and in the message
                if tid in self._seen or tid in ids:
                    raise InvalidHistory(i, "duplicate tool_use id", tid)
                ids.add(tid)
            _check_server_results(i, message)
            _check_compaction_place(i, message, self.opened)
            self._seen |= ids
            self._turn += 1
        self._previous, self._index = message, i + 1


def _check_answers(i: int, message: Message, asked: list[str]) -> None:
    """Rules 2 and 3: message `i` answers every call of the message before it (`asked`),
    results first, and answers nothing else."""
    results = tool_result_ids(message)
    asked_set, results_set = set(asked), set(results)  # sets: many parallel calls stay linear
    for tid in results:
        if tid not in asked_set:
            raise InvalidHistory(i, "tool_result without a tool_use in the message before", tid)
    if asked:
        missing = [tid for tid in asked if tid not in results_set]
        if missing:  # named at the call's message, as the API's error names it
            raise InvalidHistory(
                i - 1, "tool_use not answered by a tool_result in the next message", missing[0]
            )
        kinds = [b["type"] for b in blocks(message)]
        if kinds[: len(results)] != ["tool_result"] * len(results):
            raise InvalidHistory(i, "tool_result blocks must come first in the message")


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


# --- per-block-type rules: thinking, redacted thinking, server tools, search results ------
#
# Thinking: a `thinking` block (`thinking` text + `signature`) or a `redacted_thinking`
# block (opaque `data`) sits in an assistant message, in front of the tool calls it led
# to. Strategies move whole assistant messages, so a thinking block always stays with
# its calls; the newest assistant message of an ongoing tool loop (the history ends with
# its results) is never altered, as the API requires; older thinking may be dropped
# (`drop_old_thinking`). Server tools run on the API's side: a `server_tool_use` and its
# `web_search_tool_result` sit in the same assistant message, so they need no user
# message. A `compaction` block (the API's server-side summary) opens an assistant
# message; the API ignores everything before it. Asked for on demand, it comes back alone
# and is put first in the history, in place of what it summarized (`opens_with_compaction`,
# the one case where the first message is the assistant's). A `search_result` (source, title, text
# blocks) is a user block or part of a tool result. How these blocks count as tokens is
# documented in tokens.py.

THINKING_TYPES = ("thinking", "redacted_thinking")
SERVER_RESULT_TYPES = ("web_search_tool_result",)
COMPACTION = "compaction"  # the API's server-side summary (`server_compaction.py`)
BLOCK_TYPES["assistant"] |= {*THINKING_TYPES, "server_tool_use", *SERVER_RESULT_TYPES,
                             COMPACTION}
BLOCK_TYPES["user"] |= {"search_result"}
RESULT_PART_TYPES |= {"search_result"}


def _require(i: int, block: Block, kind: type | tuple, *fields: str) -> None:
    bad = [f for f in fields if not isinstance(block.get(f), kind)]
    if bad:
        names = " and ".join(repr(f) for f in fields)
        raise InvalidHistory(i, f"a {block['type']} block needs {names} of the right type",
                             f"bad: {', '.join(bad)}")


def _check_search_result(i: int, block: Block) -> None:
    _require(i, block, str, "source", "title")
    content = block.get("content")
    if not isinstance(content, list) or not all(
            isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
            for p in content):
        raise InvalidHistory(i, "a search_result block needs a list of text blocks as 'content'")


BLOCK_RULES = {
    "thinking": lambda i, b: _require(i, b, str, "thinking", "signature"),
    "redacted_thinking": lambda i, b: _require(i, b, str, "data"),
    "server_tool_use": lambda i, b: (_require(i, b, str, "id", "name"),
                                     _require(i, b, dict, "input")),
    "web_search_tool_result": lambda i, b: (_require(i, b, str, "tool_use_id"),
                                            _require(i, b, (list, dict), "content")),
    "search_result": _check_search_result,
    COMPACTION: lambda i, b: _check_compaction(i, b),
}

BLOCK_TEXT = {
    "thinking": lambda b: b["thinking"],
    "redacted_thinking": lambda b: b["data"],
    "server_tool_use": lambda b: f"{b['name']} {input_json(b.get('input', {}))}",
    "web_search_tool_result": lambda b: json.dumps(b.get("content"), sort_keys=True),
    "search_result": lambda b: "\n".join(
        [b.get("title", ""), b.get("source", ""), *(p.get("text", "") for p in b["content"])]),
    COMPACTION: lambda b: b.get("content") or "",  # a failed one (null) says nothing
}


def _check_compaction(i: int, block: Block) -> None:
    """The fields of the SDK's `BetaCompactionBlockParam`: `content` a non-empty string,
    or null for a failed compaction (a no-op the API accepts back); `encrypted_content`
    and `signature` opaque strings; `tool_changes` a list. Each is sent back unchanged."""
    content = block.get("content")
    if content is not None and not (isinstance(content, str) and content):
        raise InvalidHistory(i, "a compaction block's 'content' is a non-empty string or null")
    for name in ("encrypted_content", "signature"):
        if block.get(name) is not None and not isinstance(block[name], str):
            raise InvalidHistory(i, f"a compaction block's {name!r} must be a string")
    if block.get("tool_changes") is not None and not isinstance(block["tool_changes"], list):
        raise InvalidHistory(i, "a compaction block's 'tool_changes' must be a list")


def opens_with_compaction(messages: Sequence[Message]) -> bool:
    """The history starts with an assistant message whose first block is a `compaction`
    block: an on-demand summary put first, in place of the messages it summarized."""
    if not messages or not isinstance(messages[0], dict):
        return False
    content = messages[0].get("content")
    return (messages[0].get("role") == "assistant" and isinstance(content, list)
            and bool(content) and isinstance(content[0], dict)
            and content[0].get("type") == COMPACTION)


def _check_compaction_place(i: int, message: Message, opened: bool) -> None:
    """A compaction block opens its assistant message (the SDK's
    `CompactionBlockMisplacedError`); a history opened by one holds no second one with
    content (`CompactionBlockAmbiguousError`: send only the newest block)."""
    for k, block in enumerate(blocks(message)):
        if block.get("type") != COMPACTION:
            continue
        if k:
            raise InvalidHistory(i, "a compaction block must be the first block of its message")
        if opened and i and block.get("content") is not None:
            raise InvalidHistory(i, "a history that opens with a compaction block holds no "
                                    "other compaction block with content; send only the newest")


def _check_server_results(i: int, message: Message) -> None:
    """A server tool's result answers a `server_tool_use` earlier in the same message."""
    called: set[str] = set()
    for block in blocks(message):
        if block.get("type") == "server_tool_use":
            called.add(block["id"])
        elif block.get("type") in SERVER_RESULT_TYPES and block["tool_use_id"] not in called:
            raise InvalidHistory(i, "a server tool result must follow its server_tool_use"
                                    " in the same message", block["tool_use_id"])


def ongoing_tool_loop(messages: Sequence[Message]) -> bool:
    """The history ends with tool results: the model's next reply continues its last turn."""
    return len(messages) >= 2 and bool(tool_result_ids(messages[-1]))


def drop_old_thinking(messages: Sequence[Message], keep: int | str | None = None
                      ) -> list[Message]:
    """The history without thinking blocks, except in the newest assistant message of an
    ongoing tool loop (the API needs that one back). A message of thinking alone keeps it.

    `keep` is `clear_thinking_20251015`'s: a number keeps the thinking of that many of the
    newest assistant messages that hold some ("thinking turns"), "all" keeps every one."""
    if keep == "all":
        return list(messages)
    if keep is not None and (not isinstance(keep, int) or isinstance(keep, bool) or keep < 0):
        raise ValueError(f"keep must be a number of thinking turns or 'all', not {keep!r}")
    keeping = _thinking_kept(messages, keep)
    return [m if i in keeping else _without_thinking(m) for i, m in enumerate(messages)]


def _thinking_kept(messages: Sequence[Message], keep: int | None) -> set[int]:
    """The messages whose thinking stays: the newest `keep` that hold some, and the newest
    assistant message of an ongoing tool loop."""
    # 1. the assistant messages that hold thinking, oldest first
    thinking = [i for i, m in enumerate(messages) if m["role"] == "assistant"
                and not isinstance(m["content"], str)
                and any(b.get("type") in THINKING_TYPES for b in m["content"])]
    # 2. the newest `keep` of them
    keeping = set(thinking[len(thinking) - keep:] if keep else [])
    # 3. the call an unanswered tool loop continues from
    if ongoing_tool_loop(messages):
        keeping.add(len(messages) - 2)
    return keeping


def _without_thinking(message: Message) -> Message:
    """An assistant message without its thinking blocks (a copy); any other message, or
    one of thinking alone, unchanged."""
    if message["role"] != "assistant" or isinstance(message["content"], str):
        return message
    kept = [b for b in message["content"] if b.get("type") not in THINKING_TYPES]
    return {**message, "content": kept} if kept and len(kept) < len(message["content"]) else message


# --- the OpenAI chat-completions style (`tool_calls`, `role: "tool"`) -------------------------


def from_openai(messages: Sequence[Message]) -> list[Message]:
    """Convert OpenAI-style messages (`tool_calls`, `role: "tool"`) to Anthropic blocks.

    Consecutive `tool` messages become the `tool_result` blocks of one user message.
    """
    out: list[Message] = []
    answering: Message | None = None  # the last message known to hold tool results
    for m in messages:
        role = m["role"]
        if role == "tool":
            block = {"type": "tool_result", "tool_use_id": m["tool_call_id"],
                     "content": m.get("content") or ""}
            # each message is searched for results once: many tool messages stay linear
            if out and (out[-1] is answering
                        or out[-1]["role"] == "user" and tool_result_ids(out[-1])):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
            answering = out[-1]
        elif role == "assistant" and m.get("tool_calls"):
            out.append(_calls_from_openai(m))
        elif role == "user" and out and out[-1]["role"] == "user":
            out[-1]["content"].append({"type": "text", "text": m.get("content") or ""})
        else:
            out.append({"role": role, "content": m.get("content") or ""})
    return out


def _calls_from_openai(message: Message) -> Message:
    """An OpenAI assistant message with `tool_calls` as one with `tool_use` blocks."""
    text = message.get("content")
    content: list[Block] = [{"type": "text", "text": text}] if text else []
    for call in message["tool_calls"]:
        fn = call["function"]
        content.append({"type": "tool_use", "id": call["id"], "name": fn["name"],
                        "input": json.loads(fn.get("arguments") or "{}")})
    return {"role": "assistant", "content": content}


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


# --- mid-conversation system messages -------------------------------------------------------
#
# A `{"role": "system"}` message restates or adds instructions partway through, right
# after a user message (docs: build-with-claude/mid-conversation-system-messages; SDK
# `BetaSystemMessageParam`: text content, optional `clear_at` "next_user_message" or
# "never", and `output_config`). It is not a turn: the roles around it alternate as if it
# were not there, and the turn it follows owns it (`turns()`), so a strategy that drops
# or summarizes that turn drops it too: instructions inside a summarized range are gone.

CLEAR_AT = ("next_user_message", "never")
SYSTEM_KEYS = {"role", "content", "clear_at", "output_config"}


def _check_system_fields(i: int, message: Message) -> None:
    extra = set(message) - SYSTEM_KEYS
    if extra:
        raise InvalidHistory(i, "a system message has no field " + repr(sorted(extra)[0]))
    if message.get("clear_at", "never") not in CLEAR_AT:
        raise InvalidHistory(i, "a system message's clear_at is 'next_user_message' or 'never'")

