"""Whole-history compaction: the task plus "progress so far", nothing else.

The bluntest layer: everything after the task is summarized, and the history becomes one
user message holding the original task followed by the summary. It frees the most space
and keeps the least; it is what a minimal agent does when it has no finer tools. If the
summarizer answers with no text (a real model sometimes calls a tool instead), nothing is
changed and the note says so; the agent simply tries again next turn.

Left out: head and tail protection (see `summarize.py`); the newest tool results go into
the summary too.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..history import blocks
from ..summaries import build_prompt, find_summary, message_goal, summary_block, without_summaries
from ..tokens import TokenCounter
from .base import Compaction, Summarizer, measure, require_summarizer, shrunk, unchanged


@dataclass(frozen=True)
class CompactAll:
    summarizer: Summarizer | None = None
    name: str = "compact"

    def __call__(self, messages, *, budget: int, counter: TokenCounter) -> Compaction:
        before = measure(messages, counter)
        if len(messages) < 2:
            return unchanged(self.name, messages, before, "nothing after the task to compact")
        prompt = build_prompt(messages[1:], find_summary(messages), goal=message_goal(messages[0]))
        summary = (require_summarizer(self)(prompt) or "").strip()
        if not summary:
            return unchanged(self.name, messages, before,
                             "the summarizer returned no text; history unchanged, retry next turn")
        task = without_summaries(messages[0])
        out = [{"role": "user", "content": [*blocks(task), summary_block(summary, "user")]}]
        return shrunk(self.name, messages, before, out, counter, dropped=len(messages) - 1,
                      summary_prompt=prompt, summary=summary)
