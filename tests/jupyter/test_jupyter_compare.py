"""`compare_runs`: runs already played (the library's strategy and the learner's own
function) as one `Comparison`, shown as the overlaid chart and the table."""

from __future__ import annotations

import pytest
from IPython.utils.capture import capture_output

from jupyter_compaction import FunctionStrategy, TrimTurns
from jupyter_compaction.jupyter import compare as compare_module
from jupyter_compaction.jupyter.compare import HEADERS, compare_runs
from jupyter_compaction.runner import play


def mine(messages, goal, counter):
    return TrimTurns()(messages, goal=goal, counter=counter).messages


@pytest.fixture(scope="module")
def runs():
    return {"trim (library)": play("debug", budget=6_000, strategy="trim"),
            "mine (yours)": play("debug", budget=6_000, strategy=FunctionStrategy(mine))}


def test_the_rows_are_the_runs_numbers_by_label(runs):
    comparison = compare_runs(runs)
    assert comparison.scenario == "debug" and list(comparison.runs) == list(runs)
    for (label, run), row in zip(runs.items(), comparison.rows, strict=True):
        assert row[:5] == (label, run.peak_context, run.tokens_sent, len(run.compactions),
                           run.repeats)
    assert comparison.rows[0][1:] == comparison.rows[1][1:]  # the same strategy, written twice


def test_runs_of_different_scenarios_are_refused_in_one_line(runs):
    other = play("agents", budget=6_000, strategy="trim", max_turns=2)
    with pytest.raises(ValueError, match="^compare runs of one bundled scenario; these "
                                         "played agents, debug$"):
        compare_runs({**runs, "agents": other})


def test_displayed_as_text_it_prints_the_table(ip, runs, monkeypatch):
    monkeypatch.setattr(compare_module, "widgets_enabled", lambda: False)
    with capture_output() as out:
        compare_runs(runs)._ipython_display_()
    assert out.stdout.startswith("debug: trim (library) vs mine (yours)\n")
    assert all(header in out.stdout for header in HEADERS) and not out.outputs


def test_displayed_with_widgets_it_shows_the_overlaid_chart_above_the_table(ip, runs,
                                                                          monkeypatch):
    monkeypatch.setattr(compare_module, "widgets_enabled", lambda: True)
    with capture_output() as out:
        compare_runs(runs)._ipython_display_()
    chart, table = out.outputs
    assert "debug: trim (library) vs mine (yours)" in table.data["text/html"]
    assert "application/vnd.jupyter.widget-view+json" in chart.data  # the figure_output
