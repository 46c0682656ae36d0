"""The event log: one readable line per agent event, as text or escaped HTML.

`EventLog` is a listener (`log(event)`); it keeps every line, and `html()` shows the
newest `MAX_SHOWN` of them so a live widget update stays cheap on long runs.

Left out: filtering by event kind (the lab shows everything).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..events import (
    Compacted,
    Event,
    Failed,
    Finished,
    ModelReplied,
    ToolCalled,
    ToolReturned,
    TurnStarted,
)
from .render import esc, plain

MAX_SHOWN = 300
INPUT_CHARS = 120
TEXT_CHARS = 160
LOG_STYLE = "white-space:pre-wrap;margin:0;font-size:12px;max-height:320px;overflow:auto"


def _compacted(event: Compacted) -> str:
    """One line for a compaction: sizes, what it cleared and dropped, a pipeline's steps
    (each with its effect), the facts it lost and its note."""
    line = f"compacted [{event.strategy}] {event.tokens_before} -> {event.tokens_after} tokens"
    if event.cleared or event.dropped:
        line += f"; cleared {event.cleared} results, dropped {event.dropped} messages"
    if len(event.steps) > 1:
        line += "; steps: " + ", ".join(f"{kind} {before} -> {after}"
                                         for kind, before, after in event.steps)
    if event.dropped_facts:
        line += f"; lost: {', '.join(event.dropped_facts)}"
    return line + (f"; {event.note}" if event.note else "")


def describe(event: Event) -> str:
    """One line (without the turn) for `event`: its kind's describer in `DESCRIBERS`, or
    the kind's name for an event that has none."""
    for kind, describer in DESCRIBERS.items():
        if isinstance(event, kind):
            return describer(event)
    return event.kind


def _turn_started(event: TurnStarted) -> str:
    parts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in event.parts.items())
    return f"request {event.tokens} tokens of {event.budget}" + (f" ({parts})" if parts else "")


def _model_replied(event: ModelReplied) -> str:
    calls = f", {event.tool_calls} tool calls" if event.tool_calls else ""
    return (f"model replied ({event.stop_reason}{calls}; {event.usage.total_input} in, "
            f"{event.usage.output_tokens} out)")


def _tool_called(event: ToolCalled) -> str:
    args = json.dumps(event.input, sort_keys=True, ensure_ascii=False, default=str)
    return f"-> {event.name}({plain(args, INPUT_CHARS)})" + (" [repeat]" if event.repeat else "")


def _tool_returned(event: ToolReturned) -> str:
    flags = "".join((" [error]" if event.is_error else "",
                     " [truncated]" if event.truncated else ""))
    return f"<- {event.name}: {event.tokens} tokens{flags}"


def _finished(event: Finished) -> str:
    if event.reason == "max_turns":
        return "stopped: max turns reached"
    return f"answered: {plain(event.answer, TEXT_CHARS)}"


def _failed(event: Failed) -> str:
    return f"failed ({event.reason}): {plain(event.error, None)}"


DESCRIBERS: dict[type, Callable[[Any], str]] = {
    TurnStarted: _turn_started, Compacted: _compacted, ModelReplied: _model_replied,
    ToolCalled: _tool_called, ToolReturned: _tool_returned, Finished: _finished,
    Failed: _failed}


def line(event: Event) -> str:
    return plain(f"turn {event.turn:>3}  {describe(event)}", None).replace("\n", " ")


class EventLog:
    """Collects a line per event; `text()` for all of them, `html()` for the newest."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, event: Event) -> None:
        self.lines.append(line(event))

    def clear(self) -> None:
        self.lines = []

    def text(self) -> str:
        return "\n".join(self.lines)

    def html(self, last: int = MAX_SHOWN) -> str:
        shown = self.lines[-last:]
        skipped = len(self.lines) - len(shown)
        head = f"({skipped} earlier events not shown)\n" if skipped else ""
        body = esc(head + "\n".join(shown), None) if shown else "(no events yet)"
        return f'<pre style="{LOG_STYLE}">{body}</pre>'
