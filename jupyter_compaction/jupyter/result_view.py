"""The result of one `%%agent` run: the answer and the headline numbers.

Rows come from `demo.totals()` (status, outcome against the workspace's truth, turns,
peak context, tokens sent, compactions, repeated tool calls, answer), so the terminal
demo and the notebook agree. A failed run shows its one-line error and where the
transcript is, never a traceback; a task outside the simulated model's scope gets one
line with the words it did not understand, the two nearest tasks it can do and how to use
a real model; a task it understood shows the question it answered, next to the outcome.

Left out: money (token prices depend on the model; see the benchmarks).
"""

from __future__ import annotations

from typing import Any

from .. import scenarios
from ..demo import totals
from .render import Rich, esc, heading, html_table, plain

ANSWER_CHARS = 4_000
REAL_MODEL = "claude-haiku-4-5"  # the model the hint names (any Claude id works)


def failure_line(run: Any, name: str) -> str:
    why = getattr(run, "error_line", None) or run.error or "no details"
    return (f"Run failed at turn {run.turn}: {plain(why, None)}. "
            f"The transcript is in {name}.transcript; %%agent --resume continues it.")


def unsupported_line(run: Any) -> str:
    """The words the simulated model did not understand, the two nearest tasks it can do,
    and how to ask a real model."""
    names = scenarios.names()
    scenario = scenarios.load(run.scenario if run.scenario in names else names[0])
    words, near = scenario.not_understood(run.task or "")
    asks = near if len(near) == 2 else (scenario.questions[-1], scenario.questions[0])
    examples = " or ".join(f'"{q.example}"' for q in asks)
    unknown = f" (not understood: {', '.join(words)})" if words else ""
    return (f"Out of the offline model's scope{unknown}. Try {examples}; or run any task on "
            f"a real model: %%agent --model {REAL_MODEL} (needs ANTHROPIC_API_KEY).")


def view(run: Any, name: str = "_agent_run", also: str | None = None) -> Rich:
    rows = [(label, value) for label, value in totals(run) if label != "answer"]
    answer = plain(run.answer or "(none)", ANSWER_CHARS)
    width = max(len(label) for label, _ in rows)
    lines = ([failure_line(run, name)] if run.status == "failed" else [])
    lines += [unsupported_line(run)] if run.status == "unsupported" else []
    lines += [f"{label:<{width}}  {plain(value, None)}" for label, value in rows]
    stored = f"{name} and {also}" if also else name
    lines += [f"{'answer':<{width}}  {answer}", f"(stored in {stored})"]
    html_rows = [*rows, ("answer", run.answer or "(none)")]
    head = heading(failure_line(run, name)) if run.status == "failed" else ""
    head += heading(unsupported_line(run)) if run.status == "unsupported" else ""
    html_text = (head + html_table(("", ""), html_rows, pre_cells=True, limit=ANSWER_CHARS)
                 + f"<div>(stored in {esc(stored)})</div>")
    return Rich("\n".join(lines), html_text)
