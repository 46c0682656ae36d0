"""The compaction lab: one ipywidgets app to try budgets and strategies on a scenario.

Controls: a budget slider, a target slider (the share of the budget compaction aims
for), the strategies as toggle buttons (trimming vs summarizing is
one click), task state and "summary as user message" checkboxes, a scenario dropdown,
and Run, Step and Compare buttons. The controls that are settings take their choices
and their tooltips (the help text) from `Settings` (`settings.OPTIONS`). Right below the
buttons, where the learner is looking, two tabs: "This run" holds the live `TokenChart`
and "Compare" the comparison; Compare selects its tab when its result is in, Run and
Step select "This run" again. Below them a tab with the context viewer, the summary
inspector and the event log (all escaped HTML). Compare plays two strategies on the
same scenario and shows a table of peak tokens, tokens sent, compactions, repeats and
must-keep recall above their overlaid token curves.

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
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .. import runner, scenarios
from ..agent import Run
from ..events import Event, TurnStarted
from ..settings import DEFAULTS, OPTIONS, Settings
from . import context_view, summary_view
from .chart import TokenChart
from .compare import Comparison, compare
from .event_log import EventLog
from .frontend import WidgetView
from .render import esc

MIN_BUDGET, BUDGET_STEP = 2_000, 250
HEADROOM, ROUND_TO = 2, 1_000  # the slider ends at 2x the `off` peak, rounded up to 1,000
SLIDER_WIDTH = "640px"
WIDE_LABEL = {"description_width": "initial"}  # descriptions are never cut off
COMPARE_PARTNERS = ("trim", "clear")  # Compare's default: the first one not selected
MIN_TARGET, MAX_TARGET, TARGET_STEP = 0.1, 0.75, 0.05  # shares of the budget, below the trigger
TAB_TITLES = ("Context", "Summary", "Events")
VIEW_TITLES = ("This run", "Compare")  # the tabs under the buttons
RUN_VIEW, COMPARE_VIEW = range(len(VIEW_TITLES))
COMPARE_HINT = "Press Compare to play two strategies on this scenario side by side."
LAB_CLASS, COMPARE_CLASS = "jc-lab", "jc-compare"  # CSS classes the browser tests find
STRATEGY_NAMES = OPTIONS["strategy"].choices  # the controls' choices and tooltips: Settings
INT_TEXT = re.compile(r"[+-]?\d+(?:_\d+)*")
MESSAGE_STYLE = "font-size:12px;color:#555"


@functools.lru_cache
def off_peak(scenario: str) -> int:
    """The scenario's peak context in tokens with no compaction (strategy `off`)."""
    return runner.play(scenario, settings=DEFAULTS.with_changes(strategy="off")).peak_context


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
        value = LenientInt(DEFAULTS.budget, help="budget in tokens").tag(sync=True)
        report: Callable[[str], None] | None = None

    return BudgetSlider(value=min(max(value, MIN_BUDGET), top), min=MIN_BUDGET, max=top,
                        step=BUDGET_STEP, description="budget", continuous_update=False,
                        tooltip=OPTIONS["budget"].help,
                        style=WIDE_LABEL, layout={"width": SLIDER_WIDTH})


