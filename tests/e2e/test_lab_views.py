"""End to end: where Compare's result appears, and the lab's chart after a reload and a restart.

In real JupyterLab and headless Chromium, with the lab opened by lesson 10's own cells:

1. In a 1,400 x 900 window with the lab's top at the top of the notebook, Compare's table
   and chart show without scrolling (their box lies inside the window); a screenshot of
   that window lands in `test-artifacts/lab-compare-1400x900.png`.
2. After Run, the notebook is saved and the page reloaded (the frontend reconnects to the
   running kernel and asks it for every widget's state): the main chart still has its
   title, its points, its trace names and its caption. Before the figures' state was kept
   current it came back without points.
3. After "Reconnect to Kernel" and "Restart Kernel and Run All Cells", the new lab's main
   chart has its title, and Run draws its points.
"""

from __future__ import annotations

import json

import pytest

from jupyter_compaction.jupyter.chart import TITLE
from jupyter_compaction.jupyter.lab import COMPARE_CLASS, LAB_CLASS, VIEW_TITLES
from tests.e2e.pages import ARTIFACTS, accept_kernel_dialog, run_all_cells
from tests.e2e.test_lab_in_lesson import lesson_cells

WINDOW = {"width": 1400, "height": 900}
RENDER_S = 120  # quiet-machine seconds for the lab, a run's chart or the comparison
CONTROL_S = 10  # for the page to follow a click
MIN_POINTS = 4  # a run of the lesson's scenario plays more turns than this
MAIN_CHART = f".{LAB_CLASS} .js-plotly-plot"  # the first one is the main chart

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHART_STATE = """(selector) => {
    const gd = document.querySelector(selector);
    if (!gd || !gd.layout) return null;
    const title = gd.layout.title;
    return {title: title ? (title.text || '') : '',
            caption: title && title.subtitle ? (title.subtitle.text || '') : '',
            unnamed: gd.data.filter(t => !t.name).map(t => t.uid),
            points: Math.max(0, ...gd.data.map(t => (t.x ? t.x.length : 0)))};
}"""


def main_chart(page) -> dict | None:
    """The main chart's title and its most points in a trace, as plotly holds them."""
    return page.evaluate(CHART_STATE, MAIN_CHART)


def wait_for_chart(page, waits, *, points: int) -> None:
    """Until the main chart has its title and at least `points` points in a trace."""
    page.wait_for_function(
        f"([selector, title, points]) => {{ const s = ({CHART_STATE})(selector);"
        " return s && s.title === title && s.points >= points; }",
        arg=[MAIN_CHART, TITLE, points], timeout=waits.ms(RENDER_S))


def menu(page, top: str, item: str) -> None:
    page.locator(".lm-MenuBar-itemLabel", has_text=top).first.click()
    page.locator(".lm-Menu-itemLabel", has_text=item).first.click()


def press_run(page, waits) -> None:
    page.get_by_role("button", name="Run", exact=True).click()
    page.get_by_text("finished:").first.wait_for(timeout=waits.ms(RENDER_S))
    # the chart as a learner sees it: scrolled into the window (a 900-pixel window shows
    # the lab's controls and its message, and JupyterLab draws what is in view)
    page.locator(MAIN_CHART).first.scroll_into_view_if_needed(timeout=waits.ms(RENDER_S))
    wait_for_chart(page, waits, points=MIN_POINTS)
    check_drawn(page)


def check_drawn(page) -> None:
    """Every trace keeps its name, and the caption says the reported line equals the stack."""
    state = main_chart(page)
    assert state["unnamed"] == [], f"traces that lost their names: {state['unnamed']}"
    assert "local count on every turn" in state["caption"], state


def test_compare_shows_in_view_and_the_chart_survives_reload_and_restart(
        request, open_notebook, lab, waits):
    ARTIFACTS.mkdir(exist_ok=True)
    page = open_notebook(lesson_cells())
    page.set_viewport_size(WINDOW)
    run_all_cells(page)
    page.wait_for_selector(f".{LAB_CLASS} .widget-slider .noUi-handle",
                           timeout=waits.ms(RENDER_S))
    press_run(page, waits)

    # 1. Compare, seen from the lab's controls: its result shows without scrolling
    page.locator(f".{LAB_CLASS}").first.evaluate("el => el.scrollIntoView({block: 'start'})")
    page.get_by_role("button", name="Compare", exact=True).click()
    result = page.locator(f".{COMPARE_CLASS}").first
    result.locator(".js-plotly-plot").wait_for(timeout=waits.ms(RENDER_S))
    page.get_by_text("must-keep recall").first.wait_for(timeout=waits.ms(CONTROL_S))
    page.screenshot(path=str(ARTIFACTS / "lab-compare-1400x900.png"))
    box = result.bounding_box()
    assert box is not None, "Compare's result is not shown"
    assert box["y"] >= 0 and box["y"] + box["height"] <= WINDOW["height"], box
    assert box["x"] >= 0 and box["x"] + box["width"] <= WINDOW["width"], box

    # 2. the page reloaded: the kernel's widget state still holds the chart's points
    page.get_by_role("tab", name=VIEW_TITLES[0]).click()
    menu(page, "File", "Save Notebook")
    name = request.node.name
    page.wait_for_function("!document.querySelector('.jp-mod-dirty')",
                           timeout=waits.ms(CONTROL_S))
    saved = json.loads(lab.api(f"contents/{name}.ipynb"))["content"]
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {})
               for c in saved["cells"] for o in c.get("outputs", [])), "the lab was not saved"
    page.reload()
    accept_kernel_dialog(page)
    try:
        wait_for_chart(page, waits, points=MIN_POINTS)
        check_drawn(page)
    finally:
        page.screenshot(path=str(ARTIFACTS / "lab-after-reload.png"))

    # 3. reconnect, then restart and run every cell: the new chart has its title, Run draws
    old = page.locator(f".{LAB_CLASS}").first.element_handle()
    menu(page, "Kernel", "Reconnect to Kernel")
    menu(page, "Kernel", "Restart Kernel and Run All Cells")
    page.locator(".jp-Dialog .jp-mod-accept").click(timeout=waits.ms(CONTROL_S))
    page.wait_for_function("el => !el.isConnected", arg=old, timeout=waits.ms(RENDER_S))
    page.wait_for_selector(f".{LAB_CLASS} .widget-slider .noUi-handle",
                           timeout=waits.ms(RENDER_S))
    try:
        wait_for_chart(page, waits, points=0)
        press_run(page, waits)
    finally:
        page.screenshot(path=str(ARTIFACTS / "lab-after-restart.png"))
    assert main_chart(page)["points"] >= MIN_POINTS
