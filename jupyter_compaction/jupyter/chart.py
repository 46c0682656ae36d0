"""The live token chart: tokens per turn, stacked by part, against the budget.

`TokenChart` is an event listener (`chart(event)`). Each `TurnStarted` adds one point to
four stacked areas (system prompt and tools, messages, tool results, summary, from
`TurnStarted.parts`) and moves the budget and trigger lines; each `Compacted` adds a
marker at the size the request had before it (its legend entry says so), whose hover text
says which strategy ran and how many tokens it took the messages from and to (`Compacted`
counts the messages only; the marker adds the system prompt and tools so it sits on top
of the stack). A compaction made of several steps (`progressive`'s pipeline: clear,
summarize, trim, in `Compacted.steps`) also draws each step, at its turn, as a tick at
the request's size after that step, labelled with the step's kind and hovering its
effect (tokens before and after), so a learner sees which step did the work; its hover
text and its row in `text()` list the steps too. Each `ModelReplied` whose usage reports
input tokens adds a point to a
dotted line beside the stack: the request's size as the model's API counted it, where the
stack is the local count. The line is drawn only when some turn's reported count differs
from the local count by more than `SAME_COUNT_SHARE` of it; otherwise (the simulated
model reports the local count) it would hide on the top of the stack, so it is left out
and the chart's caption (its subtitle) says the two are equal; a report that changes
nothing drawn (the line hidden, the caption as it was) does not draw the figure again.

The figure is drawn by plotly's own renderer for notebook outputs (the
`application/vnd.plotly.v1+json` output, which JupyterLab, Notebook and JupyterLite load
with the page) inside an `ipywidgets.Output` (`figure_output`); each update draws it again
from the current figure. plotly's `FigureWidget` is not used: it is an anywidget whose
5 MB module must load within anywidget's fixed 2-second limit, and on a busy or slow
machine (a classroom laptop, a loaded CI runner) it does not, leaving an empty chart. The
Output widget's outputs live in the kernel, so a view created later (a reloaded page, a
reconnected frontend, a second display) draws every point and the title.

The figure (`.figure`) is built on first use, so a chart that is only read as text
(`.text()`) never imports plotly. Each update changes the traces inside one
`fig.batch_update()` and sends the figure once; its size grows with the points (see
`benchmarks/bench_chart.py` for the cost at 10 and at 1,000 turns). Trace `uid`s are
fixed names, so nothing random appears in any output.

Left out: dollar costs (see the benchmarks) and per-message detail (see `%context`).
"""

from __future__ import annotations

import functools
import html
import json
from collections.abc import Iterable
from importlib import resources
from typing import Any

from ..demo import bar
from ..events import Compacted, Event, ModelReplied, TurnStarted
from .render import text_table

PARTS = ("system", "messages", "tool_results", "summary")
PART_LABELS = {"system": "system + tools", "messages": "messages",
               "tool_results": "tool results", "summary": "summary"}
PART_COLORS = {"system": "#9e9e9e", "messages": "#4c78a8", "tool_results": "#f58518",
               "summary": "#54a24b"}
BUDGET_COLOR, TRIGGER_COLOR, MARK_COLOR = "#d62728", "#ff9896", "#000000"
TARGET_COLOR, REPORTED_COLOR, STEP_COLOR = "#2ca02c", "#7f7f7f", "#6a3d9a"
UIDS = (*(f"part-{p}" for p in PARTS), "budget", "trigger", "target", "reported",
        "steps", "compactions")  # the markers last: drawn on top
REPORTED_LABEL = "reported by the model's API"
MARK_LABEL = "compaction (drawn at the request's size before it)"  # why a mark sits where
STEP_LABEL = "pipeline step (drawn at the request's size after it)"
SAME_COUNT_SHARE = 0.01  # a reported count within 1 % of the local count is the same count
SAME_CAPTION = "{label} = local count on every turn (line not drawn)"
TITLE = "Tokens in each request"
HEIGHT = 380
TOP_MARGIN = 70  # room for the title and its caption
PLOTLY_MIME = "application/vnd.plotly.v1+json"


