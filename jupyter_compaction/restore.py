"""What comes back after a compaction: the newest files read, pinned text, hooks' content.

A summary says "read config/checkout-api.yaml" but not what the file holds, so an agent
whose summary replaced its reads reads them again. Claude Code re-attaches the files it
read most recently after it compacts; `restore` does the same: after a compaction that
wrote a summary (summarizing the middle, or the whole history), the newest `files`
distinct files read with `READ_TOOLS` (and no longer visible in the context) are read
again through the agent's own tools, newest first, within `RESTORE_SHARE` of the
compaction's goal. They come back as one tool round appended after the compacted context
(an assistant message with the read calls and a user message with their results), so
any model reads them as it reads its own tool results. Pinned instructions and the text
returned by the agent's compaction hooks are added to that user message as text blocks
(after any compaction that changed the context, summary or not).
What came back is counted in the compaction's `tokens_after` and named in its note, so
the `Compacted` event and the chart show it.

The round is written by the agent, not by the model: the assistant message is marked
with `RESTORED` so a reader can tell. Left out: restoring anything after a compaction
whose context ends with an assistant message (a finished run compacted on demand), and
files read by tools other than `READ_TOOLS`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .history import Message, blocks, result_text
from .hooks import Feature
from .strategies import Compaction
from .tokens import TokenCounter
from .tools import Toolbox
from .vocab import PLACEHOLDER

if TYPE_CHECKING:
    from .run import Run

READ_TOOLS = ("read_file",)  # calls whose `path` input names a file read
RESTORE_SHARE = 0.25  # restored files may fill at most this share of the compaction goal
RESTORED = "[restored after compaction: the files read most recently, read again]"


def recent_reads(transcript: Sequence[Message], context: Sequence[Message], files: int
                 ) -> list[dict[str, Any]]:
    """Of the newest `files` distinct read calls of `transcript` (newest first), those
    whose result is not visible in `context` any more."""
    visible = _visible_calls(context)
    return [block for key, block in _newest_reads(transcript, files).items()
            if key not in visible]


def _visible_calls(context: Sequence[Message]) -> set[tuple[str, str]]:
    """The calls (`_key`) whose result `context` still shows (not a placeholder)."""
    shown = {b.get("tool_use_id") for m in context for b in blocks(m)
             if b.get("type") == "tool_result" and result_text(b) != PLACEHOLDER}
    return {_key(b) for m in context for b in blocks(m)
            if b.get("type") == "tool_use" and b["id"] in shown}


def _newest_reads(transcript: Sequence[Message], files: int
                  ) -> dict[tuple[str, str], dict[str, Any]]:
    """The newest `files` distinct `READ_TOOLS` calls of `transcript`, newest first."""
    newest: dict[tuple[str, str], dict[str, Any]] = {}
    calls = (b for m in reversed(transcript) for b in reversed(blocks(m))
             if b.get("type") == "tool_use" and b.get("name") in READ_TOOLS)
    for block in calls:
        if len(newest) >= files:
            break
        newest.setdefault(_key(block), block)
    return newest


def _key(block: dict[str, Any]) -> tuple[str, str]:
    return block["name"], json.dumps(block.get("input") or {}, sort_keys=True)


def restore(result: Compaction, transcript: Sequence[Message], toolbox: Toolbox,
            counter: TokenCounter, *, files: int, goal: int, texts: Sequence[str] = (),
            tag: str = "r") -> Compaction:
    """`result` with the newest read files (read again; only when it wrote a summary) and
    `texts` appended after it, counted and noted; unchanged when there is nothing to add."""
    context = result.messages
    # 1. nothing comes back after a context that ends with the model's message
    if not context or context[-1]["role"] != "user":
        return result
    # 2. the newest reads no longer visible, read again (after a summary only)
    reads = recent_reads(transcript, context, files) if files and result.summary else []
    calls, results = _read_again(reads, toolbox, counter, RESTORE_SHARE * goal, tag)
    # 3. the pinned and hook texts
    extra = [{"type": "text", "text": t} for t in texts if t and t.strip()]
    if not calls and not extra:
        return result
    # 4. all of it after the context, counted and named in the note
    messages = _appended(context, calls, [*results, *extra])
    return dataclasses.replace(result, messages=messages, note=_note(result.note, calls, extra),
                               tokens_after=counter.count(messages))


def _read_again(reads: list[dict[str, Any]], toolbox: Toolbox, counter: TokenCounter,
                room: float, tag: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """`(calls, results)`: each of `reads` called again through `toolbox`, newest first,
    kept while the results fit in `room` tokens (a failed read is skipped)."""
    calls, results, used = [], [], 0
    for n, old in enumerate(reads):
        call = {"type": "tool_use", "id": f"toolu_restore_{tag}_{n}", "name": old["name"],
                "input": dict(old.get("input") or {})}
        answer = toolbox.call(call)
        size = counter.count_text(result_text(answer))
        if answer.get("is_error") or used + size > room:
            continue
        calls.append(call)
        results.append(answer)
        used += size
    return calls, results


def _appended(context: list[Message], calls: list[dict[str, Any]],
              content: list[dict[str, Any]]) -> list[Message]:
    """`context` with `content` (results, then texts) added: after a tool round of `calls`
    marked `RESTORED`, or, with no calls, at the end of its last (user) message."""
    if calls:
        return [*context,
                {"role": "assistant", "content": [{"type": "text", "text": RESTORED}, *calls]},
                {"role": "user", "content": content}]
    last = context[-1]
    return [*context[:-1], {**last, "content": [*blocks(last), *content]}]


def _note(note: str, calls: list[dict[str, Any]], extra: list[dict[str, Any]]) -> str:
    """The compaction's note, then what came back."""
    names = [c["input"].get("path", c["name"]) for c in calls]
    added = f"restored {len(calls)} files" + (f" ({', '.join(names)})" if names else "") + (
        f" and {len(extra)} pinned or hook texts" if extra else "")
    return "; ".join(n for n in (note, added) if n)


def hook_texts(hooks: Sequence[Callable[..., str | None]], *args: Any) -> list[str]:
    """The text each hook returns for `args` (None or '' adds nothing)."""
    return [text for hook in hooks if (text := hook(*args))]


class Reattach(Feature):
    """The agent's pinned texts and compaction hooks (`Agent.pinned`,
    `Agent.before_compaction`, `Agent.after_compaction`): configuration for every run,
    each hook handed the run it serves."""

    def __init__(self) -> None:
        self.pinned: list[str] = []  # re-attached after every compaction
        self.before: list[Callable[[Run], str | None]] = []  # read before it ...
        self.after: list[Callable[[Run, Compaction], str | None]] = []  # ... and after it

    def before_compaction(self, run: Run) -> list[str]:
        return [*self.pinned, *hook_texts(self.before, run)]

    def after_compaction(self, run: Run, result: Compaction) -> list[str]:
        return hook_texts(self.after, run, result)
