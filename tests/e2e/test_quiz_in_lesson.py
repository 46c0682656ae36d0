"""End to end: a lesson's quiz answered in JupyterLab.

The notebook holds lesson 2's setup cell and its quiz cell, taken from the lesson file
with one answer filled in as a learner would (the answer read from the lesson's stored
outputs, `test_lesson_quiz.READ`), so the test breaks when the lesson does. In real
JupyterLab and headless Chromium, running it shows that question marked right with its
explanation, the unanswered ones without theirs, and `check("quiz2")` counting it.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from tests.e2e.pages import run_all_cells

LESSON = Path(__file__).resolve().parents[2] / "lessons" / "02_clearing_tool_results.ipynb"
ANSWERED = "q2.2"
RUN_S = 60  # quiet-machine seconds for the two cells

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def quiz_notebook() -> list[str]:
    """Lesson 2's first code cell, and its quiz cell with one answer filled in."""
    from tests.lessons.test_lesson_quiz import READ, outputs

    code = [c.source for c in nbformat.read(LESSON, as_version=4).cells if c.cell_type == "code"]
    quiz_cell = next(s for s in code if 'check("quiz2")' in s)
    answer = READ[ANSWERED](outputs(2))
    filled = quiz_cell.replace(f'"{ANSWERED}": ""', f'"{ANSWERED}": "{answer}"')
    assert filled != quiz_cell, "the quiz cell records the answer in QUIZ2"
    return [code[0], filled]


def test_a_quiz_answer_is_marked_and_explained_in_jupyterlab(open_notebook, waits):
    from jupyter_compaction.grading.quiz import question, questions_of

    page = open_notebook(quiz_notebook())
    run_all_cells(page)
    total = len(questions_of(2))
    page.get_by_text(f"score: 1/{total}").wait_for(timeout=waits.ms(RUN_S))
    shown = page.locator(".jp-OutputArea-output").all_inner_texts()
    text = "\n".join(shown)
    assert f"PASS  {ANSWERED}" in text and question(ANSWERED).explanation in text
    others = [q for q in questions_of(2) if q.id != ANSWERED]
    assert all(f"not answered  {q.id}" in text and q.explanation not in text for q in others)