def figure_output(data: list[Any], layout: dict[str, Any]) -> Any:
    """An `ipywidgets.Output` that shows a plotly figure of `data` and `layout`.

    The figure is `.fig` (its `.data`, `.layout` and `batch_update()` are offered on the
    widget too); `redraw()` shows it again after a change. A template named in `layout`
    ("plotly_white") goes into the output as plotly's own JSON file of it, not into `.fig`:
    building and validating it as an object was half the first figure's cost (seconds
    in the browser build's kernel), and the JSON is what plotly would have sent."""
    import ipywidgets
    import plotly.graph_objects as go

    template = layout.get("template")
    if isinstance(template, str):
        layout = {**layout, "template": {}}  # not None: plotly would load its default
    else:
        template = None

    class FigureOutput(ipywidgets.Output):
        def __init__(self, fig: go.Figure):
            super().__init__()
            self.fig = fig
            self.redraw()

        @property
        def data(self) -> tuple:
            return self.fig.data

        @property
        def layout(self) -> Any:
            return self.fig.layout

        def batch_update(self) -> Any:
            return self.fig.batch_update()

        def redraw(self) -> None:
            """Replace the shown output with the figure as it is now (one message)."""
            self.outputs = (plot_output(self.fig, template),)

    return FigureOutput(go.Figure(data=data, layout=layout))


@functools.cache
def template_json(name: str) -> dict[str, Any]:
    """plotly's template `name` as the JSON file plotly ships it in (read once)."""
    return json.loads(resources.files("plotly").joinpath(
        "package_data", "templates", f"{name}.json").read_text(encoding="utf-8"))


def plot_output(fig: Any, template: str | None = None) -> dict[str, Any]:
    """`fig` as one notebook output that plotly's renderer draws (JSON, no script), with
    plotly's template `template` if one is named."""
    import plotly.io

    spec = json.loads(plotly.io.to_json(fig, validate=False, remove_uids=False))
    if template:
        spec["layout"]["template"] = template_json(template)
    spec["config"] = {"displaylogo": False, "responsive": True}
    title = fig.layout.title.text or "plotly chart"
    return {"output_type": "display_data", "metadata": {},
            "data": {PLOTLY_MIME: spec, "text/plain": f"[{title}]"}}


