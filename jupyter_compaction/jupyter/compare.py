"""Two strategies on the same scenario: their token curves overlaid and a table.

`compare()` plays the scenario once per strategy with the same knobs and returns a
`Comparison`: per strategy the peak context, tokens sent, compactions, repeated tool
calls, whether the answer is right, the question the task was understood as (with its
slots and operators: the answer is graded against it), and the recall of the scenario's
must-keep facts in the *final context*: the system prompt and the messages the model saw
when it answered (the answer itself is left out, or every finished run would score 100 %).
`compare_runs()` does the same for runs already played, e.g. two `%%agent --out` runs:
the library's strategy and the learner's own function; displayed in a notebook, a
`Comparison` shows the overlaid chart (in a widget frontend) above its table.

Left out: more than two strategies at once (call it again), and real-model runs (the
lab plays the offline simulated model).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import runner, scenarios
from ..agent import Run
from ..evaluation import eval_summary
from ..events import TurnStarted
from ..history import message_text
from ..settings import Settings
from .chart import figure_output
from .frontend import widgets_enabled
from .render import Rich, heading, html_table, show, text_table

HEADERS = ("strategy", "peak tokens", "tokens sent", "compactions", "repeats",
           "must-keep recall", "answer", "question")
FREE = "none: a free question, not graded"  # a run whose task no declared question reads
COLORS = ("#4c78a8", "#e45756", "#54a24b", "#b279a2")
TITLE = "Tokens per turn, two strategies"
HEIGHT = 300  # with the table and the lab's controls, fits a 900-pixel-high window


def final_context(run: Run) -> str:
    """What the model saw on its last call: system prompt plus messages, minus the answer."""
    messages = run.messages[:-1] if run.status == "finished" else run.messages
    return "\n".join([run.system, *(message_text(m) for m in messages)])


def recall(run: Run, must_keep: Sequence[str]) -> float:
    text = final_context(run)
    return eval_summary(text, must_keep, text).recall


@dataclass
class Comparison:
    scenario: str
    runs: dict[str, Run]
    rows: list[tuple[object, ...]]

    def _ipython_display_(self) -> None:
        from IPython.display import display

        rich = widgets_enabled()
        if rich:
            display(self.figure())
        show(self.view(), rich=rich)

    def view(self) -> Rich:
        title = f"{self.scenario}: {' vs '.join(self.runs)}"
        return Rich(title + "\n" + text_table(HEADERS, self.rows),
                    heading(title) + html_table(HEADERS, self.rows))

    def figure(self) -> Any:
        """A chart widget with one line per strategy (tokens per turn) and the budget."""
        import plotly.graph_objects as go

        traces, budget = [], 0
        for (name, run), color in zip(self.runs.items(), COLORS, strict=False):
            starts = run.of(TurnStarted)
            budget = max([budget, *(e.budget for e in starts)])
            traces.append(go.Scatter(x=[e.turn for e in starts], y=[e.tokens for e in starts],
                                     name=name, mode="lines+markers",
                                     line={"color": color, "width": 2}))
        last = max((run.turn for run in self.runs.values()), default=1)
        traces.append(go.Scatter(x=[1, last], y=[budget, budget], name="budget",
                                 mode="lines", line={"color": "#d62728", "dash": "dot"}))
        fig = figure_output(traces, {
            "title": {"text": TITLE}, "height": HEIGHT, "template": "plotly_white",
            "margin": {"l": 60, "r": 20, "t": 50, "b": 40},
            "xaxis": {"title": {"text": "turn"}}, "yaxis": {"title": {"text": "tokens"}}})
        with fig.batch_update():
            for i, trace in enumerate(fig.data):
                trace.uid = f"compare-{i}"
        fig.redraw()
        return fig


def row(name: str, run: Run, must_keep: Sequence[str], correct: Callable[[str], bool]
        ) -> tuple[object, ...]:
    answer = run.outcome or ("correct" if run.answer and correct(run.answer)
                             else "wrong" if run.answer else run.status)
    return (name, run.peak_context, run.tokens_sent, len(run.compactions), run.repeats,
            f"{recall(run, must_keep):.0%}", answer, run.question or FREE)


def compare(scenario: str, settings: Settings, a: str, b: str,
            on_event: Callable[[str, Any], None] | None = None) -> Comparison:
    """Play `scenario` with strategy `a`, then `b`; `on_event(name, event)` listens."""
    spec = scenarios.load(scenario)
    runs: dict[str, Run] = {}
    for name in (a, b):
        label = name if name not in runs else f"{name} (again)"
        listener = (lambda e, label=label: on_event(label, e)) if on_event else None
        runs[label] = runner.play(spec.name, settings=settings, strategy=name,
                                  on_event=listener)
    return compare_runs(runs)


def compare_runs(runs: dict[str, Run]) -> Comparison:
    """Runs of one scenario, already played, by label: their curves and their table."""
    played = {run.scenario for run in runs.values()}
    if len(played) != 1 or None in played:
        raise ValueError(f"compare runs of one bundled scenario; these played "
                         f"{', '.join(sorted(map(str, played))) or 'none'}")
    spec = scenarios.load(played.pop())
    rows = [row(label, run, spec.must_keep, spec.is_correct) for label, run in runs.items()]
    return Comparison(spec.name, dict(runs), rows)
