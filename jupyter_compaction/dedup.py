"""Unchanged re-reads answered in one line while the earlier result is still in view.

Claude Code and pydantic-ai-harness's `DeduplicateFileReads` do this: a file read again,
unchanged, while its earlier read is still in the context, costs its whole text a second
time for nothing. With `Settings.dedup_reads`, each call's result is compared with the
newest earlier result of the same call (same tool, same input):

1. a call that writes the agent's own state (task state, notes, memory: `loop_guard.
   own_state`), an error and a result that is not text pass as they are;
2. when the earlier result had the same text and its block is still in the live context,
   not cleared, the result becomes `vocab.unchanged_since(turn)`, a line;
3. otherwise (a changed file, an earlier read that compaction removed or cleared, a first
   read) the result passes whole, and it becomes the earlier result of that call.

The run keeps the digests (`Run.results_seen`); the transcript records what the model
was sent, the stand-in included.

Left out: partial overlaps (a range of a file read whole before) and results that differ
only in a timestamp: those count as changed.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .history import Message, blocks, call_key, result_text
from .hooks import Feature
from .loop_guard import own_state
from .vocab import PLACEHOLDER, unchanged_since

if TYPE_CHECKING:
    from .run import Run


@dataclass(frozen=True)
class Earlier:
    """The newest result of a call: its turn, its tool-use id and its text's digest."""

    turn: int
    id: str
    digest: str


class DedupReads(Feature):
    """Answers a call whose result has not changed since a result still in view."""

    def on_result(self, run: Run, call: dict[str, Any], result: dict[str, Any]
                  ) -> dict[str, Any]:
        text, args = result.get("content"), call.get("input") or {}
        if (result.get("is_error") or not isinstance(text, str)  # 1. as they are
                or own_state(call.get("name", ""), args) == "write"):
            return result
        key, digest = call_key(call.get("name", ""), args), _digest(text)
        earlier = run.results_seen.get(key)
        if earlier and earlier.digest == digest and in_view(run.messages, earlier.id):
            return {**result, "content": unchanged_since(earlier.turn)}  # 2. one line
        run.results_seen[key] = Earlier(run.turn, str(call.get("id", "")), digest)  # 3.
        return result


def in_view(messages: list[Message], tool_use_id: str) -> bool:
    """Whether the result of `tool_use_id` is in `messages`, not cleared."""
    return any(b.get("type") == "tool_result" and b.get("tool_use_id") == tool_use_id
               and result_text(b) != PLACEHOLDER for m in messages for b in blocks(m))


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()
