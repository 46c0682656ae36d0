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

from ..history import Block, Message, blocks, cut_points
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
        # 1. the turns after the task (`keep_first` messages, widened to a turn's end)
        cuts = cut_points(messages)
        head = next((c for c in cuts if c >= self.keep_first), len(messages))
        starts = [c for c in cuts if c >= head]  # each a turn we may drop, oldest first
        if before <= goal:
            return unchanged(self.name, messages, before, f"fits under {goal} tokens")
        if not starts:
            return unchanged(self.name, messages, before, f"over the goal of {goal} tokens with "
                             f"nothing to drop: the task (keep_first={self.keep_first}) stays")
        # 2. the oldest turns go until the rest fits
        resume, carried = self._drop(messages, starts, before, goal, counter)
        out = [*messages[:head], *messages[resume:]]
        if carried is not None:  # an older summary moves to the first kept turn
            out[head] = {**out[head], "content": [carried, *blocks(without_summaries(out[head]))]}
        # 3. a summary counts as the oldest material: it goes last
        if counter.count(out) > goal:
            out = [without_summaries(m) for m in out]
        after = counter.count(out)
        return Compaction(self.name, out, before, after, dropped=resume - head,
                          note=short_of_goal(out, head, goal, after, counter))

    def _drop(self, messages: Sequence[Message], starts: list[int], total: int, goal: int,
              counter: TokenCounter) -> tuple[int, Block | None]:
        """`(resume, carried)`: the first message kept after the task once the oldest turns
        are gone (never the newest turn), and the newest summary among them, if any."""
        carry, carried = 0, None
        resume = starts[0]
        for start, end in zip(starts, starts[1:], strict=False):  # never the newest turn
            if total + carry <= goal:
                break
            total -= sum(counter.count_message(m) for m in messages[start:end])
            found = [b for m in messages[start:end] for b in blocks(m)
                     if b.get("type") == "text" and is_summary(b["text"])]
            if found:
                carried = found[-1]
                carry = counter.count_text(carried["text"])
            resume = end
        return resume, carried


def short_of_goal(out: list[Message], head: int, goal: int, after: int,
                  counter: TokenCounter) -> str:
    """Why a trimmed history is still over `goal` ("" when it fits): what it kept, which
    trimming never drops."""
    if after <= goal:
        return ""
    return (f"still {after} tokens, over the goal of {goal}: the task "
            f"({counter.count(out[:head])} tokens) and the newest turn "
            f"({counter.count(out[head:])} tokens) are never dropped")
