"""`%summary`: the last summary prompt and the summary it produced, side by side.

Shows both texts with their token counts (HTML: a two-column table; plain text: one
after the other), the facts that compaction dropped (`Compacted.dropped_facts`: IDs,
paths and figures visible before it and gone after it) and, for a bundled scenario, the
summary's recall of the scenario's must-keep facts (`evaluation.eval_summary`).

Left out: earlier summaries (pass the run's `Compacted` events to see them all).
"""

from __future__ import annotations

from typing import Any

from .. import scenarios
from ..evaluation import eval_summary
from ..events import Compacted
from ..tokens import TokenCounter
from .render import Rich, esc, heading, html_table, plain

TEXT_CHARS = 4_000


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
    dropped = (f"dropped by this compaction ({len(event.dropped_facts)}): "
               + (", ".join(event.dropped_facts) or "nothing"))
    extra = [line for line in (recall_line(run, summary, prompt),
                               f"note: {event.note}" if event.note else "") if line]
    text = "\n".join([
        title,
        f"--- summary prompt ({p_tokens} tokens) ---", plain(prompt, TEXT_CHARS),
        f"--- summary ({s_tokens} tokens) ---", plain(summary or "(empty: compaction skipped)",
                                                       TEXT_CHARS),
        dropped, *extra])
    table = html_table((f"summary prompt ({p_tokens} tokens)", f"summary ({s_tokens} tokens)"),
                       [(prompt, summary or "(empty: compaction skipped)")],
                       pre_cells=True, limit=TEXT_CHARS)
    html_text = heading(title) + table + "".join(f"<div>{esc(x)}</div>"
                                                 for x in (dropped, *extra))
    return Rich(text, html_text)
