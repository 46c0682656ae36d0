"""`%context`: the live messages of a run, one row each, optionally with their text.

A row shows the message's index, role, block kinds (e.g. "text, tool_use x2"), its
tokens, and a marker: "task" for message 0, "summary" for a compaction summary,
"cleared N" for tool results whose content was replaced by the placeholder, "usage line
N tok" for a message that ends with the context-usage line the model was shown. With
`full=True` each row also carries the message text (escaped in HTML, truncated with a
visible "… N more characters"). Under the title, a line compares the last request's two
sizes: "local N, reported M, ratio r", the local count against the input tokens the
model's API reported for it, and their running ratio (`usage_anchor.py`). When the agent
cut tool results to its result cap (the `result_cap` setting: a share of the budget, read
back from the longest cut result the transcript kept), a line per
cut result names the turn and the call and says how many characters were left out (and
about how many tokens, at `CHARS_PER_TOKEN`), read from the transcript, which keeps each
result as the model first saw it.

Left out: editing the context by hand; the transcript (`run.transcript`) is not shown.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..asked_compaction import USAGE_LINE
from ..events import ToolReturned, TurnStarted
from ..history import Message, block_text, blocks
from ..strategies import PLACEHOLDER
from ..summaries import is_summary
from ..tokens import CHARS_PER_TOKEN, TokenCounter
from ..tools import cut_chars, kept_chars
from .render import Rich, esc, heading, html_table, plain, text_table

FULL_CHARS = 600  # per message, with --full
CALL_CHARS = 120  # of a cut tool call, as shown
HEADERS = ("#", "role", "blocks", "tokens", "marker")


@dataclass(frozen=True)
class Row:
    index: int
    role: str
    kinds: str
    tokens: int
    marker: str
    text: str


@dataclass(frozen=True)
class Cut:
    """One tool result the agent cut to its result cap."""

    turn: int
    call: str  # e.g. "read_file(path='a.py')"
    chars: int  # characters left out
    kept: int  # characters the model saw


def kinds(message: Message) -> str:
    counts = Counter(b.get("type", "?") for b in blocks(message))
    return ", ".join(k if n == 1 else f"{k} x{n}" for k, n in counts.items())


def marker(index: int, message: Message) -> str:
    parts = blocks(message)
    marks = ["task"] if index == 0 else []
    if any(b.get("type") == "text" and is_summary(b.get("text", "")) for b in parts):
        marks.append("summary")
    cleared = sum(b.get("type") == "tool_result" and b.get("content") == PLACEHOLDER
                  for b in parts)
    if cleared:
        marks.append(f"cleared {cleared}")
    return ", ".join(marks)


def usage_mark(message: Message, counter: TokenCounter) -> str:
    """"usage line N tok" when the message ends with the context-usage line the model was
    shown (`asked_compaction.py`): what that line costs ('' otherwise)."""
    lines = [b["text"] for b in blocks(message)
             if b.get("type") == "text" and USAGE_LINE.fullmatch(b.get("text", ""))]
    return f"usage line {sum(counter.count_text(t) for t in lines)} tok" if lines else ""


def rows(run: Any, counter: TokenCounter | None = None) -> list[Row]:
    counter = counter or TokenCounter()
    return [Row(i, m["role"], kinds(m), counter.count_message(m),
                ", ".join(x for x in (marker(i, m), usage_mark(m, counter)) if x),
                "\n".join(block_text(b) for b in blocks(m)))
            for i, m in enumerate(run.messages)]


def summary_line(run: Any, table: list[Row]) -> str:
    return (f"{len(table)} live messages, {sum(r.tokens for r in table)} tokens "
            f"(the transcript keeps all {len(run.transcript)})")


def usage_line(run: Any) -> str:
    """The last request, counted locally and by the model's API ("" for a run without)."""
    anchor = getattr(run, "anchor", None)
    return f"last request: {anchor.line()}" if anchor is not None else ""


def call_text(block: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in block.get("input", {}).items())
    return f"{block.get('name', '?')}({args})"


def cuts(run: Any) -> list[Cut]:
    """The tool results of `run` that were cut to the result cap, oldest first."""
    turns = {e.id: e.turn for e in run.events if isinstance(e, ToolReturned)}
    calls = {b["id"]: call_text(b) for m in run.transcript for b in blocks(m)
             if b.get("type") == "tool_use"}
    return [Cut(turns.get(b["tool_use_id"], 0), calls.get(b["tool_use_id"], "?"), chars,
                kept_chars(b["content"]))
            for m in run.transcript for b in blocks(m)
            if b.get("type") == "tool_result" and isinstance(b.get("content"), str)
            and (chars := cut_chars(b["content"]))]


def cut_lines(run: Any) -> list[str]:
    """A line on the result cap, then one per cut result ([] when nothing was cut)."""
    found = cuts(run)
    if not found:
        return []
    budget = max((e.budget for e in run.events if isinstance(e, TurnStarted)), default=0)
    cap = max(c.kept for c in found) // CHARS_PER_TOKEN  # the longest kept is the cap
    share = f"{cap / budget:.0%} of the budget of {budget}: " if budget else ""
    return ([f"{len(found)} tool result{'s' if len(found) > 1 else ''} cut to the result cap "
             f"({share}{cap} tokens, {cap * CHARS_PER_TOKEN} characters):"]
            + [f"  turn {c.turn} {plain(c.call, CALL_CHARS)}: {c.chars} characters cut "
               f"(about {c.chars // CHARS_PER_TOKEN} tokens)" for c in found])


def view(run: Any, name: str = "_agent_run", full: bool = False) -> Rich:
    table = rows(run)
    title, usage = f"{name}: {summary_line(run, table)}", usage_line(run)
    notes = [line for line in (usage, *cut_lines(run)) if line]
    head = HEADERS + (("text",) if full else ())

    def cells(r: Row) -> tuple[object, ...]:
        return (r.index, r.role, r.kinds, r.tokens, r.marker) + ((r.text,) if full else ())

    text_rows = [cells(r)[:5] for r in table]
    text = "\n".join((title, *notes, text_table(HEADERS, text_rows)))
    if full:
        text += "\n" + "\n".join(
            f"\n--- [{r.index}] {r.role} ({r.tokens} tokens) ---\n{plain(r.text, FULL_CHARS)}"
            for r in table)
    html_text = (heading(title) + "".join(f"<div>{esc(n)}</div>" for n in notes)
                 + html_table(head, [cells(r) for r in table], pre_cells=full,
                              limit=FULL_CHARS))
    return Rich(text, html_text)
