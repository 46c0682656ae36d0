"""End to end: real JupyterLab, real headless Chromium (Debian's), driven by Playwright.

Opens a notebook in the session's JupyterLab (tests/e2e/conftest.py), runs a `%agent`
cell and the lab, and checks in the page itself that the plotly chart rendered with one
point per turn, and that moving the lab's budget slider and pressing Run redraws the
chart. A screenshot lands in `test-artifacts/`. Skipped only where /usr/bin/chromium is
missing (`.ci/run` installs it, so CI runs this test).
"""

from __future__ import annotations

import pytest

from tests.e2e.pages import ARTIFACTS, plot_state, run_all_cells

CELLS = [
    "%load_ext jupyter_compaction",
    "%agent --scenario agents --budget 8000",
    "from jupyter_compaction.jupyter.lab import Lab\n"
    "lab = Lab(scenario='agents', budget=8000)\nlab",
]
RUN_S = 120  # quiet-machine seconds for the run's chart and the lab to render
REDRAW_S = 60

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_chart_renders_and_lab_controls_redraw_it(open_notebook, waits):
    page = open_notebook(CELLS)
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        run_all_cells(page)
        page.wait_for_function("document.querySelectorAll('.js-plotly-plot').length >= 2",
                               timeout=waits.ms(RUN_S))
        page.wait_for_function(  # the run's chart got its points (not just its axes)
            "document.querySelectorAll('.js-plotly-plot')[0].data.some(t => t.x && t.x.length > 3)",
            timeout=waits.ms(REDRAW_S))
        page.get_by_role("button", name="Run", exact=True).click()
        page.wait_for_function(
            "document.querySelectorAll('.js-plotly-plot')[1].data[0].x.length > 3",
            timeout=waits.ms(REDRAW_S))

        run_chart = plot_state(page, 0)
        assert run_chart["svg"] >= 1, "the plot's SVG is in the page"
        assert max(run_chart["points"]) > 3, "one point per turn was added during the run"
        before = plot_state(page, 1)
        assert before["budget"] and before["budget"][0] == 8000

        slider_readout = page.locator(".widget-slider .widget-readout").first
        slider_readout.click()
        page.keyboard.press("Control+A")
        page.keyboard.type("6000")
        page.keyboard.press("Enter")
        page.get_by_role("button", name="Run", exact=True).click()
        page.wait_for_function(
            "Array.from(document.querySelectorAll('.js-plotly-plot')[1].data"
            ".find(t => t.name === 'budget').y)[0] === 6000", timeout=waits.ms(REDRAW_S))
        after = plot_state(page, 1)
        assert after["budget"][0] == 6000
        assert after["points"] != before["points"], "another budget redraws the curves"
    finally:
        page.screenshot(path=str(ARTIFACTS / "jupyterlab-e2e.png"), full_page=True)
