"""Trimming: drop the oldest whole turns, verbatim, until the history fits.

A turn here is an assistant message plus the user message that answers it (its tool
results). Dropping whole turns keeps every `tool_use` with its `tool_result` and keeps
the roles alternating, so what is left is still a valid history. The task (the first
`keep_first` messages, widened to the end of a turn) and the newest turn always stay; a
summary left by an earlier compaction is dropped only when even that is too much.

Trimming is free and exact for what remains, and it forgets everything it drops: there
is no summary. Under a tight budget it acts as a sliding window, trimming again every
turn.

Left out: any notion of which turns matter more; it is strictly oldest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..history import Message, blocks, cut_points
from ..summaries import is_summary, without_summaries
from ..tokens import TokenCounter
from .base import Compaction, measure, unchanged


@dataclass(frozen=True)
class TrimTurns:
    keep_first: int = 1
    name: str = "trim"

    def __call__(self, messages: Sequence[Message], *, goal: int,
                 counter: TokenCounter) -> Compaction:
        before = measure(messages, counter)
        cuts = cut_points(messages)
        head = next((c for c in cuts if c >= self.keep_first), len(messages))
        starts = [c for c in cuts if c >= head]  # each a turn we may drop, oldest first
        if before <= goal or not starts:
            return unchanged(self.name, messages, before, "already fits, or nothing to drop")

        total, carry, carried = before, 0, None
        resume = starts[0]
        for start_, end in zip(starts, starts[1:], strict=False):  # never the newest turn
            if total + carry <= goal:
                break
            total -= sum(counter.count_message(m) for m in messages[start_:end])
            found = [b for m in messages[start_:end] for b in blocks(m)
                     if b.get("type") == "text" and is_summary(b["text"])]
            if found:
                carried = found[-1]
                carry = counter.count_text(carried["text"])
            resume = end
        out = [*messages[:head], *messages[resume:]]
        if carried is not None:  # an older summary moves to the first kept turn
            out[head] = {**out[head], "content": [carried, *blocks(without_summaries(out[head]))]}
        if counter.count(out) > goal:  # a summary counts as the oldest material: it goes last
            out = [without_summaries(m) for m in out]
        return Compaction(self.name, out, before, counter.count(out), dropped=resume - head)
