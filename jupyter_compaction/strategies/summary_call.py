"""Asking the summarizer: a bounded prompt in, a clean summary out.

Both summarizing strategies (`summarize`, `compact`) go through `summarize()`:

- **Bounded input.** No prompt is longer than `limit` tokens (`SUMMARY_INPUT_TOKENS` by
  default, well under a summarizer's window). A longer middle is split into chunks of
  whole turns, oldest first; each chunk is summarized with the summary so far as the
  "previous summary" (the incremental prompt of `summaries.py`), so the last answer
  covers all of them. A single turn too big for a chunk on its own is cut: each of its
  texts keeps its beginning and a note says how many tokens were left out, and long tool
  inputs are shortened as `ClearToolResults(clear_inputs=True)` does. The task and the
  previous summary are cut the same way when they exceed `CONTEXT_SHARE` of the limit.
- **Clean output.** An answer that echoes the summary prefix has it removed (the
  strategies add it once), and secrets are redacted (`redact.py`), as in the prompt.

Left out: running chunks in parallel (each needs the summary of the ones before it).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..history import Message, block_text, blocks, result_text
from ..redact import redact
from ..summaries import build_prompt, is_summary, render_transcript, strip_prefix
from ..tokens import TokenCounter
from .base import Summarizer
from .clear import shrink_input

SUMMARY_INPUT_TOKENS = 32_000  # the most one summary prompt may hold
CONTEXT_SHARE = 0.2  # the task and the previous summary each get at most this share
MARGIN = 64  # tokens kept free for joins and the notes that cuts add
CUT_NOTE = "[... {n} more tokens left out of the summary prompt]"
TOKEN_CHARS_MAX = 128  # no o200k_base or cl100k_base token is longer than this


def clean(answer: str | None) -> str:
    """The summarizer's answer without echoed prefixes or secrets ("" for no text)."""
    text = (answer or "").strip()
    while is_summary(text):
        text = strip_prefix(text)
    return redact(text)


def over(text: str, tokens: int, counter: TokenCounter) -> bool:
    """Whether `text` holds more than `tokens` tokens; a text with more characters than
    that many of the longest tokens could hold is over without being tokenized."""
    return len(text) > tokens * TOKEN_CHARS_MAX or counter.count_text(text) > tokens


def cut(text: str, tokens: int, counter: TokenCounter) -> str:
    """`text` if it fits in `tokens`, else its first tokens and a note on what was left.
    Only a prefix of a long text is tokenized to find where to cut it."""
    total = counter.count_text(text)
    if total <= tokens:
        return text
    keep = max(tokens - 16, 0)  # room for the note itself
    chars = (keep + 1) * 8
    ids = counter.encoding.encode(text[:chars], disallowed_special=())
    while len(ids) <= keep and chars < len(text):
        chars *= 2
        ids = counter.encoding.encode(text[:chars], disallowed_special=())
    return counter.encoding.decode(ids[:keep]) + "\n" + CUT_NOTE.format(n=total - keep)


def _cut_block(block: dict, tokens: int, counter: TokenCounter) -> dict:
    kind = block.get("type")
    if kind == "text" and not is_summary(block["text"]):
        return {**block, "text": cut(block["text"], tokens, counter)}
    if kind == "tool_use":
        return {**block, "input": shrink_input(block.get("input", {}))}
    if kind == "tool_result":
        return {**block, "content": cut(result_text(block), tokens, counter)}
    return block


def _turns(middle: Sequence[Message]) -> list[list[Message]]:
    """The middle in groups that each start at an assistant message (the first may not)."""
    groups: list[list[Message]] = []
    for message in middle:
        if not groups or message["role"] == "assistant":
            groups.append([])
        groups[-1].append(message)
    return groups


def _too_long(messages: Sequence[Message], tokens: int) -> bool:
    """Whether the texts of `messages` alone hold more than `tokens` tokens for certain (no
    rendering, no tokenizing: a giant tool output is never copied to find out)."""
    chars = sum(len(block_text(b)) for m in messages for b in blocks(m))
    return chars > tokens * TOKEN_CHARS_MAX


def _size(group: Sequence[Message], counter: TokenCounter, room: int) -> int:
    """Tokens of `group` as a transcript (+1: the newline joining groups); `room + 1` for
    one too long to fit `room`, without tokenizing it."""
    if _too_long(group, room):
        return room + 1
    text = render_transcript(group)
    if len(text) > room * TOKEN_CHARS_MAX:
        return room + 1
    return counter.count_text(text) + 1


def _fit(group: list[Message], room: int, counter: TokenCounter) -> list[Message]:
    """`group` with its texts cut until it renders within `room` tokens."""
    per_block = max(room // max(sum(len(blocks(m)) for m in group), 1), 1)
    while True:
        fitted = [{**m, "content": [_cut_block(b, per_block, counter) for b in blocks(m)]}
                  for m in group]
        if _size(fitted, counter, room) <= room or per_block == 1:
            return fitted
        per_block //= 2


def _take(groups: list[list[Message]], room: int, counter: TokenCounter
          ) -> tuple[list[Message], list[list[Message]]]:
    """The oldest groups that fit in `room` tokens (at least one, cut to fit), and the rest."""
    chunk: list[Message] = []
    used, taken = 0, 0
    for group in groups:
        size = _size(group, counter, room)
        if used + size > room:
            break
        chunk += group
        used += size
        taken += 1
    if not taken:
        return _fit(groups[0], room, counter), groups[1:]
    return chunk, groups[taken:]


def chunk_note(prompts: Sequence[str]) -> str:
    """What a compaction's note says about how its summary was asked for."""
    return f"summarized in {len(prompts)} chunks" if len(prompts) > 1 else ""


def summarize(summarizer: Summarizer, middle: Sequence[Message], *, previous: str | None,
              goal: str, focus: str, counter: TokenCounter,
              limit: int = SUMMARY_INPUT_TOKENS) -> tuple[str, list[str]]:
    """`(summary, prompts)` for `middle`: one prompt per chunk, each within `limit` tokens.

    The summary is "" when any answer had no text (the strategy then changes nothing)."""
    if not _too_long(middle, limit):
        whole = build_prompt(middle, previous, goal, focus)
        if not over(whole, limit, counter):  # the usual case: one prompt, nothing cut
            return clean(summarizer(whole)), [whole]
    share = int(limit * CONTEXT_SHARE)
    goal = cut(goal, share, counter)
    summary = cut(previous, share, counter) if previous else previous
    groups, prompts = _turns(middle), []
    while groups:
        room = limit - MARGIN - counter.count_text(build_prompt([], summary, goal, focus))
        chunk, groups = _take(groups, room, counter)
        prompts.append(build_prompt(chunk, summary, goal, focus))
        summary = clean(summarizer(prompts[-1]))
        if not summary:
            return "", prompts
        summary = cut(summary, share, counter) if groups else summary
    return summary or "", prompts
