"""What `%%agent` shows while a run plays: the live chart or text rows, and the event log.

`LiveView` is the listener the magic hands to the agent. In a widget frontend it
displays the `TokenChart` and an HTML event log once, then updates them in place; in
text mode it prints one `demo.TurnTable` row per turn (deterministic, diffable). With
`quiet=True` it shows nothing and only collects the log.

The widgets are drawn at most once every `DRAW_EVERY_S` seconds, and `flush()` (the magic
calls it when the run returns) draws what is left: each draw sends the whole figure and
log to the page, which renders them again, and a simulated run makes several events a
millisecond. Drawing per event cost the browser build most of a lesson's time (a
lesson-1 run: 182 s with a draw per event, 58 s with text only, on a loaded machine;
benchmarks/RESULTS.md, section 14). The log and the chart's points are recorded per
event all the same, so the last draw shows every event.

Left out: progress bars and timing (outputs must be identical between runs).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..demo import TurnTable
from ..events import Event
from .chart import TokenChart
from .event_log import EventLog
from .frontend import WidgetView

DRAW_EVERY_S = 1.0  # the widgets are drawn at most this often while a run plays


class LiveView:
    def __init__(self, *, rich: bool, quiet: bool = False,
                 write: Callable[[str], None] = print):
        self.log = EventLog()
        self.chart: TokenChart | None = None
        self.table: TurnTable | None = None
        self._log_widget: Any = None
        self._waiting: list[Event] = []  # recorded in the log, not yet on the chart
        self._drawn_at = -DRAW_EVERY_S  # so the first event is drawn at once
        if quiet:
            return
        if rich:
            import ipywidgets
            from IPython.display import display

            self.chart = TokenChart()
            self._log_widget = ipywidgets.HTML(value=self.log.html())
            box = ipywidgets.VBox([self.chart.figure, self._log_widget])
            display(WidgetView(box, "[the live token chart and event log of this run]"))
        else:
            self.table = TurnTable(write)

    def __call__(self, event: Event) -> None:
        self.log(event)
        if self.table is not None:
            self.table(event)
        if self.chart is not None:
            self._waiting.append(event)
            if time.monotonic() - self._drawn_at >= DRAW_EVERY_S:
                self.flush()

    def flush(self) -> None:
        """Draw the chart and the log with every event so far (one message each)."""
        if self.chart is None or not self._waiting:
            return
        self.chart.feed(self._waiting)
        self._waiting = []
        self._log_widget.value = self.log.html()
        self._drawn_at = time.monotonic()
