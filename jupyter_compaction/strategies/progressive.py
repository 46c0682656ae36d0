"""Progressive compaction: cheapest layer first, stop as soon as the history fits.

Given a history over `goal` tokens (inside an agent: the target the agent asks for,
less the system prompt and tools, well below its trigger), clear old tool results; if
still too big, summarize the middle; if *still* too big, trim whole turns. Each layer
runs only when the cheaper ones were not enough, so an LLM is called only when needed.
When to compact at all is the agent's decision (its trigger), not this strategy's. A
`focus` (what the summary should keep in most detail) is passed on to every layer that
has one.

When the layers together still leave the history over `goal`, the last layer runs alone
on an earlier layer's output and the first that fits is kept: a summary placed inside the
newest turn (which trimming never drops) can be what keeps the history over.

Left out: reordering the layers by measured benefit; the order is fixed by cost.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..history import Message
from ..tokens import TokenCounter
from .base import Compaction, Strategy, configure, measure, unchanged
from .clear import ClearToolResults
from .summarize import SummarizeMiddle
from .trim import TrimTurns


def default_layers() -> tuple[Strategy, ...]:
    return (ClearToolResults(), SummarizeMiddle(), TrimTurns())


@dataclass(frozen=True)
class Progressive:
    layers: tuple[Strategy, ...] = field(default_factory=default_layers)
    focus: str = ""
    name: str = "progressive"

    def __call__(self, messages: Sequence[Message], *, goal: int,
                 counter: TokenCounter) -> Compaction:
        before = measure(messages, counter)
        if before <= goal:
            return unchanged(self.name, messages, before, f"fits under {goal} tokens")
        # each layer works on what the one before left, until the history fits
        current, done = list(messages), []
        for layer in self.layers:
            layer = configure(layer, focus=self.focus) if self.focus else layer
            step = layer(current, goal=goal, counter=counter)
            done.append(step)
            current = step.messages
            if step.tokens_after <= goal:
                break
        if done[-1].tokens_after > goal:
            done = self.refit(messages, done, goal, counter)
        return combined(self.name, done, before)

    def refit(self, messages: Sequence[Message], done: list[Compaction], goal: int,
              counter: TokenCounter) -> list[Compaction]:
        """The steps, with the last layer run alone on the latest earlier output it brings
        under `goal` (the steps as they were when none does)."""
        last = configure(self.layers[-1], focus=self.focus) if self.focus else self.layers[-1]
        for k in reversed(range(len(done) - 1)):  # the input of step k, latest first
            step = last(done[k - 1].messages if k else list(messages), goal=goal,
                        counter=counter)
            if step.tokens_after <= goal:
                return [*done[:k], step]
        return done


def combined(name: str, done: list[Compaction], before: int) -> Compaction:
    """The layers' steps as one compaction: named after the layers that changed something
    ("clear+summarize"; `name` when none did), the last step's messages and size, every
    cleared result and dropped message, the last summary written, and every note."""
    summarized = [s for s in done if s.summary]
    return Compaction(
        "+".join(s.kind for s in done if s.changed) or name, done[-1].messages, before,
        done[-1].tokens_after,
        cleared=[tid for s in done for tid in s.cleared],
        dropped=sum(s.dropped for s in done),
        summary_prompt=summarized[-1].summary_prompt if summarized else None,
        summary=summarized[-1].summary if summarized else None,
        note="; ".join(s.note for s in done if s.note), layers=done)
