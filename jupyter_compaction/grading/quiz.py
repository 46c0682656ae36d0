"""Practice quizzes: a few questions per lesson, answered from the lesson's own outputs.

The questions (`quiz_bank.py`) are multiple choices or numbers whose answers are sealed
(`quiz_question.py`); an explanation is shown only after an answer.

In a lesson, `quiz("q3.2", "b")` says right or wrong and explains. The lesson's quiz cell
records the learner's answers in a dict named after the lesson, `QUIZ3 = {"q3.1": "b",
...}`, and `check("quiz3")` (`check.py`) scores them with `check_quiz`: a line per
question, the explanation under each answered one, and a `CheckResult` whose repr is the
score. Quizzes are practice: `grade` reports them in a column of their own
(`recorded_answers` reads the dict from a notebook's source, `score` counts the right
ones) and they earn no points.

Left out: judging one answer (`quiz_question.py`) and the questions (`quiz_bank.py`).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .base import CheckResult, Failure
from .quiz_bank import QUESTIONS
from .quiz_question import Question, QuizError, is_right
from .sources import bindings

QUIZ_ID = re.compile(r"quiz(\d+)")
QUIZ_NAME = re.compile(r"QUIZ(\d+)")  # the dict a lesson's quiz cell fills
INDENT = " " * 8
UNANSWERED = "not answered"


def _bank() -> dict[str, Question]:
    return {q.id: q for q in QUESTIONS}


def question(question_id: str) -> Question:
    """The question with this id; QuizError naming the lesson's questions otherwise."""
    bank = _bank()
    if isinstance(question_id, str) and question_id in bank:
        return bank[question_id]
    lesson = re.match(r"q(\d+)\.", str(question_id))
    ids = [q for q in bank if lesson and q.startswith(f"q{lesson.group(1)}.")] or list(bank)
    raise QuizError(f"unknown question {question_id!r}; ask one of: {', '.join(ids)}")


def questions_of(lesson: int) -> list[Question]:
    return [q for q in _bank().values() if q.lesson == lesson]


def quiz_ids() -> list[str]:
    """Every lesson's quiz, in course order: quiz1, quiz2, ..."""
    return [f"quiz{n}" for n in sorted({q.lesson for q in _bank().values()})]


def lesson_of(quiz_id: str) -> int:
    """3 for "quiz3"; QuizError when no lesson has that quiz."""
    found = QUIZ_ID.fullmatch(str(quiz_id))
    if not found or not questions_of(int(found.group(1))):
        raise QuizError(f"unknown quiz {quiz_id!r}; the quizzes are: {', '.join(quiz_ids())}")
    return int(found.group(1))


def variable(lesson: int) -> str:
    """The name of the dict a lesson's quiz cell records its answers in: QUIZ3."""
    return f"QUIZ{lesson}"


def verdict(question: Question, given: Any) -> str:
    """One answer judged: "right" or "wrong", and the explanation under it."""
    mark = "right" if is_right(question, given) else f"wrong (you answered {given!r})"
    return f"{question.id}: {mark}\n{INDENT}{question.explanation}"


def quiz(question_id: str, answer: Any) -> bool | None:
    """Answer one question: print right or wrong and the explanation, and return whether
    it was right; an unknown id or an answer of the wrong form prints one line saying
    what to do, and returns None."""
    try:
        asked = question(question_id)
        right = is_right(asked, answer)
    except QuizError as err:
        print(err)
        return None
    print(verdict(asked, answer))
    return right


def _judged(asked: Question, answers: Mapping[str, Any]) -> tuple[str, str | None]:
    """The learner's answer to one question: the lines to show, and the problem (None
    when it is right)."""
    given = answers.get(asked.id)
    if given is None or str(given).strip() == "":
        return f"  {UNANSWERED}  {asked.id}", UNANSWERED
    try:
        right = is_right(asked, given)
    except QuizError as err:
        return f"  FAIL  {asked.id}\n{INDENT}{err}", str(err)
    if right:
        return f"  PASS  {asked.id}\n{INDENT}{asked.explanation}", None
    problem = f"you answered {given!r}"
    return f"  FAIL  {asked.id} ({problem})\n{INDENT}{asked.explanation}", problem


def score(lesson: int, answers: Mapping[str, Any]) -> tuple[CheckResult, list[str]]:
    """The lesson's quiz scored on `answers` ({question id: answer}), and its lines."""
    asked = questions_of(lesson)
    judged = [_judged(q, answers) for q in asked]
    failures = [Failure(q.id, problem) for q, (_, problem) in zip(asked, judged, strict=True)
                if problem is not None]
    result = CheckResult(f"quiz{lesson}", len(asked) - len(failures), len(asked), failures)
    unknown = sorted(set(answers) - {q.id for q in asked}, key=str)
    notes = [f"  unknown question {k!r}: lesson {lesson}'s are "
             + ", ".join(q.id for q in asked) for k in unknown]
    return result, [line for line, _ in judged] + notes


def is_quiz(name: str) -> bool:
    """Whether `name` names a quiz ("quiz3") rather than an exercise."""
    return bool(QUIZ_ID.fullmatch(str(name)))


def check_quiz(quiz_id: str, namespaces: Sequence[Mapping[str, Any] | None]) -> CheckResult:
    """`check("quiz3")`: score the answers recorded in `QUIZ3` (in the first of
    `namespaces` that has it), print a line per question, with the explanation under each
    answered one, and the score."""
    lesson = lesson_of(quiz_id)
    name = variable(lesson)
    answers = next((n[name] for n in namespaces if n is not None and name in n), None)
    header = f"{quiz_id}: lesson {lesson}'s quiz (practice: it earns no points)"
    if not isinstance(answers, Mapping):
        total = len(questions_of(lesson))
        print(f"{header}\n  record your answers in {name} = {{'q{lesson}.1': ..., ...}} "
              f"in a cell above, then run check({quiz_id!r})\nscore: 0/{total}")
        return CheckResult(quiz_id, 0, total, [Failure(name, f"{name} is not defined")])
    result, lines = score(lesson, answers)
    print("\n".join([header, *lines, f"score: {result.passed}/{result.total}"]))
    return result


def recorded_answers(cells: Sequence[str]) -> dict[int, dict[str, Any]]:
    """The answers a notebook's code cells record, by lesson: the newest top-level
    `QUIZn = {...}` of each lesson, when it is a dict of literals (read, never run)."""
    found: dict[int, dict[str, Any]] = {}
    for name, binding in bindings(cells).items():
        lesson = QUIZ_NAME.fullmatch(name)
        if lesson and isinstance(binding.node, ast.Assign):
            try:
                value = ast.literal_eval(binding.node.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                continue  # not literals: nothing the grader may read without running it
            if isinstance(value, dict):
                found[int(lesson.group(1))] = value
    return found
