"""Layers 2 and 3: protect a head and a tail, summarize only the middle.

The head is the task definition (the first `protect_first` messages, widened to the end
of a turn); it stays for the whole run, so a head over `HEAD_SHARE` of the goal (the
tokens the messages must fit; a first tool result that is a whole file) is cut back to
the task alone. The tail is the most
recent work, sized by a *token* budget rather than a message count (`tail_tokens`, capped
at `TAIL_SHARE` of the goal, but always the newest turn), so the same amount of recent
context survives whether the last turns were short or long. Head, tail and summary thus
fit the goal whenever the newest turn does (when the head is the task alone and it and the
summary leave the tail less room, the middle is summarized again with the tail shortened
to fit), and a compaction lands near the agent's target instead of just under its trigger.
Both boundaries fall in front of assistant messages, so no tool call is separated from its
result.

The middle goes to `summarizer(prompt) -> str` with the structured template of
`summaries.py` (in chunks of at most `input_limit` tokens, see `summary_call.py`, and with
an optional `focus`); a summary left by an earlier compaction is passed in to be updated.
The new summary is placed right after the head:
- `role="assistant"`: as the first block of the first tail message, behind the
  system-generated prefix, so the model reads it as its own note;
- `role="user"`: appended to the head's last (user) message, where it reads like a new
  request, which is the failure a lesson shows.

Left out: choosing *what* to keep inside the middle (the summarizer decides) and any
retry when the summarizer fails (the agent falls back to trimming).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..history import Message, blocks, cut_points
from ..summaries import find_summary, message_goal, summary_block, without_summaries
from ..tokens import TokenCounter
from .base import Compaction, Summarizer, measure, require_summarizer, shrunk, unchanged
from .summary_call import SUMMARY_INPUT_TOKENS, chunk_note, summarize

TAIL_SHARE = 0.5  # the tail never takes more than this share of the goal
HEAD_SHARE = 0.1  # nor the head beyond the task (it stays for the whole run)


@dataclass(frozen=True)
class SummarizeMiddle:
    summarizer: Summarizer | None = None
    protect_first: int = 3
    tail_tokens: int = 20_000
    role: str = "assistant"
    focus: str = ""
    input_limit: int = SUMMARY_INPUT_TOKENS
    name: str = "summarize"

    def boundaries(self, messages: Sequence[Message], goal: int, counter: TokenCounter
                   ) -> tuple[int, int]:
        """`(head_end, tail_start)`: the middle is `messages[head_end:tail_start]`."""
        cuts = cut_points(messages)
        head_end = next((c for c in cuts if c >= self.protect_first), len(messages))
        if sum(counter.count_message(m) for m in messages[:head_end]) > HEAD_SHARE * goal:
            head_end = next((c for c in cuts if c >= 1), len(messages))  # the task alone
        tail_budget = min(self.tail_tokens, int(goal * TAIL_SHARE))
        tail_start = cuts[-1] if cuts else len(messages)  # the newest turn always stays
        tail = sum(counter.count_message(m) for m in messages[tail_start:])
        for cut in reversed(cuts[:-1]):
            tail += sum(counter.count_message(m) for m in messages[cut:tail_start])
            if cut < head_end or tail > tail_budget:
                break
            tail_start = cut
        return head_end, max(tail_start, head_end)

    def __call__(self, messages: Sequence[Message], *, goal: int,
                 counter: TokenCounter) -> Compaction:
        before = measure(messages, counter)
        head_end, tail_start = self.boundaries(messages, goal, counter)
        if head_end == tail_start:
            return unchanged(self.name, messages, before, "the middle is empty")
        out, summary, prompts = self._replaced(messages, head_end, tail_start, counter)
        # A head that is the task alone and the summary can leave the tail less room than
        # it took: summarize again, the tail starting at the first cut that frees enough
        # (not when even the newest turn alone would not fit: a summary too long to help).
        over = counter.count(out) - goal if out else 0
        freed = {cut: sum(counter.count_message(m) for m in messages[tail_start:cut])
                 for cut in cut_points(messages) if cut > tail_start} if over > 0 else {}
        if 0 < over <= max(freed.values(), default=0):
            tail_start = min(cut for cut, tokens in freed.items() if tokens >= over)
            out, summary, prompts = self._replaced(messages, head_end, tail_start, counter)
        if not out:
            return unchanged(self.name, messages, before, "the summarizer returned no text")
        return shrunk(self.name, messages, before, out, counter,
                      dropped=tail_start - head_end, summary_prompt=prompts[-1],
                      summary=summary, note=chunk_note(prompts))

    def _replaced(self, messages: Sequence[Message], head_end: int, tail_start: int,
                  counter: TokenCounter) -> tuple[list[Message], str, list[str]]:
        """The head, the middle's summary and the tail (none without a summary), the
        summary and the prompts that asked for it."""
        summary, prompts = summarize(
            require_summarizer(self), messages[head_end:tail_start],
            previous=find_summary(messages[: tail_start + 1]), goal=message_goal(messages[0]),
            focus=self.focus, counter=counter, limit=self.input_limit)
        if not summary:
            return [], summary, prompts
        head = [without_summaries(m) for m in messages[:head_end]]
        tail = [without_summaries(m) for m in messages[tail_start:]]
        block = summary_block(summary, self.role)
        if self.role == "assistant":
            tail[0] = {**tail[0], "content": [block, *blocks(tail[0])]}
        else:
            head[-1] = {**head[-1], "content": [*blocks(head[-1]), block]}
        return head + tail, summary, prompts
