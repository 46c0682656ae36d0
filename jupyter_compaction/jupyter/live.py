"""What `%%agent` shows while a run plays: the live chart or text rows, and the event log.

`LiveView` is the listener the magic hands to the agent. In a widget frontend it
displays the `TokenChart` and an HTML event log once, then updates them in place; in
text mode it prints one `demo.TurnTable` row per turn (deterministic, diffable). With
`quiet=True` it shows nothing and only collects the log.

Left out: progress bars and timing (outputs must be identical between runs).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..demo import TurnTable
from ..events import Event
from .chart import TokenChart
from .event_log import EventLog
from .frontend import WidgetView


class LiveView:
    def __init__(self, *, rich: bool, quiet: bool = False,
                 write: Callable[[str], None] = print):
        self.log = EventLog()
        self.chart: TokenChart | None = None
        self.table: TurnTable | None = None
        self._log_widget: Any = None
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
            self.chart(event)
            self._log_widget.value = self.log.html()
