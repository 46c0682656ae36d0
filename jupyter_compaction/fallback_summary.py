"""A summary written without a model, for the turns trimming drops when summarizing fails.

When the summary call fails, or the summarizer rests after freeing too little, the agent
trims instead, and trimming alone forgets everything it drops, even the path of a file
read in the first turn. `fallback_summary()` writes down, deterministically, what can be
read off the dropped turns exactly:

- **Files Modified**: the `path` of every call whose input also carries `content` (a
  write);
- **Tool Calls**: every call with its input (long inputs shortened, as clearing does),
  but the task-state and notes tools' (what they record is in the system prompt or the
  notes file already);
- **Assistant Notes**: the first line of each thing the assistant said (its notes of what
  it found); a line over `NOTE_TOKENS` is left out whole, since a cut note would state a
  wrong fact (a list without its end);
- **Identifiers Seen**: the IDs and paths (`evaluation.identifiers`; bare figures and
  dates are too many to keep) of the turns, tool output included, that the lines above
  do not already show.

An earlier summary is merged, so facts are not lost from one fallback to the next: a
previous fallback summary item by item, a summary the model wrote as quoted lines in front
(`Earlier Summary`, at most `EARLIER_SHARE` of the limit). The summary is bounded: lines
are added in that order, oldest first (a fact seen early is needed the longest), while
the text stays under `limit` tokens (`FALLBACK_TOKENS`); what does not fit is counted in
a last line. Secrets are redacted (`redact.py`), in tool inputs too. `with_fallback()`
puts it into a trimmed history, in the summary role the strategy uses, where
`SummarizeMiddle` puts its own.

Left out: what tool output *means* (only its identifiers are kept, never its prose),
decisions and next steps beyond what the assistant wrote (no model reads the turns), and
anything from turns that were not dropped.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from .evaluation import by_kind, identifiers
from .history import Message, blocks, cut_points, message_text, validate
from .models.asked import asking_summary
from .redact import redact
from .strategies.base import Compaction
from .strategies.clear import shrink_input
from .summaries import find_summary, is_summary, summary_block, without_summaries
from .tokens import TokenCounter
from .vocab import READ_NOTES, STATE_TOOLS, WRITE_NOTE, call_line

FALLBACK_TOKENS = 400  # the most a fallback summary may take
NOTE_TOKENS = 80  # a longer assistant note is left out
EARLIER_SHARE = 0.5  # an earlier model-written summary keeps at most this share of the limit
WRITE_KEYS = ("path", "content")  # a call whose input has both writes a file
BOOKKEEPING = (*STATE_TOOLS, WRITE_NOTE, READ_NOTES)  # their records live elsewhere
INTRO = "Written without a summarizer, from the trimmed turns:"
SECTIONS = ("Earlier Summary", "Files Modified", "Assistant Notes", "Tool Calls",
            "Identifiers Seen")
QUOTE = "> "  # how an earlier model-written summary's lines are kept
LEFT_OUT = "[{n} more items left out to stay under {limit} tokens]"
_HEADING = re.compile(r"^## (.+)$", re.M)


def facts_of(dropped: Sequence[Message]) -> dict[str, list[str]]:
    """The items of every section (but the earlier summary) found in `dropped`, in order."""
    items: dict[str, list[str]] = {s: [] for s in SECTIONS}
    for message in dropped:
        for block in blocks(message):
            if block.get("type") == "tool_use" and block["name"] not in BOOKKEEPING:
                args = block.get("input", {})
                items["Tool Calls"].append(call_line(block["name"], shrink_input(args)))
                if all(isinstance(args.get(k), str) for k in WRITE_KEYS):
                    items["Files Modified"].append(args["path"])
            elif (block.get("type") == "text" and message["role"] == "assistant"
                  and block["text"].strip() and not is_summary(block["text"])):
                items["Assistant Notes"].append(block["text"].strip().splitlines()[0])
    text = redact("\n".join(message_text(m) for m in dropped))  # an unlabelled PEM body or
    kinds = by_kind(identifiers(text))  # AWS secret would be read as a path
    items["Identifiers Seen"] = sorted(kinds.get("ids", []) + kinds.get("paths", []),
                                       key=text.find)
    return items


def parse(summary: str | None) -> dict[str, list[str]]:
    """The items of an earlier fallback summary; any other summary's lines are earlier
    items."""
    items: dict[str, list[str]] = {s: [] for s in SECTIONS}
    if not summary:
        return items
    if not summary.startswith(INTRO):
        items["Earlier Summary"] = [ln for ln in summary.splitlines() if ln.strip()]
        return items
    parts = _HEADING.split(summary)
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        mark = QUOTE if name == "Earlier Summary" else "- "
        if name in items:
            items[name] = [ln[len(mark):] for ln in body.splitlines() if ln.startswith(mark)]
    return items


def fallback_summary(dropped: Sequence[Message], previous: str | None,
                     counter: TokenCounter, limit: int = FALLBACK_TOKENS) -> str:
    """The bounded, redacted summary of `dropped`, merged with the `previous` one."""
    old, new = parse(previous), facts_of(dropped)
    merged = {s: list(dict.fromkeys(old[s] + new[s])) for s in SECTIONS}
    lines, left = [INTRO], 0
    full = limit - counter.count_text("\n" + LEFT_OUT.format(n=10**6, limit=limit))
    for section in SECTIONS:
        heading, room = [f"## {section}"], full
        if section == "Earlier Summary":
            room = counter.count_text(INTRO) + int(limit * EARLIER_SHARE)
        for item in (redact(i) for i in merged[section]):
            if section == "Identifiers Seen" and _shown(item, "\n".join(lines)):
                continue  # already shown by a call, a note or a file
            line = (QUOTE if section == "Earlier Summary" else "- ") + item
            too_long = section == "Assistant Notes" and counter.count_text(item) > NOTE_TOKENS
            if too_long or counter.count_text("\n".join([*lines, *heading, line])) > room:
                left += 1
                continue
            lines += [*heading, line]
            heading = []
    if left:
        lines.append(LEFT_OUT.format(n=left, limit=limit))
    return "\n".join(lines)


def _shown(identifier: str, text: str) -> bool:
    """`identifier` in `text` as a whole token (ORD-10 is not shown by ORD-1042)."""
    return re.search(rf"(?<![\w-]){re.escape(identifier)}(?![\w-])", text) is not None


def with_fallback(before: Sequence[Message], trimmed: Compaction, counter: TokenCounter,
                  role: str, limit: int = FALLBACK_TOKENS) -> Compaction:
    """`trimmed` (a `TrimTurns` result on `before`, task kept) with a fallback summary of
    the turns it dropped, in `role`; `trimmed` itself when it dropped nothing or the
    summary would not make the history smaller."""
    if not trimmed.dropped:
        return trimmed
    head = next((c for c in cut_points(before) if c >= 1), len(before))
    dropped = before[head:head + trimmed.dropped]
    text = fallback_summary(dropped, find_summary(before), counter, limit)
    keep = asking_summary(trimmed.messages)  # the summary that alone states the question
    out = [without_summaries(m, keep=keep) for m in trimmed.messages]
    block = summary_block(text, role)
    if role == "assistant" and head < len(out):
        out[head] = {**out[head], "content": [block, *blocks(out[head])]}
    else:
        out[head - 1] = {**out[head - 1], "content": [*blocks(out[head - 1]), block]}
    validate(out)
    after = counter.count(out)
    if after >= trimmed.tokens_before:
        return trimmed
    return dataclasses.replace(trimmed, messages=out, tokens_after=after, summary=None,
                               note="a fallback summary keeps the trimmed turns' calls, "
                                    "files and identifiers")
