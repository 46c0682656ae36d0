"""The token chart: one point per turn, a marker per compaction, fixed uids, text form."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

from jupyter_compaction.events import Compacted, Finished, ModelReplied, ToolCalled, TurnStarted
from jupyter_compaction.jupyter.chart import (
    MARK_LABEL,
    PARTS,
    PLOTLY_MIME,
    REPORTED_LABEL,
    SAME_COUNT_SHARE,
    STEP_LABEL,
    TITLE,
    UIDS,
    TokenChart,
)
from jupyter_compaction.models.base import Usage
from jupyter_compaction.runner import play
from tests.support.reporting import Reporting, scaled

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-")


def turn(n: int, tokens: int, budget: int = 1_000) -> TurnStarted:
    parts = {"system": 100, "messages": tokens // 2 - 50, "tool_results": tokens // 2 - 50,
             "summary": 0}
    return TurnStarted(n, tokens, budget, int(budget * 0.8), parts, target_at=budget // 2)


def test_each_turn_appends_one_point_in_one_update():
    chart = TokenChart()
    fig = chart.figure
    assert chart.updates == 1  # the empty figure
    for n in range(1, 6):
        chart(turn(n, 100 * n + 200))
        assert chart.updates == n + 1
        for trace in fig.data[: len(PARTS)]:
            assert list(trace.x) == list(range(1, n + 1))
    assert list(fig.data[2].y) == [n * 50 + 50 for n in range(1, 6)]
    budget, trigger, target = fig.data[len(PARTS):len(PARTS) + 3]
    assert list(budget.x) == [1, 5] and list(budget.y) == [1_000, 1_000]
    assert list(trigger.y) == [800, 800]
    assert list(target.x) == [1, 5] and list(target.y) == [500, 500]


def test_no_target_line_for_events_without_one():
    chart = TokenChart()
    chart(TurnStarted(1, 300, 1_000, 800, {"system": 100}))
    target = chart.figure.data[len(PARTS) + 2]
    assert len(target.x) == 0 and chart.text().splitlines()[0] == "budget 1000, trigger 800"


def test_other_events_do_not_redraw():
    chart = TokenChart()
    _ = chart.figure
    chart(ToolCalled(1, "read_file", {"path": "a"}, "t1"))
    chart(Finished(1, "done"))
    assert chart.updates == 1 and chart.turns == []


def test_a_report_that_changes_nothing_drawn_does_not_redraw():
    """The simulated model reports the local count: only the first report (the caption
    appears) is drawn; a report that differs is drawn, and every one after it."""
    chart = TokenChart()
    _ = chart.figure
    chart(turn(1, 300))
    chart(ModelReplied(1, Usage(input_tokens=300), "tool_use"))
    chart(turn(2, 500))
    chart(ModelReplied(2, Usage(input_tokens=500), "tool_use"))
    assert chart.updates == 4 and len(chart.reported) == 2  # built, turn, caption, turn
    chart(ModelReplied(2, Usage(input_tokens=900), "tool_use"))
    chart(ModelReplied(2, Usage(input_tokens=500), "tool_use"))
    assert chart.updates == 6 and chart.reported_differs()


def test_compactions_are_marked_with_hover_text():
    chart = TokenChart()
    chart(turn(1, 900))
    chart(Compacted(2, "trim", 850, 300))
    chart(turn(2, 400))  # 100 tokens of system prompt and tools on top of 300
    marks = chart.figure.data[UIDS.index("compactions")]
    assert list(marks.x) == [2]
    assert list(marks.y) == [950]  # the request before compaction: 850 + 100
    assert marks.hovertext == ("turn 2: trim<br>messages 850 → 300 tokens",)
    assert marks.name == MARK_LABEL and "size before" in marks.name  # the legend says why


def test_a_pipelines_steps_are_drawn_each_at_the_size_after_it():
    """`progressive`'s steps (from the Compacted event): a labelled tick per step at the
    request's size after it, hover text naming its effect, and the marker and the text
    form listing them; a compaction of one step draws no tick and no legend entry."""
    chart = TokenChart()
    chart(turn(1, 900))
    chart(Compacted(2, "trim", 850, 300, steps=(("trim", 850, 300),)))
    chart(turn(2, 400))
    steps = chart.figure.data[UIDS.index("steps")]
    assert steps.visible is False and len(steps.x) == 0
    chart(Compacted(3, "clear+summarize", 800, 200,
                    steps=(("clear", 800, 600), ("summarize", 600, 200))))
    chart(turn(3, 300))  # 100 tokens of system prompt and tools again
    steps = chart.figure.data[UIDS.index("steps")]
    assert steps.visible is True and steps.name == STEP_LABEL
    assert list(steps.x) == [3, 3] and list(steps.y) == [700, 300]
    assert list(steps.text) == ["clear", "summarize"]
    assert steps.hovertext == ("turn 3: clear 800 → 600 tokens",
                               "turn 3: summarize 600 → 200 tokens")
    marks = chart.figure.data[UIDS.index("compactions")]
    assert marks.hovertext[1].endswith("<br>clear 800 → 600 tokens<br>summarize 600 → 200 tokens")
    assert "(steps: clear 800 -> 600; summarize 600 -> 200)" in chart.text()


def test_a_progressive_runs_steps_are_drawn():
    run = play("logistics", strategy="progressive", budget=5_000)
    chart = TokenChart()
    chart.feed(run.events)
    steps = chart.figure.data[UIDS.index("steps")]
    drawn = [(e.turn, kind) for e in run.of(Compacted) if len(e.steps) > 1
             for kind, _, _ in e.steps]
    assert {"clear", "summarize", "trim"} <= set(steps.text)
    assert list(zip(steps.x, steps.text, strict=True)) == drawn


def test_feed_and_reset():
    chart = TokenChart()
    _ = chart.figure
    chart.feed([turn(1, 300), turn(2, 500), Compacted(3, "clear", 700, 200), turn(3, 300)])
    assert chart.updates == 2 and chart.turns == [1, 2, 3] and len(chart.marks) == 1
    chart.reset()
    assert chart.turns == [] and len(chart.figure.data[0].x) == 0


def test_reported_input_tokens_are_a_second_line_when_known():
    chart = TokenChart()
    fig = chart.figure
    chart(turn(1, 300))
    chart(ModelReplied(1, Usage(input_tokens=0), "tool_use"))  # nothing reported: no point
    assert chart.updates == 2 and chart.reported == []
    chart(turn(2, 500))
    chart(ModelReplied(2, Usage(0, 9, cache_creation_input_tokens=200,
                                cache_read_input_tokens=450), "tool_use"))
    reported = fig.data[UIDS.index("reported")]
    assert reported.name == REPORTED_LABEL
    assert list(reported.x) == [2] and list(reported.y) == [650]  # write + read + uncached


def test_a_run_whose_model_counts_more_shows_both_counts():
    """The stack is the agent's local count; the reported line is 1.3 times it."""
    run = play("agents", model=Reporting("agents", scaled(1.3)), budget=8_000, max_turns=6)
    chart = TokenChart()
    chart.feed(run.events)
    fig = chart.figure
    reported = fig.data[UIDS.index("reported")]
    local = dict(zip(chart.turns, chart.tokens, strict=True))
    assert list(reported.x) == chart.turns
    assert list(reported.y) == [round(local[t] * 1.3) for t in chart.turns]


