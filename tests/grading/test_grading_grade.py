"""`jupyter-compaction grade` on small notebooks in real kernels, two at a time.

One module-scoped run grades all the notebooks (kernel startups are the cost); the tests
read its JSON. The notebooks: full marks, released stubs, a wrong solution (partial
credit naming the failed case), an endless loop (interrupted, graded on what ran), a cell
that kills the kernel, and one that ignores the interrupt.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_compaction.cli import main
from jupyter_compaction.grading import CheckResult, Failure, grader
from jupyter_compaction.grading.grader import NotebookGrade, exercises_in, table
from tests.grading.grading_solutions import REFERENCE, WRONG, stub

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 3
CHECK = "from jupyter_compaction.grading import check\ncheck({!r})"
ENV_GUARD = "import os\nassert os.environ['JUPYTER_COMPACTION_TEXT'] == '1'\n"
WRONG_EX7 = next(s for e, s, c in WRONG if c == "duplicates count once")
IGNORE_INTERRUPTS = ("import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                     "while True:\n    time.sleep(0.05)")

NOTEBOOKS = {
    "full": [ENV_GUARD + REFERENCE["ex3"], CHECK.format("ex3"), REFERENCE["ex5"],
             ("from jupyter_compaction.grading import register_magics\n"
                                 "register_magics(get_ipython())\n%check ex5"), REFERENCE["ex8"]],
    "stub": [stub("ex3"), CHECK.format("ex3"), stub("ex4b"), CHECK.format("ex4b")],
    "wrong": [WRONG_EX7, CHECK.format("ex7"), "print('@@jupyter-compaction-grade@@ [])')"],
    "loop": [REFERENCE["ex3"], "while True:\n    pass\n" + REFERENCE["ex5"], "1 / 0",
             CHECK.format("ex3"), CHECK.format("ex5")],
    "dies": [REFERENCE["ex3"], "import os\nos._exit(1)", REFERENCE["ex7"], CHECK.format("ex7")],
    "hangs": [REFERENCE["ex6"], IGNORE_INTERRUPTS, REFERENCE["ex3"], CHECK.format("ex6")],
}


def write(folder: Path, name: str, cells: list[str]) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("notebooks")
    paths = [str(write(folder, name, cells)) for name, cells in NOTEBOOKS.items()]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("JUPYTER_COMPACTION_TEXT", None)
    done = subprocess.run(
        [sys.executable, "-m", "jupyter_compaction.cli", "grade", *paths, "--json",
         "--jobs", "2", "--timeout", str(TIMEOUT_S)],
        capture_output=True, text=True, env=env, cwd=folder, timeout=180)
    assert done.returncode == 0, done.stderr
    notebooks = json.loads(done.stdout)["notebooks"]
    assert [Path(n["notebook"]).stem for n in notebooks] == list(NOTEBOOKS)
    return {Path(n["notebook"]).stem: n for n in notebooks}


def scores(notebook: dict) -> dict[str, tuple[int, int]]:
    return {e["exercise"]: (e["passed"], e["total"]) for e in notebook["exercises"]}


def test_full_marks_in_a_text_mode_kernel(graded):
    full = graded["full"]
    assert scores(full) == {"ex3": (8, 8), "ex5": (9, 9), "ex8": (6, 6)}
    assert full["passed"] == full["total"] == 23 and full["problems"] == []


def test_stubs_score_zero(graded):
    stubbed = graded["stub"]
    assert scores(stubbed) == {"ex3": (0, 8), "ex4b": (0, 9)}
    messages = [m for e in stubbed["exercises"] for _, m in e["failures"]]
    assert all(m.endswith("[NotImplementedError: write your solution here]") for m in messages)


def test_a_wrong_solution_gets_partial_credit_naming_the_failed_case(graded):
    wrong = graded["wrong"]
    assert scores(wrong) == {"ex7": (6, 7)}
    assert [case for case, _ in wrong["exercises"][0]["failures"]] == ["duplicates count once"]


def test_an_endless_loop_is_interrupted_and_the_rest_is_graded(graded):
    loop = graded["loop"]
    assert scores(loop) == {"ex3": (8, 8), "ex5": (0, 9)}  # ex5 was defined after the loop
    assert loop["exercises"][1]["failures"][0][0] == "function missing"
    assert loop["problems"] == [f"cell 1 timed out after {TIMEOUT_S} s and was interrupted"]


def test_a_dead_kernel_is_replaced_and_what_was_earned_still_counts(graded):
    dies = graded["dies"]
    assert scores(dies) == {"ex3": (8, 8), "ex7": (7, 7)}
    assert dies["problems"] == ["cell 1 killed the kernel; rerun in a fresh kernel without it"]


def test_a_cell_that_ignores_the_interrupt_is_dropped(graded):
    hangs = graded["hangs"]
    assert scores(hangs) == {"ex3": (8, 8), "ex6": (7, 7)}
    assert hangs["problems"] == [
        "cell 1 ignored the interrupt after its timeout; rerun in a fresh kernel without it"]


def test_jobs_limits_how_many_notebooks_run_at_once(monkeypatch):
    running, peak = 0, 0

    async def fake(path, timeout, kernel):
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.05)
        running -= 1
        return NotebookGrade(str(path))

    monkeypatch.setattr(grader, "grade_notebook", fake)
    grades = grader.grade([f"{n}.ipynb" for n in range(7)], jobs=3)
    assert [g.notebook for g in grades] == [f"{n}.ipynb" for n in range(7)]
    assert peak == 3


def test_a_missing_notebook_is_a_one_line_usage_error(tmp_path, capsys):
    assert main(["grade", str(tmp_path / "nope.ipynb")]) == 2
    err = capsys.readouterr().err
    assert err == f"error: no such notebook: {tmp_path / 'nope.ipynb'}\n"
    (tmp_path / "bad.ipynb").write_text("not json")
    assert main(["grade", str(tmp_path / "bad.ipynb")]) == 2
    assert capsys.readouterr().err.startswith("error: not a notebook:")
    with pytest.raises(SystemExit) as info:
        main(["grade", str(tmp_path / "bad.ipynb"), "--jobs", "0"])
    assert info.value.code == 2


def test_exercises_are_found_by_check_calls_and_function_definitions():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("def tail_start(messages, counter, tail_tokens):\n    ..."),
        nbformat.v4.new_code_cell("%check ex5\ncheck('ex2')\ncheck( \"ex99\" )"),
        nbformat.v4.new_markdown_cell("check('ex7')")])
    assert exercises_in(nb) == ["ex2", "ex4", "ex5"]


def test_the_table_has_a_row_per_notebook_and_exercise():
    grades = [
        NotebookGrade("a.ipynb", [CheckResult("ex3", 8, 8), CheckResult(
            "ex5", 7, 9, [Failure("exactly 10 %", "h [x]"), Failure("zero tokens before", "h")])],
            ["cell 2 timed out after 60 s and was interrupted"], 3.0),
        NotebookGrade("stub.ipynb", [CheckResult("ex4", 0, 2, [
            Failure("a", "hint a [NotImplementedError: write your solution here]"),
            Failure("b", "hint b [NotImplementedError: write your solution here]")])]),
    ]
    lines = table(grades).splitlines()
    assert lines[0].split(" | ") == ["notebook  ", "exercise", "passed/total", "failed cases"]
    assert lines[2].split(" | ") == ["a.ipynb   ", "ex3     ", "8/8         ", "-"]
    assert lines[3].endswith("| 7/9          | exactly 10 %; zero tokens before")
    assert lines[4].endswith("| all (NotImplementedError: write your solution here)")
    assert "a.ipynb: 15/17 in 3.0 s" in lines
    assert "  note: cell 2 timed out after 60 s and was interrupted" in lines