class TokenChart:
    """Stacked tokens per turn, budget, trigger and target lines, compaction markers and
    the input tokens the model's API reported."""

    reported_label = REPORTED_LABEL

    def __init__(self, title: str = TITLE, height: int = HEIGHT):
        self.title, self.height = title, height
        self._figure: Any = None
        self.updates = 0  # how many times the figure was drawn (for tests and benchmarks)
        self.reset()

    # --- listening ------------------------------------------------------------------
    def __call__(self, event: Event) -> None:
        if self._record(event):
            self._push()

    def feed(self, events: Iterable[Event]) -> None:
        """Take many events at once and redraw once (replaying a finished run)."""
        if any([self._record(e) for e in events]):
            self._push()

    def reset(self) -> None:
        """Forget every point (a new run starts)."""
        self.turns: list[int] = []
        self.tokens: list[int] = []
        self.parts: dict[str, list[int]] = {p: [] for p in PARTS}
        self.budget: int | None = None
        self.trigger: int | None = None
        self.target: int | None = None
        self.marks: list[Compacted] = []
        self.reported: list[tuple[int, int]] = []  # (turn, input tokens the API reported)
        self._differs = False  # kept as reports arrive: an update costs the same at any turn
        self._mark_x: list[int] = []
        self._mark_y: list[int] = []
        self._mark_text: list[str] = []
        if self._figure is not None:
            self._push()

    def _record(self, event: Event) -> bool:
        if isinstance(event, TurnStarted):
            if self.marks and self.marks[-1].turn == event.turn:  # now the overhead is known
                self._mark_y[-1] = self.marks[-1].tokens_before + (
                    event.tokens - self.marks[-1].tokens_after)
            self.turns.append(event.turn)
            self.tokens.append(event.tokens)
            for part in PARTS:
                self.parts[part].append(event.parts.get(part, 0))
            self.budget, self.trigger = event.budget, event.trigger_at
            self.target = event.target_at or None
            return True
        if isinstance(event, Compacted):
            self.marks.append(event)
            self._mark_x.append(event.turn)
            overhead = self.parts["system"][-1] if self.turns else 0
            self._mark_y.append(event.tokens_before + overhead)
            self._mark_text.append(
                f"turn {event.turn}: {html.escape(event.strategy)}<br>"
                f"messages {event.tokens_before} → {event.tokens_after} tokens"
                + "".join(f"<br>{step}" for step in _steps(event)))
            return True
        if isinstance(event, ModelReplied) and event.usage.total_input > 0:
            count, caption = event.usage.total_input, self.caption()
            self.reported.append((event.turn, count))
            local = self.tokens[-1] if self.turns and self.turns[-1] == event.turn else None
            self._differs |= local is None or abs(count - local) > SAME_COUNT_SHARE * local
            return self._differs or self.caption() != caption  # else nothing drawn changed
        return False

    # --- the widget -------------------------------------------------------------------
    @property
    def figure(self) -> Any:
        """The chart's widget, a `figure_output` (built on first use, then kept up to
        date)."""
        if self._figure is None:
            self._figure = self._build()
            self._push()
        return self._figure

    def _build(self) -> Any:
        import plotly.graph_objects as go

        traces = [go.Scatter(name=PART_LABELS[p], stackgroup="tokens", mode="lines",
                             line={"width": 0.5, "color": PART_COLORS[p]},
                             hovertemplate=f"{PART_LABELS[p]}: %{{y}}<extra></extra>")
                  for p in PARTS]
        traces += [
            go.Scatter(name="budget", mode="lines", hoverinfo="skip",
                       line={"color": BUDGET_COLOR, "width": 2}),
            go.Scatter(name="compaction trigger", mode="lines", hoverinfo="skip",
                       line={"color": TRIGGER_COLOR, "width": 1.5, "dash": "dash"}),
            go.Scatter(name="compaction target", mode="lines", hoverinfo="skip",
                       line={"color": TARGET_COLOR, "width": 1.5, "dash": "dot"}),
            go.Scatter(name=self.reported_label, mode="lines+markers", visible=False,
                       hovertemplate="reported: %{y}<extra></extra>",
                       line={"color": REPORTED_COLOR, "width": 1.5, "dash": "dot"},
                       marker={"size": 4, "color": REPORTED_COLOR}),
            go.Scatter(name=STEP_LABEL, mode="markers+text", hoverinfo="text",
                       visible=False, textposition="middle right",
                       textfont={"color": STEP_COLOR, "size": 10},
                       marker={"symbol": "line-ew", "size": 14, "color": STEP_COLOR,
                               "line": {"width": 2, "color": STEP_COLOR}}),
            go.Scatter(name=MARK_LABEL, mode="markers", hoverinfo="text",
                       marker={"symbol": "triangle-down", "size": 11, "color": MARK_COLOR}),
        ]
        fig = figure_output(traces, {
            "title": {"text": self.title, "subtitle": {"text": ""}}, "height": self.height,
            "template": "plotly_white", "hovermode": "x unified", "uirevision": "chart",
            "margin": {"l": 60, "r": 20, "t": TOP_MARGIN, "b": 40},
            "xaxis": {"title": {"text": "turn"}, "rangemode": "tozero"},
            "yaxis": {"title": {"text": "tokens"}, "rangemode": "tozero"},
            "legend": {"orientation": "h", "y": -0.2}})
        with fig.batch_update():
            for trace, uid in zip(fig.data, UIDS, strict=True):
                trace.uid = uid  # fixed names: nothing random in any output
        return fig

    def _push(self) -> None:
        """Give the figure the current points, lines and caption, and draw it again."""
        fig = self._figure
        if fig is None:
            return
        span = [self.turns[0], self.turns[-1]] if self.turns else []
        budget, trigger, target, reported, steps, marks = range(len(PARTS), len(PARTS) + 6)
        target_span = span if self.target else []
        shown = self.reported if self.reported_differs() else []  # a hidden line: no points
        values = {(i, "x"): self.turns for i in range(len(PARTS))}
        values |= {(i, "y"): self.parts[p] for i, p in enumerate(PARTS)}
        values |= {(budget, "x"): span, (budget, "y"): [self.budget] * len(span),
                   (trigger, "x"): span, (trigger, "y"): [self.trigger] * len(span),
                   (target, "x"): target_span,
                   (target, "y"): [self.target] * len(target_span),
                   (marks, "x"): self._mark_x, (marks, "y"): self._mark_y,
                   (marks, "hovertext"): self._mark_text,
                   (reported, "x"): [x for x, _ in shown],
                   (reported, "y"): [y for _, y in shown]}
        values |= {(steps, prop): points for prop, points in self._step_points().items()}
        with fig.batch_update():
            for (i, prop), points in values.items():
                setattr(fig.data[i], prop, tuple(points))
            fig.data[reported].visible = self.reported_differs()
            fig.data[steps].visible = bool(values[steps, "x"])  # no pipeline: no legend entry
            fig.layout.title.subtitle.text = self.caption()
        fig.redraw()
        self.updates += 1

    def _step_points(self) -> dict[str, list[Any]]:
        """The ticks of the pipelines' steps: at each compaction's turn, the request's size
        after each step (its messages plus the overhead its marker adds)."""
        points: dict[str, list[Any]] = {"x": [], "y": [], "text": [], "hovertext": []}
        for mark, mark_y in zip(self.marks, self._mark_y, strict=True):
            overhead = mark_y - mark.tokens_before
            lines = _steps(mark)  # none for a compaction of a single step: no tick
            for (kind, _, after), line in zip(mark.steps if lines else (), lines, strict=True):
                points["x"].append(mark.turn)
                points["y"].append(after + overhead)
                points["text"].append(html.escape(kind))
                points["hovertext"].append(f"turn {mark.turn}: {line}")
        return points

    def caption(self) -> str:
        """The chart's subtitle: says when the reported line is left out, else empty."""
        if not self.reported or self.reported_differs():
            return ""
        return SAME_CAPTION.format(label=self.reported_label)

    def reported_differs(self) -> bool:
        """Whether some turn's reported input tokens differ from that turn's local count
        by more than `SAME_COUNT_SHARE` of it (only then is the reported line drawn)."""
        return self._differs

    # --- plain text -------------------------------------------------------------------
    def text(self) -> str:
        """The same data as a table: a row per turn, a row per compaction."""
        rows: list[tuple[object, ...]] = []
        marks = iter(self.marks)
        mark = next(marks, None)
        for i, turn in enumerate(self.turns):
            while mark is not None and mark.turn <= turn:
                rows.append(_mark_row(mark))
                mark = next(marks, None)
            rows.append((turn, self.tokens[i], bar(self.tokens[i], self.budget or 0),
                         *(self.parts[p][i] for p in PARTS), ""))
        rows += [_mark_row(m) for m in ([mark] if mark else []) + list(marks)]
        header = (f"budget {self.budget}, trigger {self.trigger}"
                  + (f", target {self.target}" if self.target else "") if self.budget
                  else "no turns yet")
        return header + "\n" + text_table(
            ("turn", "tokens", "of budget", "system", "messages", "tool results", "summary",
             "event"), rows)

    def __repr__(self) -> str:
        return (f"<TokenChart: {len(self.turns)} turns, {len(self.marks)} compactions, "
                f"budget {self.budget}>")


def _steps(mark: Compacted) -> list[str]:
    """One line per step of a compaction made of several (none for a single step)."""
    if len(mark.steps) < 2:
        return []
    return [f"{html.escape(kind)} {before} → {after} tokens"
            for kind, before, after in mark.steps]


def _mark_row(mark: Compacted) -> tuple[object, ...]:
    steps = "; ".join(f"{kind} {before} -> {after}" for kind, before, after in mark.steps)
    return (mark.turn, "", "", "", "", "", "",
            f"compacted [{mark.strategy}] {mark.tokens_before} -> {mark.tokens_after}"
            + (f" (steps: {steps})" if len(mark.steps) > 1 else ""))