def test_the_reported_line_is_drawn_only_where_it_differs_from_the_local_count():
    """The simulated model reports the local count: the line would hide on the stack."""
    run = play("agents", budget=8_000, max_turns=6)
    chart = TokenChart()
    fig = chart.figure
    chart.feed(run.events)
    reported = fig.data[UIDS.index("reported")]
    assert chart.reported and not chart.reported_differs()
    assert reported.visible is False and reported.name == REPORTED_LABEL
    assert fig.layout.title.subtitle.text == (
        REPORTED_LABEL + " = local count on every turn (line not drawn)")
    turn, tokens = chart.turns[-1], chart.tokens[-1]
    within = int(tokens * (1 + SAME_COUNT_SHARE))  # the tolerance still counts as equal
    chart(ModelReplied(turn, Usage(input_tokens=within), "tool_use"))
    assert not chart.reported_differs() and reported.visible is False
    chart(ModelReplied(turn, Usage(input_tokens=within + 2), "tool_use"))
    assert chart.reported_differs() and reported.visible is True
    assert fig.layout.title.subtitle.text == "" and reported.name == REPORTED_LABEL


def test_no_reported_counts_no_line_and_no_caption():
    chart = TokenChart()
    chart(turn(1, 300))
    fig = chart.figure
    assert fig.data[UIDS.index("reported")].visible is False
    assert fig.layout.title.subtitle.text == ""


def shown(chart: TokenChart) -> dict:
    """The plotly figure the chart's widget shows now, as the browser receives it."""
    (output,) = chart.figure.outputs
    assert output["output_type"] == "display_data"
    return output["data"][PLOTLY_MIME]


