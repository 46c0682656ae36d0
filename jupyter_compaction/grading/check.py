"""`check("ex3")` in a notebook and `%check ex3`: public and practice cases, with hints.

`check("quiz3")` (or `%check quiz3`) scores lesson 3's quiz instead, from the answers the
learner recorded in `QUIZ3` (`quiz.py`).

`check()` runs the public cases and then cases from the grade's own generators (each
exercise's hidden-case maker and its input space, edge values first), drawn from a seed
of its own: a new one each call, never the release's, so practice predicts the grade
without showing the inputs it grades on. `check()` finds the learner's function by name
in the namespace it is given (`%check` passes the shell's), else in the IPython user
namespace when IPython is running, else in `__main__` (a script's globals); it never
walks stack frames. It runs every case, prints one line per case (PASS/FAIL, and the
hint with what went wrong for a failure) and returns a `CheckResult`, whose repr is the
one-line score. A missing function is a one-line message and a score of 0, never an
exception; an exception inside the learner's function fails only the cases it breaks,
shown as one line. A case that hits the time limit (`base.CASE_TIMEOUT_S`) fails, and
the exercise's remaining cases are not run, so an endless loop costs one time limit, not
one per case.

`checks_for(namespace)` scores every exercise (or the ones named) on the public cases.
`register_magics(ip)` adds the `%check` line magic. Grades do not come from here: the
grader scores the notebook's *source* in another process (`grader.py`, `isolated.py`), so
whatever a notebook does to this module changes only what it prints to itself. Output is
plain text, so it reads the same in JupyterLab and in a terminal.

Left out: HTML tables and widgets (the score is text by design) and the grade's own
hidden inputs (only the grader draws those, from the release's seeds).
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from .base import CheckResult, Exercise, Failure, attempt
from .exercises import EXERCISES, get
from .generated import with_hidden
from .quiz import QuizError, check_quiz, is_quiz

PASS, FAIL = "PASS", "FAIL"
SKIPPED = "not run"
INDENT = " " * 8
IN_BROWSER = ("practice, not a grade: in the browser there is no separate process and no time "
              "limit; your teacher's `jupyter-compaction grade` gives the grade")


def missing_message(exercise: Exercise) -> str:
    return (f"define {exercise.function}(...) in a cell above, then run "
            f"check({exercise.id!r})")


def _ipython_namespace() -> Mapping[str, Any] | None:
    if "IPython" not in sys.modules:  # not running in IPython: nothing to import
        return None
    from IPython import get_ipython

    shell = get_ipython()
    return shell.user_ns if shell is not None else None


def find_function(name: str, namespaces: Iterable[Mapping[str, Any] | None]) -> Any:
    for namespace in namespaces:
        if namespace is not None and name in namespace:
            return namespace[name]
    return None


def run_exercise(exercise: Exercise, fn: Any) -> tuple[CheckResult, list[str | None]]:
    """Score `fn` on every case; also return each case's problem (None when it passed)."""
    if not callable(fn):
        message = missing_message(exercise)
        if fn is not None:
            message = f"{exercise.function} is a {type(fn).__name__}, not a function; " + message
        problems: list[str | None] = [message] * len(exercise.cases)
        result = CheckResult(exercise.id, 0, len(exercise.cases),
                             [Failure("function missing", message)])
        return result, problems
    problems = []
    for case in exercise.cases:
        problem, timed_out = attempt(case, fn)
        problems.append(problem)
        if timed_out:  # one endless loop is enough: the other cases are not run
            problems += [f"{SKIPPED} (an earlier case timed out)"] * (
                len(exercise.cases) - len(problems))
            break
    failures = [Failure(case.name, problem)
                for case, problem in zip(exercise.cases, problems, strict=True) if problem]
    return CheckResult(exercise.id, len(problems) - len(failures), len(problems),
                       failures), problems


def render(exercise: Exercise, result: CheckResult, problems: list[str | None]) -> str:
    """The result table: one line per case, and the hint under each failure."""
    lines = [f"{exercise.id}: {exercise.signature} (lesson {exercise.lesson})"]
    if result.failures and result.failures[0].case == "function missing":
        return "\n".join([*lines, f"  {result.failures[0].message}", f"score: 0/{result.total}"])
    for case, problem in zip(exercise.cases, problems, strict=True):
        lines.append(f"  {PASS if problem is None else FAIL}  {case.name}")
        if problem is not None:
            lines.append(f"{INDENT}hint: {problem}")
    return "\n".join([*lines, f"score: {result.passed}/{result.total}"])


def check(exercise: str, namespace: Mapping[str, Any] | None = None,
          seed: int | None = None) -> CheckResult:
    """Run every public case of `exercise` on the learner's function, then cases drawn
    from the grade's generators with `seed` (a new one by default), and print the table;
    for a lesson's quiz ("quiz3"), score the answers recorded in `QUIZ3` (`quiz.py`)."""
    namespaces = [namespace] if namespace is not None else [
        _ipython_namespace(), vars(sys.modules["__main__"])]
    if is_quiz(exercise):
        return check_quiz(exercise, namespaces)
    spec = with_hidden(get(exercise), secrets.randbits(32) if seed is None else seed)
    result, problems = run_exercise(spec, find_function(spec.function, namespaces))
    print(render(spec, result, problems))
    if sys.platform == "emscripten":  # a browser tab (JupyterLite): no process to isolate in
        print(IN_BROWSER)
    return result


def checks_for(namespace: Mapping[str, Any],
               exercises: Iterable[str] | None = None) -> list[CheckResult]:
    """The score of each exercise (all of them by default) on the functions in `namespace`."""
    ids = list(EXERCISES) if exercises is None else list(exercises)
    specs = [get(i) for i in ids]
    return [run_exercise(spec, namespace.get(spec.function))[0] for spec in specs]


def register_magics(ip: Any) -> None:
    """Register `%check EXERCISE` on the IPython shell `ip`."""

    def check_magic(line: str) -> CheckResult:
        from IPython.core.error import UsageError

        words = line.split()
        if len(words) != 1 or words[0] not in EXERCISES and not is_quiz(words[0]):
            given = f"unknown exercise {line.strip()!r}; " if line.strip() else ""
            raise UsageError(f"{given}usage: %check EXERCISE (one of: {', '.join(EXERCISES)}) "
                             "or %check quizN")
        try:
            return check(words[0], namespace=ip.user_ns)
        except QuizError as err:  # an unknown quiz: one line, not a traceback
            raise UsageError(str(err)) from None

    check_magic.__doc__ = "Check your solution to an exercise, or a lesson's quiz: %check ex3"
    ip.register_magic_function(check_magic, magic_kind="line", magic_name="check")
