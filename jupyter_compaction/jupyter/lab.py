"""The compaction lab: one ipywidgets app to try budgets and strategies on a scenario.

Controls: a budget slider, the strategies as toggle buttons (trimming vs summarizing is
one click), task state and "summary as user message" checkboxes, a scenario dropdown,
and Run, Step and Compare buttons. Below them the live `TokenChart` and a tab with the
context viewer, the summary inspector and the event log (all escaped HTML). Compare
plays two strategies on the same scenario and overlays their token curves above a table
of peak tokens, tokens sent, compactions, repeats and must-keep recall.

Step advances one turn in the simplest honest way: it replays the run from turn 1 with
`max_turns` one higher than before (the simulated model is deterministic, so this is the
same run stopped one turn later) and shows that state. Changing a knob starts again at
turn 1.

The budget slider fits the scenario: it runs from `MIN_BUDGET` to twice the scenario's
own peak without compaction (its `off` peak, played once per scenario and labelled next
to the slider: budgets above it never compact), so the lessons' 4k-8k budgets take a
good part of its width. It is clamped by ipywidgets (`IntSlider` caps and floors its
value); values of the wrong type, set from code (`lab.budget.value = "abc"`), are
refused and the lab says so in its message line instead of raising. "compare with"
never offers the selected strategy, so Compare always plays two different ones.

`run()`, `step()` and `compare()` drive the lab from code, so tests need no browser.

Left out: real-model runs (the lab always plays the offline simulated model; use
`%%agent --model` for Claude) and saving lab settings.
"""

from __future__ import annotations

import functools
import numbers
import re
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .. import scenarios
from ..agent import DEFAULT_BUDGET, Run
from ..events import Event, TurnStarted
from ..strategies import STRATEGIES
from . import context_view, summary_view
from .chart import TokenChart
from .compare import Comparison, compare
from .event_log import EventLog
from .render import esc
from .session import Knobs, start

MIN_BUDGET, BUDGET_STEP = 2_000, 250
HEADROOM, ROUND_TO = 2, 1_000  # the slider ends at 2x the `off` peak, rounded up to 1,000
SLIDER_WIDTH = "640px"
WIDE_LABEL = {"description_width": "initial"}  # descriptions are never cut off
DEFAULT_STRATEGY = "progressive"
COMPARE_PARTNERS = ("trim", "clear")  # Compare's default: the first one not selected
TAB_TITLES = ("Context", "Summary", "Events")
INT_TEXT = re.compile(r"[+-]?\d+(?:_\d+)*")
MESSAGE_STYLE = "font-size:12px;color:#555"


@functools.lru_cache
def off_peak(scenario: str) -> int:
    """The scenario's peak context in tokens with no compaction (strategy `off`)."""
    return start(Knobs(scenario=scenario, strategy="off")).run.peak_context


