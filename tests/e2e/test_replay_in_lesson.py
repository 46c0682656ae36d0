"""End to end: lesson 9's `%replay` of a real Claude Code session, in JupyterLab.

The notebook holds lesson 9's own cells that load the session, set `CONTEXT_BUDGET` and
run `%replay ... --strategy trim`, taken from the lesson file, so the test breaks when the
lesson does. In real JupyterLab and headless Chromium it checks that the replay chart
draws one point per model call of the session, the API-reported tokens beside the local
count, and the budget line at the lesson's budget. A screenshot lands in `test-artifacts/`.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from tests.e2e.pages import ARTIFACTS, plot_state, run_all_cells

LESSON = Path(__file__).resolve().parents[2] / "lessons" / "09_real_session.ipynb"
REPORTED = "reported by the API (original session)"

REPLAY_S = 180  # quiet-machine seconds for the replay chart of the whole session

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def lesson_cells() -> tuple[list[str], int]:
    """Lesson 9's setup cell, its budget cell and its first `%replay` cell; the budget."""
    code = [c.source for c in nbformat.read(LESSON, as_version=4).cells if c.cell_type == "code"]
    budget = next(s for s in code if re.match(r"CONTEXT_BUDGET = ", s))
    replay = next(s for s in code if s.startswith("%replay") and "--strategy trim" in s)
    assert code[0].startswith("%load_ext jupyter_compaction")
    value = int(re.match(r"CONTEXT_BUDGET = ([\d_]+)", budget).group(1).replace("_", ""))
    return [code[0], budget, replay], value


def test_replay_chart_of_a_real_session_renders(open_notebook, waits):
    cells, budget = lesson_cells()
    ARTIFACTS.mkdir(exist_ok=True)
    page = open_notebook(cells)
    run_all_cells(page)
    page.wait_for_function(
        """(() => { const gd = document.querySelector('.js-plotly-plot');
             return gd && gd.data && gd.data.some(t => t.x && t.x.length > 10); })()""",
        timeout=waits.ms(REPLAY_S))
    chart = plot_state(page, 0)
    names = page.evaluate("() => document.querySelector('.js-plotly-plot').data"
                          ".map(t => t.name)")
    assert chart["svg"] >= 1 and max(chart["points"]) > 10
    assert REPORTED in names, names
    assert chart["budget"] and chart["budget"][0] == budget
    page.screenshot(path=str(ARTIFACTS / "lesson-09-replay-full-page.png"), full_page=True)
