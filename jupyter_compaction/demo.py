"""The terminal demo: a scenario played turn by turn as a text table.

A listener on the agent's events prints one row per turn (tokens in context, a bar
against the budget, what happened: tool calls, repeats, compactions), then the totals.
The same rows serve as the plain-text fallback of the Jupyter layer.

Every line is printed through `redact.safe`: credentials redacted, control characters
(ANSI colours, OSC 8 links, the bell) removed, since answers and errors come from the model.

Left out: colours and cursor tricks; the output is plain text so it can be diffed.
"""

from __future__ import annotations

from collections.abc import Callable

from .agent import Run
from .events import Compacted, Event, Failed, Finished, ToolCalled, TurnStarted
from .redact import safe

BAR_WIDTH = 24
HEADER = f"{'turn':>4}  {'context':>7}  {'budget':>6}  {'':{BAR_WIDTH}}  event"


def bar(tokens: int, budget: int, width: int = BAR_WIDTH) -> str:
    """`####....|` : filled up to the budget, `!` past it."""
    filled = min(round(width * tokens / budget), width) if budget else 0
    return "#" * filled + "." * (width - filled) + ("!" if tokens > budget else "|")


class TurnTable:
    """Collect events and print a row per turn through `write` (made safe: the tool names
    and errors in a row come from the model and its tools)."""

    def __init__(self, write: Callable[[str], None] = print):
        self._write = write
        self.pending: TurnStarted | None = None
        self.notes: list[str] = []
        self.write(HEADER)

    def write(self, row: str) -> None:
        self._write(safe(row))

    def __call__(self, event: Event) -> None:
        if isinstance(event, Compacted):  # it happens before the turn it belongs to
            self.flush()
            self.notes.append(f"compacted[{event.strategy}] {event.tokens_before}->"
                              f"{event.tokens_after}")
        elif isinstance(event, TurnStarted):
            if self.pending:
                self.flush()
            self.pending = event
        elif isinstance(event, ToolCalled):
            self.notes.append(f"{event.name}{' (repeat)' if event.repeat else ''}")
        elif isinstance(event, Finished | Failed):
            self.notes.append("answered" if isinstance(event, Finished) and event.reason ==
                              "end_turn" else f"stopped: {getattr(event, 'error', event.reason)}")
            self.flush()

    def flush(self) -> None:
        if self.pending is None:
            if self.notes:
                self.write(f"{'':>4}  {'':>7}  {'':>6}  {'':{BAR_WIDTH + 1}}  "
                           + ", ".join(self.notes))
                self.notes = []
            return
        e = self.pending
        self.write(f"{e.turn:>4}  {e.tokens:>7}  {e.budget:>6}  {bar(e.tokens, e.budget)}  "
                   + ", ".join(self.notes))
        self.pending, self.notes = None, []


def totals(run: Run) -> list[tuple[str, str]]:
    """The run's headline numbers, as (label, value) rows."""
    over = sum(e.tokens > e.budget for e in run.of(TurnStarted))
    stuck = any(e.reason == "stuck" for e in run.of(Failed))
    return [
        ("status", run.status + (f" ({run.error_line})" if run.error_line else "")),
        *([("outcome", run.outcome)] if run.outcome else []),
        *([("question", run.question)] if run.question else []),
        ("turns", str(run.turn)),
        ("peak context", f"{run.peak_context} tokens" + (f", over budget on {over} turns"
                                                           if over else "")
         + ("; the largest request sent: the context it stopped at was never sent"
            if stuck else "")),
        ("tokens sent", f"{run.tokens_sent} (all calls, summaries included)"),
        ("compactions", str(len(run.compactions))
         + (" done; the stuck attempt that ended the run is not counted" if stuck else "")),
        ("repeated tool calls", f"{run.repeats} (re-reads and repeated lookups)"),
        ("answer", (run.answer or "(none)").strip()),
    ]


def print_totals(run: Run, write: Callable[[str], None] = print) -> None:
    width = max(len(label) for label, _ in totals(run))
    write("")
    for label, value in totals(run):
        write(f"{label:<{width}}  {safe(value)}")
