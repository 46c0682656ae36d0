"""End to end: each lesson's key figure, rendered in JupyterLab and saved as a screenshot.

One notebook holds, for every lesson, the cell that draws its key figure (the token chart
of a run, the summary inspector, the replay chart of a real session, the lab), with the
cells it needs (the budget the lesson sets above it, a named run), all taken from the lesson
files, so the test breaks when a lesson does. It runs once in real JupyterLab and headless
Chromium; each figure's output is checked where it applies (a plotly chart with its traces
drawn and the budget line at the lesson's budget; the summary's prompt and summary columns;
the lab's slider, and its chart once Run is pressed; no word in a table broken mid-word) and
screenshotted as `test-artifacts/lesson-NN-<name>.png`; lesson 1's chart alone must have
the shape of the README's `docs/chart.png` (see readme_chart.py).

Left out: clicking through the figures (test_lab_in_lesson.py drives the lab's controls,
test_replay_in_lesson.py checks the replay chart's API-reported trace).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest

from tests.e2e import readme_chart
from tests.e2e.pages import ARTIFACTS, run_all_cells

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
RENDER_S = 120  # quiet-machine seconds for one figure (the cells above it run first)
BUDGET_CELL = re.compile(r"CONTEXT_BUDGET = ([\d_]+)")
BUDGET_FLAG = re.compile(r"--budget (\d+)")
SHORT_CELL = 40  # characters: a label or a value, checked for words broken mid-word
SIZE_TOLERANCE = 0.05  # the README's chart may differ this much in width or height

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@dataclass(frozen=True)
class Figure:
    """A lesson's key figure: the cell that draws it (its first line starts with `cell`),
    the lesson's cells it needs (first lines), and what kind of output it is."""

    lesson: int
    name: str
    cell: str
    kind: str  # "chart", "summary" or "lab"
    needs: tuple[str, ...] = ()


FIGURES = [
    Figure(1, "token-chart-no-compaction", "%agent --scenario agents --strategy off", "chart"),
    Figure(2, "clearing-run", "%agent --scenario agents --strategy clear", "chart"),
    Figure(3, "trimming-run", "%agent --scenario debug --strategy trim --quiet", "chart"),
    Figure(4, "summarize-middle-run", "%agent --scenario logistics --strategy summarize",
           "chart"),
    Figure(5, "same-model-summarizer-run", "%agent --scenario debug --strategy summarize",
           "chart"),
    Figure(6, "notes-file-run", "%agent --scenario logistics --strategy summarize", "chart"),
    Figure(7, "summary-inspector", "%summary debug_summary", "summary",
           needs=("%agent --scenario debug --strategy summarize",)),
    Figure(8, "capstone-run", "%agent --scenario audit --strategy summarize", "chart"),
    Figure(9, "replay-real-session", "%replay {PATH} --strategy trim", "chart",
           needs=("%load_ext jupyter_compaction",)),
    Figure(10, "lab", "%compaction_lab", "lab"),
]


def lesson_code(number: int) -> list[str]:
    path = next(LESSONS.glob(f"{number:02d}_*.ipynb"))
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]


def figure_cells(figure: Figure) -> tuple[list[str], int | None]:
    """The cells that draw `figure`, in lesson order, and the budget the figure is drawn at."""
    code = lesson_code(figure.lesson)
    at = next(i for i, s in enumerate(code) if s.startswith(figure.cell))
    picked = [next(i for i, s in enumerate(code[:at]) if s.startswith(n)) for n in figure.needs]
    budgets = [i for i, s in enumerate(code[:at]) if BUDGET_CELL.match(s)]
    if budgets:
        picked.append(budgets[-1])
    shown = code[at].replace(" --quiet", "") if figure.kind == "chart" else code[at]
    cells = [code[i] for i in sorted(set(picked))] + [shown]
    flag = BUDGET_FLAG.search(code[at])
    value = flag.group(1) if flag else budgets and BUDGET_CELL.match(code[budgets[-1]]).group(1)
    return cells, int(value.replace("_", "")) if value else None


def build() -> tuple[list[str], list[tuple[Figure, int, int | None]]]:
    """The notebook's sources, and for each figure: the index of its cell and its budget."""
    sources = ["%load_ext jupyter_compaction"]
    where = []
    for figure in FIGURES:
        cells, budget = figure_cells(figure)
        sources += [s for s in cells if s.strip() != "%load_ext jupyter_compaction"
                    or "\n" in s.strip()]
        where.append((figure, len(sources) - 1, budget))
    return sources, where