class Lab:
    """The lab app; display it (`display(Lab())`) or drive it with run/step/compare."""

    def __init__(self, scenario: str | None = None, budget: int | None = None,
                 strategy: str | None = None):
        import ipywidgets as w

        names = scenarios.names()
        scenario = scenario or names[0]
        self.budget = _budget_slider(budget or DEFAULTS.budget, budget_max(scenario))
        self.off_label = w.HTML()
        self.strategy = w.ToggleButtons(options=list(STRATEGY_NAMES),
                                        value=strategy or DEFAULTS.strategy,
                                        description="strategy",
                                        style={"button_width": "auto"},  # one row for all
                                        tooltip=OPTIONS["strategy"].help)
        self.task_state = w.Checkbox(value=DEFAULTS.task_state, description="task state",
                                     tooltip=OPTIONS["task_state"].help)
        self.target = w.FloatSlider(value=DEFAULTS.target, min=MIN_TARGET, max=MAX_TARGET,
                                    step=TARGET_STEP, description="target",
                                    continuous_update=False,
                                    tooltip=OPTIONS["target"].help)
        self.summary_as_user = w.Checkbox(value=False, description="summary as user message",
                                          tooltip=OPTIONS["summary_role"].help)
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
        self.compare_box = w.VBox([w.HTML(esc(COMPARE_HINT))])
        self.compare_box.add_class(COMPARE_CLASS)
        self.views = w.Tab(children=[self.chart.figure, self.compare_box])
        self.views.titles = VIEW_TITLES
        self.widget = w.VBox([
            self.scenario,
            w.HBox([self.budget, self.off_label]),
            self.target,
            self.strategy,
            w.HBox([self.task_state, self.summary_as_user]),
            w.HBox([self.run_button, self.step_button, self.compare_button,
                    self.compare_with]),
            self.message, self.views, self.tabs])
        self.widget.add_class(LAB_CLASS)
        self.current: Run | None = None
        self.comparison: Comparison | None = None
        self._stepping: Settings | None = None
        self._folder = tempfile.TemporaryDirectory(prefix=runner.WORKSPACE_PREFIX + "lab-")
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
    def settings(self) -> Settings:
        """The settings the controls show (the rest at their defaults)."""
        return DEFAULTS.with_changes(
            budget=int(self.budget.value), strategy=self.strategy.value,
            target=round(float(self.target.value), 2),
            task_state=bool(self.task_state.value),
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
        self.compare_with.options = [s for s in STRATEGY_NAMES if s != chosen]
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

    def _fresh_run(self, settings: Settings, **knobs: Any) -> Run:
        """Play on the lab's one workspace folder, emptied first, in "This run"'s tab."""
        self.views.selected_index = RUN_VIEW
        self.chart.reset()
        self.log.clear()
        workspace = Path(self._folder.name) / "workspace"
        shutil.rmtree(workspace, ignore_errors=True)
        run = runner.start(self.scenario.value, settings=settings, on_event=self._listen,
                           workdir=str(workspace), **knobs).play()
        self._show(run)
        return run

    def close(self) -> None:
        """Remove the lab's workspace folder."""
        self._folder.cleanup()

    def run(self) -> Run:
        """Play the scenario to the end with the current settings."""
        self._stepping = None
        run = self._fresh_run(self.settings())
        self.say(f"{run.status}: {run.turn} turns, peak {run.peak_context} tokens, "
                 f"{len(run.compactions)} compactions, {run.repeats} repeats"
                 f"{_graded(run)}")
        return run

    def step(self) -> Run:
        """Advance one turn (replays from turn 1 with one more turn; see the module doc)."""
        settings = self.settings()
        current = self.current
        same = self._stepping == settings and current is not None
        turns = current.turn + 1 if same and current.status == "max_turns" else 1
        run = self._fresh_run(settings, max_turns=turns)
        self._stepping = settings
        done = ("" if run.status == "max_turns"
                else f"; the run {run.status}{_graded(run)}, Step starts over")
        starts = run.of(TurnStarted)
        size = f", request {starts[-1].tokens} tokens" if starts else ""
        self.say(f"step: turn {run.turn}{size}{done}")
        return run

    def compare(self, a: str | None = None, b: str | None = None) -> Comparison:
        """Play two strategies (default: the selected one and "compare with") and overlay."""
        a, b = a or self.strategy.value, b or self.compare_with.value
        try:
            for name in (a, b):
                OPTIONS["strategy"].check("strategy", name, typed=True)
        except ValueError as err:
            self.say(str(err))
            raise
        import ipywidgets as w

        self.comparison = compare(self.scenario.value, self.settings(), a, b)
        view = self.comparison.view()
        self.views.selected_index = COMPARE_VIEW  # first, so the chart draws in a shown tab
        self.compare_box.children = [w.HTML(view.html), self.comparison.figure()]
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
        return WidgetView(self.widget, repr(self))._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        k = self.settings()
        return (f"<Lab: scenario {self.scenario.value}, budget {k.budget}, strategy "
                f"{k.strategy}, task state {'on' if k.task_state else 'off'}>")


def _graded(run: Run) -> str:
    """The run's outcome against its workspace's truth, and the question it answered, as
    the message shows them."""
    asked = f"; question: {run.question}" if run.question else ""
    return (f"; outcome: {run.outcome}" if run.outcome else "") + asked
