"""Compaction the model asks for: a line that says how full the context is, a `compact` tool.

Usually the loop decides when to compact (`Settings.trigger`). Claude Code, Hermes and
learn-claude-code also let the *model* see how full its context is and ask for a
compaction itself. Two opt-in knobs do that here:

- `usage_line`: after each round of tool results the agent adds one text line to that
  user message, `[context usage: 14,210 of 20,000 tokens (71%)]`, so the model reads its
  own fill level (it is part of the messages: it costs tokens, shows in `%context`, and
  the newest one is what a model reads);
- `compact_at`: offer the `compact` tool, and end the line with the share past which the
  model should call it (`; call compact past 70%`). Calling it with a `focus` asks the
  agent to compact before the next turn with its configured strategy and that focus,
  through the same steps, events, session store and stuck rules as an automatic
  compaction (`Compactor.compact_now`).
The request is the run's (`Run.asked`): a run that ends before honouring it leaves it to
its own `resume()`, never to the agent's next run.

Left out: a token count in the model's own tokenizer (the line shows the agent's local
count) and a reminder that grows more urgent as the context fills.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .hooks import Feature, Stop
from .tokens import TokenCounter
from .vocab import COMPACT_TOOL

if TYPE_CHECKING:
    from .compactor import Compactor
    from .run import Run

_LINE = "[context usage: {used:,} of {budget:,} tokens ({share}%){advice}]"
_ADVICE = "; call compact past {at}%"
USAGE_LINE = re.compile(r"^\[context usage: ([\d,]+) of ([\d,]+) tokens \((\d+)%\)"
                        r"(?:; call compact past (\d+)%)?\]$", re.M)


def usage_line(used: int, budget: int, compact_at: float | None = None) -> str:
    """The line that tells the model how full its context is (and when to compact)."""
    advice = _ADVICE.format(at=round(compact_at * 100)) if compact_at is not None else ""
    return _LINE.format(used=used, budget=budget, share=round(100 * used / budget),
                        advice=advice)


def read_usage_line(text: str) -> tuple[int, int | None] | None:
    """(share used in %, share to compact past in % or None) of the last line in `text`."""
    found = list(USAGE_LINE.finditer(text))
    if not found:
        return None
    share, at = found[-1].group(3), found[-1].group(4)
    return int(share), int(at) if at else None


def compact_tool(ask: Callable[[str], None]) -> Callable[..., str]:
    """The `compact` tool: `ask(focus)` records the request; the loop compacts next turn."""

    def compact(focus: str = "") -> str:
        """Compact your context before your next turn (older turns are summarized or
        dropped); `focus` names what to keep in most detail."""
        ask(focus if isinstance(focus, str) else str(focus))
        return "Compaction requested: it runs before your next turn."

    compact.__name__ = COMPACT_TOOL
    return compact


class AskedCompaction(Feature):
    """The `compact` tool, and the compaction it asks for before the run's next request."""

    def __init__(self, compactor: Compactor):
        self.compactor = compactor

    def tools(self, run: Run) -> list[Callable[..., Any]]:
        return [compact_tool(lambda focus: setattr(run, "asked", focus))]

    def before_request(self, run: Run, schemas: list[dict[str, Any]], overhead: int
                       ) -> Stop | None:
        if run.asked is None:
            return None
        focus, run.asked = run.asked, None
        return self.compactor.compact_now(run, schemas, overhead, focus=focus).stop


class UsageLine(Feature):
    """The context-usage line after each round of tool results (and, with `compact_at`,
    when to call `compact`), in the agent's local count of the next request."""

    def __init__(self, counter: TokenCounter, compactor: Compactor, compact_at: float | None):
        self.counter, self.compactor, self.compact_at = counter, compactor, compact_at

    def after_tools(self, run: Run, results: list[dict[str, Any]],
                    schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        used = (self.counter.count([], run.system, schemas) + run.tokens(self.counter).total
                + self.counter.count_message({"role": "user", "content": results}))
        return [{"type": "text",
                 "text": usage_line(used, self.compactor.budget, self.compact_at)}]
