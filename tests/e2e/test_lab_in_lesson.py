"""End to end: the lab opened by a lesson's own code cell, used as a learner would.

The notebook holds lesson 10's cells that load the extension, set `CONTEXT_BUDGET` and
open the lab (`%compaction_lab`), taken from the lesson file, so the test breaks when the
lesson does. In real JupyterLab and headless Chromium it checks that the slider's range
fits the scenario and its labels are not cut off, drags the budget slider to a value
within the lessons' 4k-8k range, picks a strategy, presses Run (the chart redraws with the
new budget) and Compare (a second chart with two different strategies and the comparison
table appear). Screenshots of both states land in `test-artifacts/`.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from tests.e2e.pages import ARTIFACTS, plot_state, run_all_cells

LESSON = Path(__file__).resolve().parents[2] / "lessons" / "10_api_context_management.ipynb"
LESSON_RANGE = (4_000, 8_000)
TARGET = 6_000

RENDER_S = 120  # quiet-machine seconds for a run's chart, the lab or the comparison
CONTROL_S = 10  # for the page to follow a drag or a click

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def lesson_cells() -> list[str]:
    """The lesson's cells that load the extension, set the budget and open the lab."""
    code = [c.source for c in nbformat.read(LESSON, as_version=4).cells if c.cell_type == "code"]
    budget = next(s for s in code if re.match(r"CONTEXT_BUDGET = ", s))
    opens = [s for s in code if s.strip() == "%compaction_lab"]
    assert code[0].startswith("%load_ext jupyter_compaction") and len(opens) == 1
    return ["%load_ext jupyter_compaction", budget, opens[0]]


def slider(page) -> dict:
    """The budget slider's range and value, as its handle reports them (noUiSlider)."""
    return page.evaluate("""() => {
        const h = document.querySelector('.widget-slider .noUi-handle');
        return {min: +h.getAttribute('aria-valuemin'), max: +h.getAttribute('aria-valuemax'),
                now: +h.getAttribute('aria-valuenow')};
    }""")


def drag_budget(page, value: int) -> None:
    """Drag the slider's handle to where `value` sits on its track."""
    state = slider(page)
    track = page.locator(".widget-slider .noUi-target").first.bounding_box()
    handle = page.locator(".widget-slider .noUi-handle").first.bounding_box()
    x = track["x"] + track["width"] * (value - state["min"]) / (state["max"] - state["min"])
    page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.mouse.down()
    page.mouse.move(x, handle["y"] + handle["height"] / 2, steps=12)
    page.mouse.up()


def test_a_lesson_cell_opens_the_lab_and_run_and_compare_work(open_notebook, waits):
    from jupyter_compaction.jupyter.lab import budget_max

    ARTIFACTS.mkdir(exist_ok=True)
    page = open_notebook(lesson_cells())
    run_all_cells(page)
    page.wait_for_selector(".widget-slider .noUi-handle", timeout=waits.ms(RENDER_S))
    state = slider(page)
    assert (state["min"], state["max"]) == (2_000, budget_max("agents"))
    assert page.get_by_text("without compaction peaks at").count() == 1
    cut = page.evaluate("""() => Array.from(document.querySelectorAll('.widget-label'))
        .filter(l => l.scrollWidth > l.clientWidth + 1).map(l => l.textContent)""")
    assert cut == [], f"labels cut off: {cut}"

    drag_budget(page, TARGET)
    page.wait_for_function("+document.querySelector('.widget-slider .noUi-handle')"
                           ".getAttribute('aria-valuenow') !== 8000", timeout=waits.ms(CONTROL_S))
    budget = slider(page)["now"]
    assert LESSON_RANGE[0] <= budget <= LESSON_RANGE[1] and budget != 8_000
    page.get_by_role("button", name="clear", exact=True).click()
    page.get_by_role("button", name="Run", exact=True).click()
    page.wait_for_function(
        f"""(() => {{ const gd = document.querySelectorAll('.js-plotly-plot')[0];
             const b = gd && gd.data && gd.data.find(t => t.name === 'budget');
             return b && b.y[0] === {budget} && gd.data[0].x.length > 3; }})()""",
        timeout=waits.ms(RENDER_S))
    run_chart = plot_state(page, 0)
    assert run_chart["svg"] >= 1 and max(run_chart["points"]) > 3
    page.get_by_text("finished:").first.wait_for(timeout=waits.ms(CONTROL_S))
    # the run's outcome against its workspace's truth is shown with it (issue 21)
    page.get_by_text(re.compile(r"outcome: (correct|partial|wrong|stuck)")).first.wait_for(
        timeout=waits.ms(CONTROL_S))
    page.screenshot(path=str(ARTIFACTS / "lab-in-lesson-run.png"), full_page=True)

    page.get_by_role("button", name="Compare", exact=True).click()
    page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2",
                           timeout=waits.ms(RENDER_S))
    page.get_by_text("must-keep recall").first.wait_for(timeout=waits.ms(3 * CONTROL_S))
    names = page.evaluate("""() => document.querySelectorAll('.js-plotly-plot')[1].data
        .map(t => t.name)""")
    assert names[0] == "clear" and names[1] not in ("clear", "budget") and names[-1] == \
        "budget", names
    assert page.get_by_text(f"compared clear and {names[1]} on agents").count() == 1
    page.screenshot(path=str(ARTIFACTS / "lab-in-lesson-compare.png"), full_page=True)
