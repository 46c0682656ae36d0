"""The lab, driven without a browser: run, step, compare, and values set from code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("ipywidgets")

from jupyter_compaction import scenarios  # noqa: E402
from jupyter_compaction.events import TurnStarted  # noqa: E402
from jupyter_compaction.jupyter import lab as lab_module  # noqa: E402
from jupyter_compaction.jupyter.lab import (  # noqa: E402
    COMPARE_VIEW,
    MIN_BUDGET,
    RUN_VIEW,
    VIEW_TITLES,
    Lab,
    budget_max,
    off_peak,
)
from jupyter_compaction.strategies import STRATEGIES  # noqa: E402

COURSE_README = Path(__file__).resolve().parents[2] / "lessons" / "README.md"


@pytest.fixture
def lab() -> Lab:
    return Lab(budget=8_000)


def test_controls(lab):
    assert list(lab.strategy.options) == list(STRATEGIES)
    assert (lab.budget.min, lab.budget.step) == (2_000, 250)
    assert lab.budget.style.description_width == lab.compare_with.style.description_width \
        == "initial"  # labels are never cut off
    assert lab.scenario.value == "agents"
    assert lab.tabs.titles == ("Context", "Summary", "Events")
    assert repr(lab) == ("<Lab: scenario agents, budget 8000, strategy progressive, "
                         "task state on>")


def test_the_budget_slider_fits_the_scenario_and_labels_its_off_peak(lab):
    peak = off_peak("agents")
    assert peak == lab.compare("off", "clear").runs["off"].peak_context
    assert 2 * peak <= lab.budget.max == budget_max("agents") < 2 * peak + 1_000
    assert f"agents without compaction peaks at {peak:,} tokens" in lab.off_label.value
    span = lab.budget.max - lab.budget.min
    assert (8_000 - 4_000) / span > 0.15  # the lessons' budgets get a good part of it
    lab.scenario.value = "debug"
    assert lab.budget.max == budget_max("debug") != budget_max("agents")
    assert f"{off_peak('debug'):,} tokens" in lab.off_label.value


def test_run_fills_chart_and_tabs(lab):
    run = lab.run()
    assert run.status == "finished" and len(run.compactions) >= 2
    assert lab.chart.turns == [e.turn for e in run.of(TurnStarted)]
    assert len(lab.chart.figure.data[-1].x) == len(run.compactions)
    assert "live messages" in lab.context_view.value
    assert "turn   1  request" in lab.events_view.value
    assert lab.message.value.endswith(f"finished: {run.turn} turns, peak {run.peak_context} "
                                      f"tokens, {len(run.compactions)} compactions, "
                                      f"{run.repeats} repeats; outcome: {run.outcome}; question: "
                                      f"{run.question}</span>")
    assert run.question == "which files under a folder define a tool dispatch table " \
                           "(folder agents)"
    assert run.outcome == "correct"


def test_strategy_is_one_click(lab):
    lab.strategy.value = "trim"
    assert lab.settings().strategy == "trim"
    lab.summary_as_user.value = True
    lab.task_state.value = False
    settings = lab.settings()
    assert settings.summary_role == "user" and settings.task_state is False
    run = lab.run()
    assert run.task_state is None and {c.kind for c in run.compactions} == {"trim"}


def test_summary_tab_shows_a_summary(lab):
    lab.strategy.value = "summarize"
    lab.scenario.value = "logistics"
    lab.budget.value = 9_000
    lab.run()
    assert "summary prompt (" in lab.summary_view.value


def test_step_advances_one_turn_and_restarts_on_change(lab):
    for n in (1, 2, 3):
        run = lab.step()
        assert run.turn == n and run.status == "max_turns"
        assert lab.chart.turns == list(range(1, n + 1))
        assert lab.message.value.count(f"step: turn {n}, request ") == 1
    lab.budget.value = 9_000
    assert lab.step().turn == 1


def test_step_after_the_end_starts_over(lab):
    finished = lab.run()
    assert finished.status == "finished"
    assert lab.step().turn == 1


def test_compare_overlays_two_strategies(lab):
    comparison = lab.compare("off", "clear")
    assert list(comparison.runs) == ["off", "clear"]
    names = [row[0] for row in comparison.rows]
    assert names == ["off", "clear"]
    off, clear = comparison.rows
    assert off[3] == 0 and clear[3] >= 2  # compactions
    assert off[1] > clear[1]  # peak tokens
    assert all(row[5].endswith("%") for row in comparison.rows)
    table, figure = lab.compare_box.children
    assert [t.name for t in figure.data] == ["off", "clear", "budget"]
    assert [t.uid for t in figure.data] == ["compare-0", "compare-1", "compare-2"]
    assert "must-keep recall" in table.value
    assert "off vs clear" in comparison.view().text
    question = scenarios.load(lab.scenario.value).canonical(None)  # the task, as understood
    assert [row[-1] for row in comparison.rows] == [question, question]
    assert "question" in table.value and question in comparison.view().text


def test_compare_defaults_and_bad_names(lab):
    assert (lab.strategy.value, lab.compare_with.value) == ("progressive", "trim")
    lab.strategy.value = "trim"  # never "trim vs trim"
    assert lab.compare_with.value == "clear" and "trim" not in lab.compare_with.options
    lab.compare_with.value = "compact"
    lab.strategy.value = "clear"  # a partner that still differs is kept
    assert list(lab.compare().runs) == ["clear", "compact"]
    with pytest.raises(ValueError, match="unknown strategy 'nope'"):
        lab.compare("nope", "trim")
    assert "unknown strategy" in lab.message.value


def test_out_of_range_budget_is_clamped_with_a_message(lab):
    lab.budget.value = -5
    assert lab.budget.value == MIN_BUDGET
    assert "clamped to 2000" in lab.message.value
    lab.budget.value = 10**9
    assert lab.budget.value == lab.budget.max
    assert f"clamped to {lab.budget.max}" in lab.message.value


@pytest.mark.parametrize("bad", ["abc", 12.5, None, [1], True])
def test_wrong_type_budget_is_refused_with_a_message(lab, bad):
    lab.budget.value = bad
    assert lab.budget.value == 8_000
    assert "budget not changed" in lab.message.value
    assert lab.settings().budget == 8_000


def test_numeric_strings_are_accepted(lab):
    lab.budget.value = "12_500"
    assert lab.budget.value == 12_500


def test_buttons_run_and_errors_land_in_the_message(lab, monkeypatch):
    lab.run_button.click()
    assert lab.current is not None and lab.current.status == "finished"
    lab.step_button.click()
    assert lab.current.turn == 1

    def broken(*args, **kwargs):
        raise RuntimeError("no <b>luck</b>")

    monkeypatch.setattr(lab_module.runner, "start", broken)
    lab.run_button.click()  # no exception escapes a button
    assert lab.message.value.endswith("RuntimeError: no &lt;b&gt;luck&lt;/b&gt;</span>")


def test_lab_displays_as_a_widget(lab):
    bundle = lab._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle


def test_the_lab_reuses_one_workspace_folder_and_removes_it_when_closed(lab, monkeypatch):
    folders = []
    real = lab_module.runner.start

    def spy(*args, **kwargs):
        session = real(*args, **kwargs)
        folders.append(session.agent.workspace.root)
        return session

    monkeypatch.setattr(lab_module.runner, "start", spy)
    lab.run()
    lab.step()
    assert len(folders) == 2 and folders[0] == folders[1] and folders[0].is_dir()
    lab.close()
    assert not folders[0].exists()


def test_the_target_slider_sets_the_target(lab):
    lab.target.value = 0.3
    assert lab.settings().target == 0.3
    run = lab.run()
    assert {e.target_at for e in run.of(TurnStarted)} == {int(0.3 * lab.settings().budget)}


def test_compare_shows_its_result_in_its_own_tab_right_under_the_buttons(lab):
    """Compare's result is where the learner looks, not below the context tabs."""
    buttons = next(i for i, child in enumerate(lab.widget.children)
                   if lab.compare_button in getattr(child, "children", ()))
    after = lab.widget.children[buttons + 1:]
    assert after.index(lab.views) < after.index(lab.tabs)  # above the context tabs
    assert lab.views.titles == VIEW_TITLES and lab.views.children[RUN_VIEW] is lab.chart.figure
    assert lab.views.selected_index == RUN_VIEW
    lab.compare("off", "clear")
    assert lab.views.selected_index == COMPARE_VIEW
    assert lab.views.children[COMPARE_VIEW] is lab.compare_box
    lab.run()
    assert lab.views.selected_index == RUN_VIEW
    lab.compare("off", "clear")
    lab.step()
    assert lab.views.selected_index == RUN_VIEW


def test_every_scenario_in_the_menu_is_described_in_the_course_readme(lab):
    """A learner who picks a scenario can read what it is: `name` (what it asks)."""
    readme = COURSE_README.read_text(encoding="utf-8")
    undescribed = [name for name in lab.scenario.options
                   if not re.search(rf"`{re.escape(name)}` \([^)]*\w[^)]*\)", readme)]
    assert undescribed == [], f"scenarios in the lab's menu not described in {COURSE_README.name}"
