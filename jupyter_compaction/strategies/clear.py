"""Layer 1: clear the content of old tool results, keep the last few.

Tool output is the bulk of an agent's context and is mostly consumed the moment the model
reads it. Replacing the *content* of old `tool_result` blocks with a short placeholder
frees most of the space without an LLM call, and the message structure (every call, every
result id, every role) stays exactly as it was, so the history stays valid. A result that
holds images or documents is cleared the same way: the placeholder replaces all of it.

Knobs: `keep_last` recent results stay untouched; `exclude_tools` are never cleared (for
example a tool whose output the agent must keep seeing); `clear_at_least` skips the
clearing when it would free fewer tokens than that (clearing invalidates the prompt
cache, so a tiny gain can cost more than it saves); `clear_inputs` also shortens the
inputs of the cleared calls (`shrink_input()`: every value longer than `INPUT_KEEP_CHARS`
as JSON becomes a short note), so the call still says what was done and stays valid JSON.

They mirror the API's server-side context editing, `clear_tool_uses_20250919`:
`keep_last=n` is `keep: {"type": "tool_uses", "value": n}`, `exclude_tools` is
`exclude_tools`, `clear_at_least=n` is `clear_at_least: {"type": "input_tokens",
"value": n}` and `clear_inputs` is `clear_tool_inputs`; its `trigger` is the agent's.

Left out: what the output said is gone from the context; nothing is summarized.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..history import Message, blocks
from ..tokens import TokenCounter
from ..vocab import PLACEHOLDER
from .base import Compaction, measure, unchanged

INPUT_KEEP_CHARS = 80  # a tool input value longer than this (as JSON) is cleared
INPUT_PLACEHOLDER = "[cleared: {n} chars]"


def shrink_input(tool_input: dict[str, Any]) -> dict[str, Any]:
    """`tool_input` with every value longer than `INPUT_KEEP_CHARS` (as JSON) replaced by a
    note of its size; short values (paths, ids, flags) stay, so the call stays readable."""
    out = {}
    for key, value in tool_input.items():
        size = len(json.dumps(value, sort_keys=True))
        out[key] = value if size <= INPUT_KEEP_CHARS else INPUT_PLACEHOLDER.format(n=size)
    return out


@dataclass(frozen=True)
class ClearToolResults:
    keep_last: int = 3
    placeholder: str = PLACEHOLDER
    exclude_tools: tuple[str, ...] = ()
    clear_at_least: int = 0
    clear_inputs: bool = False
    name: str = "clear"

    def _cleared(self, block: dict[str, Any], doomed: set[str]) -> dict[str, Any]:
        kind = block.get("type")
        if kind == "tool_result" and block["tool_use_id"] in doomed:
            return {**block, "content": self.placeholder}
        if self.clear_inputs and kind == "tool_use" and block["id"] in doomed:
            return {**block, "input": shrink_input(block["input"])}
        return block

    def __call__(self, messages: Sequence[Message], *, goal: int,
                 counter: TokenCounter) -> Compaction:
        before = measure(messages, counter)
        # 1. the old results: all that can be cleared but the newest `keep_last`
        clearable = self._clearable(messages)
        doomed = set(clearable[: max(len(clearable) - self.keep_last, 0)])
        if not doomed:
            return unchanged(self.name, messages, before, "no old tool results to clear")
        # 2. new messages where a block changes; the others are shared, never mutated
        out = [self._rewritten(m, doomed) for m in messages]
        # 3. not worth a cache miss when it frees too little
        after = counter.count(out)
        if before - after < self.clear_at_least:
            return unchanged(self.name, messages, before,
                             f"clearing would free {before - after} < {self.clear_at_least} tokens")
        cleared = [tid for tid in clearable if tid in doomed]
        return Compaction(self.name, out, before, after, cleared=cleared)

    def _clearable(self, messages: Sequence[Message]) -> list[str]:
        """The ids of the results not cleared yet and not of an excluded tool, oldest first."""
        tool_names = {b["id"]: b["name"] for m in messages for b in blocks(m)
                      if b.get("type") == "tool_use"}
        return [b["tool_use_id"] for m in messages for b in blocks(m)
                if b.get("type") == "tool_result" and b.get("content") != self.placeholder
                and tool_names.get(b["tool_use_id"]) not in self.exclude_tools]

    def _rewritten(self, message: Message, doomed: set[str]) -> Message:
        """`message` with its `doomed` blocks cleared: a new message, or itself if none is."""
        original = blocks(message)
        content = [self._cleared(b, doomed) for b in original]
        changed = any(a is not b for a, b in zip(content, original, strict=True))
        return {**message, "content": content} if changed else message
