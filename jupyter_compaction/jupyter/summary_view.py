"""`%summary`: the last summary prompt and the summary it produced, side by side.

Readable at a glance: the prompt's instructions (everything before its `<turns>`: the
template, the task, a previous summary) are shown in full, and each tool output inside
the turns only by its first lines, with a "show all" toggle in HTML (a `<details>`
element) and "(N more lines)" in plain text. Above them, under the title: for a bundled
scenario, the summary's recall of the scenario's must-keep facts first
(`evaluation.eval_summary`: whole facts in their own case, with what a loose match adds
beside it), then the facts that compaction dropped (`Compacted.dropped_facts`: whole IDs,
paths and figures visible before it and gone after it), the count first, grouped by kind,
each group cut to its first `SHOWN_FACTS` with a count of the rest.

Then what the simulated summarizer read in the prompt (`simulated_summary.understand`,
the same reading it writes its summaries with): how it read the turns, the instructions
it followed, and the words of the instructions it did not understand (a real model reads
the prompt itself; these lines say what the offline one does with it).

Left out: earlier summaries (pass the run's `Compacted` events to see them all).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .. import scenarios
from ..evaluation import by_kind, eval_summary
from ..events import Compacted
from ..models.simulated_summary import understand
from ..summaries import END_OF_OUTPUT
from ..tokens import TokenCounter
from .render import CELL_STYLE, PRE_STYLE, TABLE_STYLE, Rich, esc, heading, plain

SHOWN_LINES = 4  # lines of each tool output shown before "show all"
SHOWN_FACTS = 10  # dropped facts shown per kind before "… and N more"
FULL_CHARS = 20_000  # the most of one tool output (or the summary) ever shown
TURNS = "<turns>"
# One labelled tool output in the prompt (`summaries.render_transcript` writes them; a
# forged end marker inside the data has already been defused there).
TOOL_OUTPUT = re.compile(
    rf"(\[tool (?:output|error) from [^\n]*\]\n)(.*?)(?=\n{re.escape(END_OF_OUTPUT)})", re.S)
EMPTY_SUMMARY = "(empty: compaction skipped)"

Part = tuple[str, str]  # ("text", verbatim text) or ("output", one tool output's body)


def last_summary(run: Any) -> Compacted | None:
    """The newest compaction that asked for a summary."""
    found = [e for e in getattr(run, "events", []) if isinstance(e, Compacted)
             and (e.summary_prompt or e.summary)]
    return found[-1] if found else None


def recall_line(run: Any, summary: str, source: str) -> str:
    name = getattr(run, "scenario", None)
    try:
        must_keep = scenarios.load(name).must_keep if name else ()
    except KeyError:
        return ""
    if not must_keep:
        return ""
    return f"must-keep facts of {name}: {eval_summary(summary, must_keep, source)}"


def prompt_parts(prompt: str) -> list[Part]:
    """The prompt cut into verbatim text and tool outputs (only those after `<turns>`)."""
    start = prompt.find(TURNS)
    start = len(prompt) if start < 0 else start
    parts: list[Part] = [("text", prompt[:start])]
    at = start
    for match in TOOL_OUTPUT.finditer(prompt, start):
        parts += [("text", prompt[at:match.end(1)]), ("output", match.group(2))]
        at = match.end()
    parts.append(("text", prompt[at:]))
    return [p for p in parts if p[1]]


def _head(body: str) -> tuple[str, int]:
    """The first `SHOWN_LINES` lines of a tool output and how many lines are left out."""
    lines = body.split("\n")
    return "\n".join(lines[:SHOWN_LINES]), max(len(lines) - SHOWN_LINES, 0)


def prompt_text(parts: Sequence[Part]) -> str:
    out = []
    for kind, body in parts:
        if kind == "output":
            head, more = _head(body)
            body = head + (f"\n({more} more lines)" if more else "")
        out.append(plain(body, FULL_CHARS))
    return "".join(out)


def prompt_html(parts: Sequence[Part]) -> str:
    out = []
    for kind, body in parts:
        head, more = _head(body) if kind == "output" else (body, 0)
        out.append(f'<pre style="{PRE_STYLE}">{esc(head.strip(chr(10)), FULL_CHARS)}</pre>')
        if more:
            out.append(f"<details><summary>show all ({more} more lines)</summary>"
                       f'<pre style="{PRE_STYLE}">{esc(body, FULL_CHARS)}</pre></details>')
    return "".join(out)


def dropped_lines(facts: Sequence[str]) -> list[str]:
    """The dropped facts: the count first, then one line per kind, at most `SHOWN_FACTS`
    of each shown."""
    if not facts:
        return ["dropped by this compaction: nothing"]
    lines = [f"dropped by this compaction: {len(facts)} facts"]
    for kind, group in by_kind(facts).items():
        more = len(group) - SHOWN_FACTS
        rest = f" … and {more} more" if more > 0 else ""
        lines.append(f"  {kind} ({len(group)}): {', '.join(group[:SHOWN_FACTS])}{rest}")
    return lines


def reading_lines(prompt: str) -> list[str]:
    """What the simulated summarizer followed in `prompt`, and what it did not understand."""
    if not prompt:
        return []
    read = understand(prompt)
    words = ", ".join(read.not_understood) or "nothing"
    return [f"simulated summarizer followed: {'; '.join(read.followed())}",
            f"simulated summarizer did not understand: {words}"]


def view(run: Any, name: str = "_agent_run") -> Rich:
    event = last_summary(run)
    if event is None:
        kinds = sorted({e.strategy for e in getattr(run, "events", [])
                        if isinstance(e, Compacted)})
        done = f" (its compactions: {', '.join(kinds)})" if kinds else ""
        line = (f"{name} has no summary yet{done}; summaries come from --strategy summarize, "
                "compact or progressive once the context passes the trigger.")
        return Rich(line, esc(line))
    counter = TokenCounter()
    prompt, summary = event.summary_prompt or "", event.summary or ""
    p_tokens, s_tokens = counter.count_text(prompt), counter.count_text(summary)
    title = (f"{name}: summary at turn {event.turn} [{event.strategy}], "
             f"{event.tokens_before} -> {event.tokens_after} tokens of messages")
    note = f"note: {event.note}" if event.note else ""
    notes = [line for line in (recall_line(run, summary, prompt),
                               *dropped_lines(event.dropped_facts), note,
                               *reading_lines(prompt)) if line]
    parts = prompt_parts(prompt)
    p_head, s_head = f"summary prompt ({p_tokens} tokens)", f"summary ({s_tokens} tokens)"
    text = "\n".join([title, *notes, f"--- {p_head} ---", prompt_text(parts),
                      f"--- {s_head} ---", plain(summary or EMPTY_SUMMARY, FULL_CHARS)])
    cell = f'style="{CELL_STYLE}"'
    table = (f'<table style="{TABLE_STYLE}"><thead><tr><th {cell}>{esc(p_head)}</th>'
             f"<th {cell}>{esc(s_head)}</th></tr></thead><tbody><tr>"
             f"<td {cell}>{prompt_html(parts)}</td>"
             f'<td {cell}><pre style="{PRE_STYLE}">{esc(summary or EMPTY_SUMMARY, FULL_CHARS)}'
             "</pre></td></tr></tbody></table>")
    facts = "".join(f'<div style="white-space:pre-wrap">{esc(x)}</div>' for x in notes)
    return Rich(text, heading(title) + facts + table)
