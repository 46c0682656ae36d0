"""Exercise checks for the lessons, and the tools a teacher uses to release and grade.

In a lesson notebook, after defining the function an exercise asks for:

    from jupyter_compaction.grading import check
    check("ex3")                      # or, with the extension loaded: %check ex3

and, to practise, `quiz("q3.2", "b")` answers one question of lesson 3's quiz, and
`check("quiz3")` scores the answers recorded in `QUIZ3 = {...}` (`quiz.py`).

`grade_source("ex3", source)` scores a learner's source on the public cases and on
hidden ones drawn for that run, the function running in a sandbox (`isolated.py`,
`sandbox.py`).

For a teacher: `jupyter-compaction release` writes the learner copies in `learn/` with
the solutions replaced by stubs (`notebooks.py`); `jupyter-compaction grade NB...` (or a
folder of learners' folders, for a gradebook) scores the functions each notebook defines
with `grade_source` (`grader.py`); and the lessons are nbgrader source notebooks whose
test cells call `autograde("ex3")` (`nbgrader_cells.py`, `autograde.py`).

Importing this package imports no IPython, nbformat or nbclient.
"""

from .autograde import autograde
from .base import Case, CheckResult, Exercise, Failure
from .check import check, checks_for, register_magics
from .exercises import EXERCISES
from .fallback import solved_or_reference
from .isolated import grade_source
from .quiz import quiz

__all__ = ["EXERCISES", "Case", "CheckResult", "Exercise", "Failure", "autograde", "check",
           "checks_for", "grade_source", "quiz", "register_magics", "solved_or_reference"]
