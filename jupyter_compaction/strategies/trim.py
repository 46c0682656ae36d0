"""Trimming: drop the oldest whole turns, verbatim, until the history fits.

A turn here is an assistant message plus the user message that answers it (its tool
results). Dropping whole turns keeps every `tool_use` with its `tool_result` and keeps
the roles alternating, so what is left is still a valid history. The task (the first
`keep_first` messages, widened to the end of a turn), the turn that states the newest
question (a follow-up: a later user message with no tool results, or the summary whose
Goal replaced it, `models/asked.py`) and the newest turn always stay; a summary left by
an earlier compaction is dropped only when even that is too much, and never the one that
alone states the newest question (its turn may go: the summary moves to the first kept
turn, as any summary of a dropped turn does).

Trimming is free and exact for what remains, and it forgets everything it drops: there
is no summary. Under a tight budget it acts as a sliding window, trimming again every
turn.

Left out: any notion of which turns matter more; it is strictly oldest first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..history import Block, Message, blocks, cut_points
from ..models.asked import asked, asking_summary
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
        # 2. the oldest turns go until the rest fits; the turn asking the newest question
        # stays, or, when only a summary states it, that summary (carried if its turn goes)
        keep = asking_summary(messages)
        pinned = asking_turn(messages, starts) if keep is None else None
        out = self._trimmed(messages, starts, head, before, goal, counter, pinned, keep)
        after = counter.count(out)
        return Compaction(self.name, out, before, after, dropped=len(messages) - len(out),
                          note=short_of_goal(out, head, goal, after, counter))

    def _trimmed(self, messages: Sequence[Message], starts: list[int], head: int, total: int,
                 goal: int, counter: TokenCounter, pinned: int | None,
                 keep: Block | None) -> list[Message]:
        """`messages` with the oldest turns (but the newest and `pinned`) dropped until the
        rest fits, then, if still over `goal`, every summary but `keep`."""
        spans = [s for s in zip(starts, starts[1:], strict=False)  # never the newest turn
                 if s[0] != pinned]
        gone, carried = self._drop(messages, spans, total, goal, counter)
        out = without_spans(messages, gone)
        if carried is not None:  # an older summary moves to the first kept turn
            rest = blocks(without_summaries(out[head], keep=keep))
            out[head] = {**out[head], "content": [carried, *rest]}
        # 3. a summary counts as the oldest material: it goes last, but for the one stating
        # the newest question (without it the model would answer an older one)
        if counter.count(out) > goal:
            out = [without_summaries(m, keep=keep) for m in out]
        return out

    def _drop(self, messages: Sequence[Message], spans: list[tuple[int, int]], total: int,
              goal: int, counter: TokenCounter) -> tuple[list[tuple[int, int]], Block | None]:
        """`(gone, carried)`: the turns (`spans`, oldest first) dropped until the rest fits,
        and the newest summary among them, if any."""
        carry, carried, gone = 0, None, []
        for start, end in spans:
            if total + carry <= goal:
                break
            total -= sum(counter.count_message(m) for m in messages[start:end])
            found = [b for m in messages[start:end] for b in blocks(m)
                     if b.get("type") == "text" and is_summary(b["text"])]
            if found:
                carried = found[-1]
                carry = counter.count_text(carried["text"])
            gone.append((start, end))
        return gone, carried


def without_spans(messages: Sequence[Message], gone: list[tuple[int, int]]) -> list[Message]:
    """`messages` without the `(start, end)` slices in `gone`, in one pass."""
    dropped = {n for start, end in gone for n in range(start, end)}
    return [m for n, m in enumerate(messages) if n not in dropped]


def asking_turn(messages: Sequence[Message], starts: list[int]) -> int | None:
    """The start of the turn holding the message that states the newest question after
    the task (a follow-up, or a summary's Goal that replaced it), or None when none does."""
    n = asked(messages)[0]
    return next((s for s in reversed(starts) if s <= n), None)


def short_of_goal(out: list[Message], head: int, goal: int, after: int,
                  counter: TokenCounter) -> str:
    """Why a trimmed history is still over `goal` ("" when it fits): what it kept, which
    trimming never drops."""
    if after <= goal:
        return ""
    return (f"still {after} tokens, over the goal of {goal}: the task "
            f"({counter.count(out[:head])} tokens) and the newest turn "
            f"({counter.count(out[head:])} tokens) are never dropped")
