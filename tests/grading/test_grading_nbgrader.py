"""The lesson sources are nbgrader source notebooks, and nbgrader agrees with our grader.

The metadata test reads every lesson: each exercise has one solution cell and one locked,
autograded test cell worth `POINTS`. The round trip assembles a temporary nbgrader course
(`source/<assignment>/<notebook>.ipynb`), runs `nbgrader generate_assignment` and
`nbgrader autograde` offline on a solved, a wrong and a blank (generated) submission,
exports the scores, and compares them with `jupyter-compaction grade` on the same
submissions with the same hidden-case seed.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_compaction.grading import EXERCISES
from jupyter_compaction.grading.autograde import SEED_ENV
from jupyter_compaction.grading.grader import POINTS
from jupyter_compaction.grading.nbgrader_cells import is_test_cell

REPO = Path(__file__).resolve().parents[2]
LESSONS = sorted((REPO / "lessons").glob("[0-9][0-9]_*.ipynb"))
LESSON = REPO / "lessons" / "05_who_summarizes_preflight_stuck.ipynb"  # a fast lesson
ASSIGNMENT = "lesson05"
SEED = "5"
WRONG = ("< 0.10 * tokens_before", "<= 0.10 * tokens_before")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_exercise_has_a_solution_cell_and_an_autograded_test_cell(path):
    nb = nbformat.read(path, as_version=4)
    info = [c.metadata["nbgrader"] for c in nb.cells if "nbgrader" in c.metadata]
    ids = sorted(e.id for e in EXERCISES.values() if e.lesson == int(path.name[:2]))
    assert sorted(i["grade_id"] for i in info) == sorted(
        [f"{e}-solution" for e in ids] + [f"{e}-test" for e in ids])
    for cell in nb.cells:
        meta = cell.metadata.get("nbgrader")
        if meta and meta["solution"]:
            assert "### BEGIN SOLUTION" in cell.source and not meta["grade"]
        elif meta:
            assert is_test_cell(cell) and meta["locked"] and meta["points"] == POINTS
            assert cell.source.endswith(f'autograde("{meta["grade_id"][:-5]}")')


def run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env.update({"PYTHONPATH": os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH"))
                                               if p),
                "JUPYTER_COMPACTION_TEXT": "1", SEED_ENV: SEED})
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


@pytest.mark.slow
def test_nbgrader_autograde_gives_the_scores_jupyter_compaction_grade_gives(tmp_path):
    course = tmp_path / "course"
    (course / "source" / ASSIGNMENT).mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\nc.CourseDirectory.course_id = 'compaction'\n"
        "c.ExecutePreprocessor.timeout = 300\n")
    shutil.copy(LESSON, course / "source" / ASSIGNMENT / LESSON.name)
    run([sys.executable, "-m", "nbgrader", "generate_assignment", ASSIGNMENT, "--force"], course)
    released = course / "release" / ASSIGNMENT / LESSON.name
    wrong = LESSON.read_text(encoding="utf-8").replace(*WRONG)
    assert wrong != LESSON.read_text(encoding="utf-8")
    submissions = {"solved": LESSON.read_text(encoding="utf-8"), "wrong": wrong,
                   "blank": released.read_text(encoding="utf-8")}
    ours = tmp_path / "ours"
    for student, text in submissions.items():
        for folder in (course / "submitted" / student / ASSIGNMENT, ours / student):
            folder.mkdir(parents=True)
            (folder / LESSON.name).write_text(text, encoding="utf-8")
    run([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT, "--force"], course)
    run([sys.executable, "-m", "nbgrader", "export", "--to", str(tmp_path / "grades.csv")],
        course)
    theirs = {row["student_id"]: float(row["score"]) for row in
              csv.DictReader((tmp_path / "grades.csv").read_text().splitlines())}
    run([sys.executable, "-m", "jupyter_compaction.cli", "grade", str(ours), "--out",
         str(tmp_path / "book"), "--seed", SEED], tmp_path)
    book = json.loads((tmp_path / "book" / "gradebook.json").read_text())
    mine = {x["learner"]: float(x["points"]) for x in book["learners"]}
    exercises = sum(e.lesson == 5 for e in EXERCISES.values())  # ex5 is the one made wrong
    assert mine == theirs == {"solved": POINTS * exercises, "wrong": POINTS * (exercises - 1),
                              "blank": 0.0}