def test_the_widget_shows_the_current_figure_after_every_update():
    """What a reloaded page or a second view draws: the Output's outputs, kept in the
    kernel, hold every point, every trace's name and the title."""
    chart = TokenChart()
    _ = chart.figure
    run = play("agents", model=Reporting("agents", scaled(1.3)), budget=8_000, max_turns=6)
    for event in run.events:
        chart(event)
        spec = shown(chart)
        assert list(spec["data"][0].get("x", [])) == chart.turns
    assert spec["layout"]["title"]["text"] == TITLE
    assert [t["name"] for t in spec["data"]] == [t.name for t in chart.figure.data]
    assert [t["uid"] for t in spec["data"]] == list(UIDS)
    reported = spec["data"][UIDS.index("reported")]
    assert reported["visible"] is True and reported["y"] == [y for _, y in chart.reported]


def test_the_chart_needs_no_anywidget():
    """plotly's FigureWidget is an anywidget that must load within 2 seconds in the
    browser; the chart is drawn by plotly's own output renderer instead."""
    code = textwrap.dedent("""
        import sys
        from jupyter_compaction.events import TurnStarted
        from jupyter_compaction.jupyter.chart import TokenChart
        from jupyter_compaction.jupyter.compare import compare
        from jupyter_compaction.settings import DEFAULTS
        chart = TokenChart()
        chart(TurnStarted(1, 10, 100, 80, {"system": 10}))
        chart.figure
        compare("agents", DEFAULTS.with_changes(budget=8000), "trim", "off").figure()
        print("ANYWIDGET", "anywidget" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=True)
    assert "ANYWIDGET False" in out.stdout


def test_uids_are_fixed_and_no_random_ids_appear():
    chart = TokenChart()
    chart(turn(1, 300))
    fig = chart.figure
    assert tuple(t.uid for t in fig.data) == UIDS
    assert not UUID.search(repr(fig))
    assert not UUID.search(chart.text())


def test_text_form():
    chart = TokenChart()
    for event in (turn(1, 300), turn(2, 900), Compacted(3, "trim", 850, 300), turn(3, 400)):
        chart(event)
    lines = chart.text().splitlines()
    assert lines[0] == "budget 1000, trigger 800, target 500"
    assert lines[1].split() == ["turn", "tokens", "of", "budget", "system", "messages",
                                "tool", "results", "summary", "event"]
    assert lines[3].split()[:2] == ["2", "900"]
    assert lines[4].split() == ["3", "compacted", "[trim]", "850", "->", "300"]
    assert lines[5].split()[:2] == ["3", "400"]
    assert repr(chart) == "<TokenChart: 3 turns, 1 compactions, budget 1000>"


def test_text_only_chart_never_imports_plotly():
    code = textwrap.dedent("""
        import sys
        from jupyter_compaction.events import TurnStarted
        from jupyter_compaction.jupyter.chart import TokenChart
        chart = TokenChart()
        chart(TurnStarted(1, 10, 100, 80, {"system": 10}))
        chart.text()
        print("PLOTLY", "plotly" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert "PLOTLY False" in out.stdout


def test_a_real_sessions_reported_line_is_drawn():
    """A real session's API counts differ from the local count: the line shows."""
    from jupyter_compaction import sessions
    from jupyter_compaction.jupyter.replay_magic import ReplayChart
    from jupyter_compaction.replay import run as replay

    chart = ReplayChart(replay(str(sessions.shipped()[-1]), "progressive", 50_000))
    reported = chart.figure.data[UIDS.index("reported")]
    assert chart.reported_differs() and reported.visible is True
    assert chart.figure.layout.title.subtitle.text == ""


def test_the_template_goes_out_as_plotly_sends_it_without_being_built():
    """Building and validating "plotly_white" as an object was half the first figure's
    cost; the output carries plotly's own JSON of it, the same as plotly would send."""
    import json

    import plotly.graph_objects as go
    import plotly.io as pio

    chart = TokenChart()
    spec = chart.figure.outputs[0]["data"][PLOTLY_MIME]
    built = go.Figure(layout={"template": "plotly_white"})
    assert spec["layout"]["template"] == json.loads(pio.to_json(built))["layout"]["template"]
    assert not chart.figure.fig.layout.template.layout.to_plotly_json()  # never built
    assert spec["layout"]["title"]["text"] == TITLE and spec["layout"]["height"] > 0
