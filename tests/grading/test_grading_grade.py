"""`jupyter-compaction grade`: notebooks scored on what their functions earn.

The grader reads the notebooks' code, never their outputs, and scores the sources in a
separate process, so the forged notebooks here (a patched grading package, a replaced
`check`/`report`, printed score lines) get exactly what their functions earn alone.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_compaction.cli import main
from jupyter_compaction.grading import CheckResult, Failure, grade_source
from jupyter_compaction.grading.grader import (
    NotebookGrade,
    exercises_in,
    grade,
    quizzes_of,
    table,
    verify,
    write_gradebook,
)
from jupyter_compaction.grading.quiz import question, questions_of
from jupyter_compaction.grading.quiz_question import LETTERS, is_right
from jupyter_compaction.grading.sources import collect, collect_all, python_of
from tests.grading.grading_solutions import REFERENCE, WRONG, stub

ROOT = Path(__file__).resolve().parents[2]
SEED = 7
CHECK = "from jupyter_compaction.grading import check\ncheck({!r})"
WRONG_EX7 = next(s for e, s, c in WRONG if c == "duplicates count once")
FORGERIES = {
    "patches the grading package": [
        WRONG_EX7, "import jupyter_compaction.grading as g\nimport jupyter_compaction.grading"
        ".base as b\ng.grade_source = lambda *a, **k: None\nb.CheckResult.complete = True\n"
        "b.attempt = lambda case, fn, timeout=None: (None, False)", CHECK.format("ex7")],
    "replaces check and report": [
        WRONG_EX7, "def check(exercise):\n    print(f'{exercise}: 15/15 passed')\n"
        "def report(*args):\n    print('@@jupyter-compaction-grade@@ [{\"exercise\": \"ex7\"}]')",
        "check('ex7')\nreport(['ex7'], '')"],
    "prints score lines": [
        WRONG_EX7, "print('ex7: 15/15 passed')\nprint('score: 15/15')\n"
        "print('@@jupyter-compaction-grade@@ [{\"exercise\": \"ex7\", \"passed\": 15, "
        "\"total\": 15}]')"],
}
NOTEBOOKS = {
    "full": [REFERENCE["ex3"], CHECK.format("ex3"), REFERENCE["ex5"],
             "%load_ext jupyter_compaction\n%check ex5", REFERENCE["ex8"]],
    "stub": [stub("ex3"), CHECK.format("ex3"), stub("ex4b"), CHECK.format("ex4b")],
    "wrong": [WRONG_EX7, CHECK.format("ex7")],
    "loop": [REFERENCE["ex3"], "while True:\n    pass", "1 / 0", CHECK.format("ex3")],
    **FORGERIES,
}


def write(folder: Path, name: str, cells: list[str]) -> Path:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "jupyter_compaction.cli", "grade", *args],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


# one worker runs this module, so its folder of notebooks (`graded`) is graded once
pytestmark = pytest.mark.xdist_group("grading-grade")


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("notebooks")
    paths = [str(write(folder, name, cells)) for name, cells in NOTEBOOKS.items()]
    done = cli(*paths, "--json", "--jobs", "2", "--seed", str(SEED), cwd=folder)
    assert done.returncode == 0, done.stderr
    notebooks = json.loads(done.stdout)["notebooks"]
    assert [Path(n["notebook"]).stem for n in notebooks] == list(NOTEBOOKS)
    return {Path(n["notebook"]).stem: n for n in notebooks}


def scores(notebook: dict) -> dict[str, int]:
    return {e["exercise"]: e["points"] for e in notebook["exercises"]}


@pytest.mark.slow  # grades a folder of notebooks in subprocesses
def test_solutions_earn_every_point_on_public_and_hidden_cases(graded):
    full = graded["full"]
    assert scores(full) == {"ex3": 1, "ex5": 1, "ex8": 1}
    assert full["passed"] == full["total"] > 8 + 9 + 6 and full["problems"] == []


@pytest.mark.slow  # grades a folder of notebooks in subprocesses
def test_stubs_score_zero(graded):
    stubbed = graded["stub"]
    assert scores(stubbed) == {"ex3": 0, "ex4b": 0} and stubbed["passed"] == 0
    messages = [m for e in stubbed["exercises"] for _, m in e["failures"]]
    assert all(m.endswith("NotImplementedError: write your solution here]") for m in messages)


@pytest.mark.slow  # grades a folder of notebooks in subprocesses
def test_a_wrong_solution_names_the_failed_case(graded):
    wrong = graded["wrong"]
    assert scores(wrong) == {"ex7": 0}
    assert "duplicates count once" in [c for c, _ in wrong["exercises"][0]["failures"]]


@pytest.mark.slow  # grades a folder of notebooks in subprocesses
def test_cells_are_read_not_run(graded):
    assert scores(graded["loop"]) == {"ex3": 1}


@pytest.mark.slow
@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forged_notebook_gets_what_its_function_earns(graded, forgery):
    alone = grade_source("ex7", WRONG_EX7, seed=SEED)
    forged = graded[forgery]["exercises"]
    assert [(e["exercise"], e["passed"], e["total"], e["points"]) for e in forged] == [
        ("ex7", alone.passed, alone.total, 0)]


def test_only_the_function_and_what_it_needs_is_collected():
    cells = ["import jupyter_compaction.grading as g\nfrom jupyter_compaction.strategies "
             "import PLACEHOLDER", "g.check = print\nprint('ex2: 19/19 passed')",
             "KEEP = 3\ndef helper(m):\n    return m\n",
             "def clear_old_results(messages, keep_last=KEEP, placeholder=PLACEHOLDER):\n"
             "    return helper(messages)", "%check ex2"]
    assert collect(cells, "clear_old_results") == (
        "from jupyter_compaction.strategies import PLACEHOLDER\n\nKEEP = 3\n\n"
        "def helper(m):\n    return m\n\n"
        "def clear_old_results(messages, keep_last=KEEP, placeholder=PLACEHOLDER):\n"
        "    return helper(messages)\n")
    assert collect(cells, "safe_cut_index") is None
    both = collect_all(cells, ["clear_old_results", "safe_cut_index", "helper"])
    assert both == {f: collect(cells, f) for f in ("clear_old_results", "safe_cut_index",
                                                   "helper")}
    long_cell = "%time x = 1\n" + "y = 2\n" * 5_000  # longer than the cache takes
    assert python_of(long_cell) == python_of(long_cell[:11]) + "y = 2\n" * 5_000


def test_the_newest_definition_counts(tmp_path):
    path = write(tmp_path, "redefined", [REFERENCE["ex5"], WRONG_EX7,
                                         "def is_stuck(a, b, c):\n    return True"])
    result = grade([path], seed=SEED)[0]
    assert [(r.exercise, r.complete) for r in result.results] == [("ex5", False),
                                                                   ("ex7", False)]


@pytest.mark.slow  # grades a folder of notebooks in subprocesses
def test_a_folder_of_learners_gets_a_gradebook_and_feedback(tmp_path):
    submissions = tmp_path / "submitted"
    write(submissions / "alice", "03_cut", [REFERENCE["ex3"], "QUIZ3 = {'q3.1': ''}"])
    write(submissions / "alice", "07_eval", [REFERENCE["ex7"]])
    write(submissions / "bob", "03_cut", [stub("ex3")])
    write(submissions / "bob", "07_eval", [WRONG_EX7])
    done = cli(str(submissions), "--out", "book", "--seed", str(SEED), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    book = tmp_path / "book"
    rows = list(csv.DictReader((book / "gradebook.csv").read_text().splitlines()))
    assert [(r["learner"], r["ex3"], r["ex7"], r["ex2"], r["points"], r["max_points"],
             r["quiz3"]) for r in rows] == [("alice", "1", "1", "", "2", "2",
                                             f"0/{len(questions_of(3))}"),
                                            ("bob", "0", "0", "", "0", "2", "")]
    learners = json.loads((book / "gradebook.json").read_text())["learners"]
    assert [(x["learner"], x["points"], x["max_points"]) for x in learners] == [
        ("alice", 2, 2), ("bob", 0, 2)]
    bob = (book / "feedback" / "bob.txt").read_text()
    assert "ex7: 0/1 point" in bob and "FAIL duplicates count once" in bob
    assert bob.rstrip().endswith("total: 0/2 points")
    assert (book / "feedback" / "alice.txt").read_text().rstrip().endswith("total: 2/2 points")


def right_letter(question_id: str) -> str:
    asked = question(question_id)
    return next(x for x in LETTERS[:len(asked.options)] if is_right(asked, x))


def test_quizzes_have_a_column_of_their_own_outside_the_points(tmp_path):
    """The answers recorded in QUIZ3 are read from the source and reported as right/total,
    once per learner (the best notebook), and never change the points."""
    wrong = next(x for x in "abcd" if x != right_letter("q3.2"))
    cells = [REFERENCE["ex3"], f"QUIZ3 = {{'q3.2': {right_letter('q3.2')!r}}}",
             f"QUIZ3 = {{'q3.2': {right_letter('q3.2')!r}, 'q3.3': 'many'}}\ncheck('quiz3')"]
    first = quizzes_of(write(tmp_path, "first", cells))
    second = quizzes_of(write(tmp_path, "second", [f"QUIZ3 = {{'q3.2': {wrong!r}}}"]))
    n = len(questions_of(3))
    assert first == {"quiz3": [1, n]} and second == {"quiz3": [0, n]}
    graded = {"alice": [NotebookGrade("first.ipynb", [CheckResult("ex3", 8, 8)], quizzes=first),
                        NotebookGrade("second.ipynb", quizzes=second)],
              "bob": [NotebookGrade("b.ipynb", [CheckResult("ex3", 0, 8)])]}
    write_gradebook(graded, tmp_path / "book")
    rows = list(csv.DictReader((tmp_path / "book" / "gradebook.csv").read_text().splitlines()))
    assert [(r["learner"], r["ex3"], r["points"], r["max_points"], r["quiz3"], r["quiz1"])
            for r in rows] == [("alice", "1", "1", "1", f"1/{n}", ""),
                               ("bob", "0", "0", "1", "", "")]
    assert list(rows[0])[-10:] == [f"quiz{lesson}" for lesson in range(1, 11)]
    assert verify(tmp_path / "book") is None
    alice = (tmp_path / "book" / "feedback" / "alice.txt").read_text()
    assert f"  quiz3: 1/{n} right (practice: no points)" in alice
    assert alice.rstrip().endswith("total: 1/1 points")


def test_an_empty_submissions_folder_is_a_one_line_usage_error(tmp_path, capsys):
    assert main(["grade", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("error: no learner folders with notebooks in")


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
    cells = ["def tail_start(messages, counter, tail_tokens):\n    ...",
             "%check ex5\ncheck('ex2')\ncheck( \"ex99\" )"]
    assert exercises_in(cells) == ["ex2", "ex4", "ex5"]


def test_the_table_has_a_row_per_notebook_and_exercise():
    grades = [
        NotebookGrade("a.ipynb", [CheckResult("ex3", 8, 8), CheckResult(
            "ex5", 7, 9, [Failure("exactly 10 %", "h [x]"), Failure("zero tokens before", "h")])],
            ["no exercises found"], 3.0),
        NotebookGrade("stub.ipynb", [CheckResult("ex4", 0, 2, [
            Failure("a", "hint a [NotImplementedError: write your solution here]"),
            Failure("b", "hint b [NotImplementedError: write your solution here]")])]),
    ]
    lines = table(grades).splitlines()
    assert lines[0].split(" | ") == ["notebook  ", "exercise", "passed/total", "failed cases"]
    assert lines[2].split(" | ") == ["a.ipynb   ", "ex3     ", "8/8         ", "-"]
    assert lines[3].endswith("| 7/9          | exactly 10 %; zero tokens before")
    assert lines[4].endswith("| all (NotImplementedError: write your solution here)")
    assert "a.ipynb: 1/2 points (15/17 cases) in 3.0 s" in lines
    assert "  note: no exercises found" in lines
