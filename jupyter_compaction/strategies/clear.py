"""Layer 1: clear the content of old tool results, keep the last few.

Tool output is the bulk of an agent's context and is mostly consumed the moment the model
reads it. Replacing the *content* of old `tool_result` blocks with a short placeholder
frees most of the space without an LLM call, and the message structure (every call, every
result id, every role) stays exactly as it was, so the history stays valid.

Knobs: `keep_last` recent results stay untouched; `exclude_tools` are never cleared (for
example a tool whose output the agent must keep seeing); `clear_at_least` skips the
clearing when it would free fewer tokens than that (clearing invalidates the prompt
cache, so a tiny gain can cost more than it saves).

Left out: the calls themselves are kept (their inputs are small and say what was done),
and nothing is summarized: what the output said is gone from the context.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..history import blocks
from ..tokens import TokenCounter
from ..vocab import PLACEHOLDER
from .base import Compaction, start, unchanged


@dataclass(frozen=True)
class ClearToolResults:
    keep_last: int = 3
    placeholder: str = PLACEHOLDER
    exclude_tools: tuple[str, ...] = ()
    clear_at_least: int = 0
    name: str = "clear"

    def __call__(self, messages, *, budget: int, counter: TokenCounter) -> Compaction:
        before = start(messages, counter)
        tool_names = {b["id"]: b["name"] for m in messages for b in blocks(m)
                      if b.get("type") == "tool_use"}
        clearable = [
            b["tool_use_id"] for m in messages for b in blocks(m)
            if b.get("type") == "tool_result" and b.get("content") != self.placeholder
            and tool_names.get(b["tool_use_id"]) not in self.exclude_tools
        ]
        doomed = set(clearable[: max(len(clearable) - self.keep_last, 0)])
        if not doomed:
            return unchanged(self.name, messages, before, "no old tool results to clear")

        out = []
        for m in messages:
            if any(b.get("type") == "tool_result" and b["tool_use_id"] in doomed
                   for b in blocks(m)):
                m = {**m, "content": [
                    {**b, "content": self.placeholder}
                    if b.get("type") == "tool_result" and b["tool_use_id"] in doomed else b
                    for b in blocks(m)]}
            out.append(m)
        after = counter.count(out)
        if before - after < self.clear_at_least:
            return unchanged(self.name, messages, before,
                             f"clearing would free {before - after} < {self.clear_at_least} tokens")
        cleared = [tid for tid in clearable if tid in doomed]
        return Compaction(self.name, out, before, after, cleared=cleared)