def budget_max(scenario: str) -> int:
    """The slider's end for `scenario`: `HEADROOM` times its `off` peak, rounded up."""
    return -(-HEADROOM * off_peak(scenario) // ROUND_TO) * ROUND_TO


def partner(strategy: str) -> str:
    """Compare's default partner for `strategy`: never the same strategy."""
    return next(p for p in COMPARE_PARTNERS if p != strategy)


def _budget_slider(value: int, top: int) -> Any:
    """An `IntSlider` up to `top` whose value refuses wrong types and reports clamping."""
    import ipywidgets
    import traitlets

    class LenientInt(traitlets.CInt):
        def validate(self, obj: Any, value: Any) -> Any:
            report = getattr(obj, "report", None)
            ok = (isinstance(value, numbers.Integral) and not isinstance(value, bool)) or (
                isinstance(value, str) and INT_TEXT.fullmatch(value.strip()))
            if not ok:
                if report:
                    report(f"budget not changed: {value!r} is not a whole number of tokens")
                return obj.value  # keep the old value
            number = int(value.strip() if isinstance(value, str) else value)
            if report and not obj.min <= number <= obj.max:
                report(f"budget {number} is out of range; clamped to "
                       f"{min(max(number, obj.min), obj.max)} "
                       f"(the slider goes from {obj.min} to {obj.max})")
            return number

    class BudgetSlider(ipywidgets.IntSlider):
        value = LenientInt(DEFAULT_BUDGET, help="budget in tokens").tag(sync=True)
        report: Callable[[str], None] | None = None

    return BudgetSlider(value=min(max(value, MIN_BUDGET), top), min=MIN_BUDGET, max=top,
                        step=BUDGET_STEP, description="budget", continuous_update=False,
                        style=WIDE_LABEL, layout={"width": SLIDER_WIDTH})


class Lab:
    """The lab app; display it (`display(Lab())`) or drive it with run/step/compare."""

    def __init__(self, scenario: str | None = None, budget: int = DEFAULT_BUDGET,
                 strategy: str = DEFAULT_STRATEGY):
        import ipywidgets as w

        names = scenarios.names()
        scenario = scenario or names[0]
        self.budget = _budget_slider(budget, budget_max(scenario))
        self.off_label = w.HTML()
        self.strategy = w.ToggleButtons(options=list(STRATEGIES), value=strategy,
                                        description="strategy")
        self.task_state = w.Checkbox(value=True, description="task state")
        self.summary_as_user = w.Checkbox(value=False, description="summary as user message")
        self.scenario = w.Dropdown(options=names, value=scenario, description="scenario")
        self.compare_with = w.Dropdown(description="compare with", style=WIDE_LABEL)
        self.run_button = w.Button(description="Run", button_style="primary")
        self.step_button = w.Button(description="Step")
        self.compare_button = w.Button(description="Compare")
        self.message = w.HTML()
        self.chart = TokenChart()
        self.log = EventLog()
        self.context_view, self.summary_view, self.events_view = w.HTML(), w.HTML(), w.HTML()
        self.tabs = w.Tab(children=[self.context_view, self.summary_view, self.events_view])
        self.tabs.titles = TAB_TITLES
        self.compare_box = w.VBox()
        self.widget = w.VBox([
            self.scenario,
            w.HBox([self.budget, self.off_label]),
            self.strategy,
            w.HBox([self.task_state, self.summary_as_user]),
            w.HBox([self.run_button, self.step_button, self.compare_button,
                    self.compare_with]),
            self.message, self.chart.figure, self.tabs, self.compare_box])
        self.current: Run | None = None
        self.comparison: Comparison | None = None
        self._stepping: Knobs | None = None
        self.budget.report = self.say
        self._fit_budget()
        self._offer_partners()
        self.scenario.observe(lambda _: self._fit_budget(), names="value")
        self.strategy.observe(lambda _: self._offer_partners(), names="value")
        self.run_button.on_click(lambda _: self._safely(self.run))
        self.step_button.on_click(lambda _: self._safely(self.step))
        self.compare_button.on_click(lambda _: self._safely(self.compare))
        self._show(None)

    # --- what the controls say --------------------------------------------------------
    def knobs(self) -> Knobs:
        return Knobs(scenario=self.scenario.value, budget=int(self.budget.value),
                     strategy=self.strategy.value, task_state=bool(self.task_state.value),
                     summary_role="user" if self.summary_as_user.value else None)

    def _fit_budget(self) -> None:
        """Fit the slider to the scenario and label its `off` peak."""
        name = self.scenario.value
        self.budget.max = budget_max(name)
        self.off_label.value = (f'<span style="{MESSAGE_STYLE}">{esc(name)} without '
                                f"compaction peaks at {off_peak(name):,} tokens</span>")

    def _offer_partners(self) -> None:
        """"compare with" offers every strategy but the selected one."""
        chosen, kept = self.strategy.value, self.compare_with.value
        self.compare_with.options = [s for s in STRATEGIES if s != chosen]
        self.compare_with.value = kept if kept not in (None, chosen) else partner(chosen)

    def say(self, text: str) -> None:
        self.message.value = f'<span style="{MESSAGE_STYLE}">{esc(text)}</span>'

    def _safely(self, action: Callable[[], Any]) -> None:
        """Run a button's action; an error becomes the lab's message, not a traceback."""
        try:
            action()
        except Exception as exc:  # shown in the lab, where the user is looking
            self.say(f"{type(exc).__name__}: {exc}")

    # --- actions ----------------------------------------------------------------------
    def _listen(self, event: Event) -> None:
        self.chart(event)
        self.log(event)

    def _play(self, knobs: Knobs) -> Run:
        self.chart.reset()
        self.log.clear()
        run = start(knobs, self._listen).run
        self._show(run)
        return run

    def run(self) -> Run:
        """Play the scenario to the end with the current settings."""
        self._stepping = None
        run = self._play(self.knobs())
        self.say(f"{run.status}: {run.turn} turns, peak {run.peak_context} tokens, "
                 f"{len(run.compactions)} compactions, {run.repeats} repeats")
        return run

    def step(self) -> Run:
        """Advance one turn (replays from turn 1 with one more turn; see the module doc)."""
        knobs = self.knobs()
        current = self.current
        same = self._stepping == knobs and current is not None
        turns = current.turn + 1 if same and current.status == "max_turns" else 1
        run = self._play(replace(knobs, max_turns=turns))
        self._stepping = knobs
        done = "" if run.status == "max_turns" else f"; the run {run.status}, Step starts over"
        starts = run.of(TurnStarted)
        size = f", request {starts[-1].tokens} tokens" if starts else ""
        self.say(f"step: turn {run.turn}{size}{done}")
        return run

    def compare(self, a: str | None = None, b: str | None = None) -> Comparison:
        """Play two strategies (default: the selected one and "compare with") and overlay."""
        a, b = a or self.strategy.value, b or self.compare_with.value
        bad = [s for s in (a, b) if s not in STRATEGIES]
        if bad:
            message = f"unknown strategy {bad[0]!r}; choose from {', '.join(STRATEGIES)}"
            self.say(message)
            raise ValueError(message)
        import ipywidgets as w

        self.comparison = compare(self.knobs(), a, b)
        view = self.comparison.view()
        self.compare_box.children = [self.comparison.figure(), w.HTML(view.html)]
        self.say(f"compared {a} and {b} on {self.comparison.scenario}")
        return self.comparison

    # --- showing ----------------------------------------------------------------------
    def _show(self, run: Run | None) -> None:
        self.current = run
        if run is None:
            empty = esc("Press Run (or Step) to play the scenario.")
            self.context_view.value = self.summary_view.value = empty
            self.events_view.value = self.log.html()
            return
        self.context_view.value = context_view.view(run, "this run", full=True).html
        self.summary_view.value = summary_view.view(run, "this run").html
        self.events_view.value = self.log.html()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        k = self.knobs()
        return (f"<Lab: scenario {k.scenario}, budget {k.budget}, strategy {k.strategy}, "
                f"task state {'on' if k.task_state else 'off'}>")
