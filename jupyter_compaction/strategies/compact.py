"""Whole-history compaction: the task plus "progress so far", nothing else.

The bluntest layer: everything after the task is summarized, and the history becomes one
user message holding the original task followed by the summary. It frees the most space
and keeps the least; it is what a minimal agent does when it has no finer tools. If the
summarizer answers with no text (a real model sometimes calls a tool instead), nothing is
changed and the note says so; an agent trims instead for that turn and asks again at its
next compaction. A long history is
summarized in chunks of at most `input_limit` tokens (`summary_call.py`); `focus` says
what the summary should keep in most detail, as Claude Code's `/compact focus` does.

Left out: head and tail protection (see `summarize.py`); the newest tool results go into
the summary too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..history import Message, blocks
from ..summaries import find_summary, message_goal, summary_block, without_summaries
from ..tokens import TokenCounter
from .base import Compaction, Summarizer, measure, require_summarizer, shrunk, unchanged
from .summary_call import SUMMARY_INPUT_TOKENS, chunk_note, summarize


@dataclass(frozen=True)
class CompactAll:
    summarizer: Summarizer | None = None
    focus: str = ""
    input_limit: int = SUMMARY_INPUT_TOKENS
    name: str = "compact"

    def __call__(self, messages: Sequence[Message], *, goal: int,
                 counter: TokenCounter) -> Compaction:
        before = measure(messages, counter)
        if len(messages) < 2:
            return unchanged(self.name, messages, before, "nothing after the task to compact")
        summary, prompts = summarize(
            require_summarizer(self), messages[1:], previous=find_summary(messages),
            goal=message_goal(messages[0]), focus=self.focus, counter=counter,
            limit=self.input_limit)
        if not summary:
            return unchanged(self.name, messages, before,
                             "the summarizer returned no text; history unchanged, retry next turn")
        task = without_summaries(messages[0])
        out = [{"role": "user", "content": [*blocks(task), summary_block(summary, "user")]}]
        return shrunk(self.name, messages, before, out, counter, dropped=len(messages) - 1,
                      summary_prompt=prompts[-1], summary=summary, note=chunk_note(prompts))
