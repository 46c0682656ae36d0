"""The result of one `%%agent` run: the answer and the headline numbers.

Rows come from `demo.totals()` (status, turns, peak context, tokens sent, compactions,
repeated tool calls, answer), so the terminal demo and the notebook agree. A failed run
shows its one-line error and where the transcript is, never a traceback.

Left out: money (token prices depend on the model; see the benchmarks).
"""

from __future__ import annotations

from typing import Any

from ..demo import totals
from .render import Rich, esc, heading, html_table, plain

ANSWER_CHARS = 4_000


def failure_line(run: Any, name: str) -> str:
    return (f"Run failed at turn {run.turn}: {plain(run.error or 'no details', None)}. "
            f"The transcript is in {name}.transcript; %%agent --resume continues it.")


def view(run: Any, name: str = "_agent_run", also: str | None = None) -> Rich:
    rows = [(label, value) for label, value in totals(run) if label != "answer"]
    answer = plain(run.answer or "(none)", ANSWER_CHARS)
    width = max(len(label) for label, _ in rows)
    lines = ([failure_line(run, name)] if run.status == "failed" else [])
    lines += [f"{label:<{width}}  {plain(value, None)}" for label, value in rows]
    stored = f"{name} and {also}" if also else name
    lines += [f"{'answer':<{width}}  {answer}", f"(stored in {stored})"]
    html_rows = [*rows, ("answer", run.answer or "(none)")]
    head = heading(failure_line(run, name)) if run.status == "failed" else ""
    html_text = (head + html_table(("", ""), html_rows, pre_cells=True, limit=ANSWER_CHARS)
                 + f"<div>(stored in {esc(stored)})</div>")
    return Rich("\n".join(lines), html_text)