def chart_state(output) -> dict | None:
    """Points per trace and the budget line of the first plotly chart in an output area."""
    return output.evaluate("""(area) => {
        const gd = area.querySelector('.js-plotly-plot');
        if (!gd || !gd.data) return null;
        const budget = gd.data.find(t => t.name === 'budget');
        return {points: gd.data.map(t => (t.x ? t.x.length : 0)),
                budget: budget ? Array.from(budget.y) : null,
                svg: gd.querySelectorAll('svg.main-svg').length};
    }""")


def broken_words(output) -> list[str]:
    """The short table cells (labels, values) of an output drawn on more lines than they
    have words: a word broken mid-word ("peak cont ext", "sta tus")."""
    return output.evaluate("""(area) => Array.from(area.querySelectorAll('th, td'))
        .map(c => [c, c.textContent.trim()])
        .filter(([c, text]) => text && text.length <= SHORT)
        .filter(([c, text]) => { const r = document.createRange(); r.selectNodeContents(c);
            const lines = new Set(Array.from(r.getClientRects()).map(x => Math.round(x.top)));
            return lines.size > text.split(/\\s+/).length; })
        .map(([c, text]) => text)""".replace("SHORT", str(SHORT_CELL)))


def wait_for(output, kind: str, waits) -> None:
    ready = {
        "chart": """(area) => { const gd = area.querySelector('.js-plotly-plot');
                     return !!(gd && gd.data && gd.data.some(t => t.x && t.x.length > 3)); }""",
        "summary": "(area) => area.textContent.includes('summary prompt (')",
        "lab": """(area) => !!(area.querySelector('.widget-slider .noUi-handle')
                              && area.querySelector('.js-plotly-plot'))""",
    }[kind]
    output.page.wait_for_function(f"(el) => ({ready})(el)", arg=output.element_handle(),
                                  timeout=waits.ms(RENDER_S))


def check_readme_chart(output, budget: int) -> None:
    """Screenshot lesson 1's chart as `test-artifacts/readme-chart.png`, with the shape
    seen in the page stored in it, and compare that shape with `docs/chart.png`'s."""
    png = ARTIFACTS / "readme-chart.png"
    output.locator(".js-plotly-plot").first.screenshot(path=str(png))
    names = output.evaluate("(area) => Array.from(area.querySelector('.js-plotly-plot').data,"
                            " t => t.name)")
    seen = {"traces": dict(zip(names, chart_state(output)["points"], strict=True)),
            "budget": budget}
    readme_chart.store_shape(png, seen)
    committed = readme_chart.shape(readme_chart.CHART) if readme_chart.CHART.exists() else {}
    changed = f"lesson 1's figure changed shape; {readme_chart.REFRESH}"
    assert committed == seen, (changed, committed, seen)
    for now, then in zip(readme_chart.size(png), readme_chart.size(readme_chart.CHART),
                         strict=True):
        assert abs(now - then) <= SIZE_TOLERANCE * then, (changed, now, then)


def test_each_lesson_key_figure_renders_and_is_saved(open_notebook, waits):
    sources, where = build()
    ARTIFACTS.mkdir(exist_ok=True)
    page = open_notebook(sources)
    page.add_style_tag(content=".Toastify { display: none !important; }")  # news toasts
    run_all_cells(page)
    for figure, index, budget in where:
        cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
        output = cell.locator(".jp-Cell-outputArea")  # the cell's own, not a widget's inside
        output.scroll_into_view_if_needed(timeout=waits.ms(RENDER_S))
        wait_for(output, figure.kind, waits)
        if figure.cell.startswith("%agent"):  # the run's result table comes at its end
            output.get_by_text("(stored in").first.wait_for(timeout=waits.ms(RENDER_S))
        label = f"lesson {figure.lesson} ({figure.name})"
        if figure.kind == "chart":
            state = chart_state(output)
            assert state["svg"] >= 1 and max(state["points"]) > 3, label
            assert state["budget"] and state["budget"][0] == budget, (label, state)
        elif figure.kind == "summary":
            text = output.inner_text()
            assert "summary prompt (" in text and "summary (" in text, label
            assert "dropped by this compaction" in text, label
        else:  # the lab: press Run, the chart draws the run at the lesson's budget
            assert output.get_by_text("without compaction peaks at").count() == 1, label
            output.get_by_role("button", name="Run", exact=True).click()
            wait_for(output, "chart", waits)
            state = chart_state(output)
            assert state["budget"] and state["budget"][0] == budget, (label, state)
        assert broken_words(output) == [], f"{label}: words broken mid-word"
        png = ARTIFACTS / f"lesson-{figure.lesson:02d}-{figure.name}.png"
        output.screenshot(path=str(png), timeout=waits.ms(RENDER_S))  # once redraws settle
        assert png.stat().st_size > 5_000, f"{png.name} is nearly empty"
        if figure.lesson == 1:
            check_readme_chart(output, budget)
