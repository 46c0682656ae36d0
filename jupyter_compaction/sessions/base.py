"""What a loaded session is, and the builder that turns a log's entries into valid histories.

A `Session` holds the conversation as `segments` (the message lists between the session's
own compactions, each valid by `history.validate`), those `compactions`, the `usage` the
API reported per call, the tool definitions when the log has them, and `warnings`: one
line per problem met while reading (a damaged line, an unknown entry, a call without a
result). Problems never stop a load and never drop the rest of the log.

`Thread` is the one place where the rules of a valid history are restored while entries
arrive: same-role messages merge, results move first in their message, a call with no
result gets an explicit "missing" result, and a result with no call becomes plain text.
Nothing is discarded.

Left out: anything format-specific; each format has its own module.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ..history import Block, Message, blocks, tool_result_ids, tool_use_ids

MISSING_RESULT = "[no result for this call in the session log]"
ORPHAN_PREFIX = "[tool result without its call in the session log]"
SESSION_START = "[the session log starts here]"


@dataclass
class SessionCompaction:
    """A compaction the session itself did: `segment` is the index of the segment it starts."""

    segment: int
    trigger: str
    tokens_before: int | None
    summary: str


@dataclass
class Usage:
    """What the API reported for one call: `index` is the assistant message it produced."""

    segment: int
    index: int
    input_tokens: int  # everything the call read: fresh, cache writes and cache reads
    output_tokens: int
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass
class Session:
    format: str
    segments: list[list[Message]]
    compactions: list[SessionCompaction] = field(default_factory=list)
    usage: list[Usage] = field(default_factory=list)
    tools: list[dict[str, Any]] | None = None
    warnings: list[str] = field(default_factory=list)
    source: str = ""

    @property
    def messages(self) -> list[Message]:
        """The newest segment: what the session's model saw last."""
        return self.segments[-1] if self.segments else []

    def __repr__(self) -> str:
        sizes = ", ".join(str(len(s)) for s in self.segments)
        return (f"Session({self.format!r}, segments=[{sizes}] messages, "
                f"compactions={len(self.compactions)}, warnings={len(self.warnings)})")


def read_jsonl(text: str, warn) -> list[tuple[int, dict[str, Any]]]:
    """`(line number, object)` for every line that parses as a JSON object; a warning for
    every other non-blank line."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            warn(f"line {number}: not valid JSON (damaged or truncated); skipped")
            continue
        if not isinstance(entry, dict):
            warn(f"line {number}: a JSON {type(entry).__name__}, not an object; skipped")
            continue
        out.append((number, entry))
    return out


def as_blocks(content: Any) -> list[Block]:
    """Log content (a string, a block, or a list of them) as a list of dict blocks."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if isinstance(content, dict):
        return [content]
    return [b for b in content or [] if isinstance(b, dict)]


class Thread:
    """A growing message list that stays valid; `warn` receives one line per repair."""

    def __init__(self, warn):
        self.messages: list[Message] = []
        self.warn = warn
        self._ids: set[str] = set()

    def add(self, role: str, content: Any) -> None:
        new = [b for b in as_blocks(content) if not self._duplicate(b)]
        if not new:
            return
        if role == "assistant" and not self.messages:
            self.warn("the log starts with an assistant message; a user marker was put first")
            self.messages.append({"role": "user", "content": SESSION_START})
        last = self.messages[-1] if self.messages else None
        if last is None or last["role"] != role:
            self.messages.append({"role": role, "content": new})
            return
        merged = [*blocks(last), *new]
        results = [b for b in merged if b.get("type") == "tool_result"]
        last["content"] = [*results, *(b for b in merged if b.get("type") != "tool_result")]

    def _duplicate(self, block: Block) -> bool:
        key = block.get("id") if block.get("type") == "tool_use" else (
            "result:" + str(block.get("tool_use_id")) if block.get("type") == "tool_result"
            else None)
        if key is None:
            return False
        if key in self._ids:
            self.warn(f"{block['type']} {key.removeprefix('result:')} appears twice; kept once")
            return True
        self._ids.add(key)
        return False

    def finish(self, found_results: dict[str, Block] | None = None) -> list[Message]:
        """The valid history: each call answered (by `found_results` when its result sat
        elsewhere in the log, else by an explicit missing-result block), each result next
        to its call, orphan results kept as text."""
        found_results = found_results or {}
        out: list[Message] = []
        for message in self.messages:
            if message["role"] == "user" and out and out[-1]["role"] == "user":
                out[-1] = {"role": "user", "content": [*blocks(out[-1]), *blocks(message)]}
            else:
                out.append(message)
        for i, message in enumerate(out):
            asked = tool_use_ids(out[i - 1]) if i and message["role"] == "user" else []
            content = blocks(message)
            for block in content:
                if block.get("type") == "tool_result" and block["tool_use_id"] not in asked:
                    self.warn(f"tool result {block['tool_use_id']} has no call right before it;"
                              " kept as text")
            kept = [b for b in content
                    if b.get("type") != "tool_result" or b["tool_use_id"] in asked]
            orphans = [{"type": "text", "text": f"{ORPHAN_PREFIX} {json.dumps(b)}"}
                       for b in content if b not in kept]
            answered = set(tool_result_ids({"content": kept}))
            extra = []
            for tid in asked:
                if tid not in answered:
                    if tid in found_results:
                        extra.append(found_results[tid])
                    else:
                        self.warn(f"tool call {tid} has no result in the log; marked as missing")
                        extra.append({"type": "tool_result", "tool_use_id": tid,
                                      "content": MISSING_RESULT, "is_error": True})
            results = [b for b in kept if b.get("type") == "tool_result"]
            rest = [b for b in kept if b.get("type") != "tool_result"]
            if message["role"] == "user":
                out[i] = {"role": "user", "content": [*results, *extra, *rest, *orphans]}
        last = out[-1] if out else None
        if last is not None and last["role"] == "assistant" and tool_use_ids(last):
            pending = [{"type": "tool_result", "tool_use_id": tid, "content": MISSING_RESULT,
                        "is_error": True} for tid in tool_use_ids(last)]
            recovered = [found_results.get(b["tool_use_id"], b) for b in pending]
            for b in recovered:
                if b["content"] == MISSING_RESULT:
                    self.warn(f"tool call {b['tool_use_id']} has no result in the log;"
                              " marked as missing")
            out.append({"role": "user", "content": recovered})
        return out
