"""A summary written without a model, for the turns trimming drops when summarizing fails.

When the summary call fails, or the summarizer rests after freeing too little, the agent
trims instead, and trimming alone forgets everything it drops, even the path of a file
read in the first turn. `fallback_summary()` writes down, deterministically, what can be
read off the dropped turns exactly:

- **Files Modified**: the `path` of every call whose input also carries `content` (a
  write);
- **Tool Calls**: every call with its input (long inputs shortened, as clearing does);
- **Assistant Notes**: the first line of each thing the assistant said (its notes of what
  it found), cut to `NOTE_TOKENS`;
- **Identifiers Seen**: the IDs, paths, dates and figures (`evaluation.identifiers`) of
  the turns, tool output included, that the lines above do not already show;
- **Earlier Summary**: the text of a summary the model wrote before, kept in front of the
  new facts (a previous fallback summary is merged item by item instead).

It is bounded: items are added in that order, oldest first, while the text stays under
`limit` tokens (`FALLBACK_TOKENS`); what does not fit is counted in a last line. Secrets
are redacted (`redact.py`), in tool inputs too. `with_fallback()` puts it into a trimmed
history, in the summary role the strategy uses, where `SummarizeMiddle` puts its own.

Left out: what tool output *means* (only its identifiers are kept, never its prose),
decisions and next steps (no model reads the turns), and anything from turns that were
not dropped.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from .evaluation import by_kind, identifiers
from .history import Message, blocks, cut_points, message_text, validate
from .redact import redact
from .strategies.base import Compaction
from .strategies.clear import shrink_input
from .strategies.summary_call import cut
from .summaries import find_summary, summary_block, without_summaries
from .tokens import TokenCounter
from .vocab import call_line

FALLBACK_TOKENS = 400  # the most a fallback summary may take
NOTE_TOKENS = 60  # each assistant note is cut to this
EARLIER_SHARE = 0.5  # an earlier model-written summary keeps at most this share of the limit
WRITE_KEYS = ("path", "content")  # a call whose input has both writes a file
INTRO = "Written without a summarizer, from the trimmed turns:"
SECTIONS = ("Files Modified", "Tool Calls", "Assistant Notes", "Identifiers Seen",
            "Earlier Summary")
LEFT_OUT = "[{n} more items left out to stay under {limit} tokens]"
_HEADING = re.compile(r"^## (.+)$", re.M)


def facts_of(dropped: Sequence[Message]) -> dict[str, list[str]]:
    """The items of every section (but the earlier summary) found in `dropped`, in order."""
    items: dict[str, list[str]] = {s: [] for s in SECTIONS}
    for message in dropped:
        for block in blocks(message):
            if block.get("type") == "tool_use":
                args = block.get("input", {})
                items["Tool Calls"].append(call_line(block["name"], shrink_input(args)))
                if all(isinstance(args.get(k), str) for k in WRITE_KEYS):
                    items["Files Modified"].append(args["path"])
            elif (block.get("type") == "text" and message["role"] == "assistant"
                  and block["text"].strip()):
                items["Assistant Notes"].append(block["text"].strip().splitlines()[0])
    text = "\n".join(message_text(m) for m in dropped)
    found = sorted(identifiers(text), key=text.find)
    items["Identifiers Seen"] = [i for kind in by_kind(found).values() for i in
                                 sorted(kind, key=text.find)]
    return items


def parse(summary: str | None) -> dict[str, list[str]]:
    """The items of an earlier fallback summary; any other summary is one earlier item."""
    items: dict[str, list[str]] = {s: [] for s in SECTIONS}
    if not summary:
        return items
    if not summary.startswith(INTRO):
        items["Earlier Summary"] = [summary]
        return items
    parts = _HEADING.split(summary)
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        if name == "Earlier Summary":
            items[name] = [body.strip()] if body.strip() else []
        elif name in items:
            items[name] = [ln[2:] for ln in body.splitlines() if ln.startswith("- ")]
    return items


def fallback_summary(dropped: Sequence[Message], previous: str | None,
                     counter: TokenCounter, limit: int = FALLBACK_TOKENS) -> str:
    """The bounded, redacted summary of `dropped`, merged with the `previous` one."""
    old, new = parse(previous), facts_of(dropped)
    merged = {s: list(dict.fromkeys(old[s] + new[s])) for s in SECTIONS}
    merged["Earlier Summary"] = [cut(redact(t), int(limit * EARLIER_SHARE), counter)
                                 for t in old["Earlier Summary"]]
    lines, left = [INTRO], 0
    for section in SECTIONS:
        heading = [f"## {section}"]
        for item in merged[section]:
            item = redact(item)
            if section == "Assistant Notes":
                item = cut(item, NOTE_TOKENS, counter).replace("\n", " ")
            if section == "Identifiers Seen" and item in "\n".join(lines):
                continue  # already shown by a call, a note or a file
            line = item if section == "Earlier Summary" else f"- {item}"
            if counter.count_text("\n".join([*lines, *heading, line])) > limit:
                left += 1
                continue
            lines += [*heading, line]
            heading = []
    if left:
        lines.append(LEFT_OUT.format(n=left, limit=limit))
    return "\n".join(lines)


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
    out = [without_summaries(m) for m in trimmed.messages]
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
