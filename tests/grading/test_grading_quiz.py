"""The lessons' quizzes: one answer judged and explained, a lesson's recorded answers
scored by `check("quizN")`, the answers sealed in the package source, and the answers a
notebook records read without running it."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from jupyter_compaction.grading import check, quiz
from jupyter_compaction.grading.quiz import questions_of, recorded_answers, score
from jupyter_compaction.grading.quiz_bank import QUESTIONS
from jupyter_compaction.grading.quiz_question import LETTERS, Question, QuizError, is_right, seal

PACKAGE = Path(__file__).resolve().parents[2] / "jupyter_compaction"
CHOICE = Question("q99.1", "Which?", seal("q99.1", "c"), "Because c.",
                  options=("one", "two", "three"))
NUMBER = Question("q99.2", "How many?", seal("q99.2", "40478"), "It printed it.")
TENTHS = Question("q99.3", "What share?", seal("q99.3", "1.8"), "Read it.", decimals=1)


@pytest.fixture
def bank(monkeypatch):
    """The quiz of a lesson 99 of its own, in place of the course's questions."""
    module = importlib.import_module("jupyter_compaction.grading.quiz")  # not the function
    monkeypatch.setattr(module, "_bank", lambda: {q.id: q for q in (CHOICE, NUMBER, TENTHS)})


def test_a_right_answer_is_right_in_any_usual_form():
    assert all(is_right(CHOICE, given) for given in ("c", "C", " (c) ", "c)"))
    assert all(is_right(NUMBER, given) for given in (40478, "40,478", "40_478", 40478.4))
    assert all(is_right(TENTHS, given) for given in ("1.8", "1.8 %", 1.84, "1.75"))


def test_a_wrong_answer_is_wrong():
    assert not is_right(CHOICE, "a") and not is_right(NUMBER, 40479)
    assert not is_right(TENTHS, 1.86) and not is_right(NUMBER, "40,478.6")


def test_quiz_prints_right_or_wrong_and_the_explanation(bank, capsys):
    assert quiz("q99.1", "c") is True
    assert capsys.readouterr().out == "q99.1: right\n        Because c.\n"
    assert quiz("q99.2", "12") is False
    assert capsys.readouterr().out == ("q99.2: wrong (you answered '12')\n"
                                       "        It printed it.\n")


@pytest.mark.parametrize(("question", "answer", "line"), [
    ("q99.7", "a", "unknown question 'q99.7'; ask one of: q99.1, q99.2, q99.3"),
    (["q99.1"], "a", "unknown question ['q99.1']; ask one of: q99.1, q99.2, q99.3"),
    ("q99.1", "d", "q99.1 takes a letter from a to c, e.g. quiz('q99.1', 'b'); got 'd'"),
    ("q99.1", "ab", "q99.1 takes a letter from a to c, e.g. quiz('q99.1', 'b'); got 'ab'"),
    ("q99.2", "many", "q99.2 takes a number as the lesson printed it, e.g. "
                      "quiz('q99.2', '1,234'); got 'many'"),
])
def test_an_unknown_question_or_a_malformed_answer_is_one_line(bank, capsys, question,
                                                               answer, line):
    assert quiz(question, answer) is None
    assert capsys.readouterr().out == line + "\n"


def test_check_scores_the_recorded_answers_and_explains_only_answered_ones(bank, capsys):
    QUIZ99 = {"q99.1": "c", "q99.2": "7", "q99.3": "", "q99.9": "a"}  # noqa: N806
    result = check("quiz99", namespace={"QUIZ99": QUIZ99})
    assert (result.exercise, result.passed, result.total) == ("quiz99", 1, 3)
    assert [f.case for f in result.failures] == ["q99.2", "q99.3"]
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "quiz99: lesson 99's quiz (practice: it earns no points)"
    assert out[1:5] == ["  PASS  q99.1", "        Because c.",
                        "  FAIL  q99.2 (you answered '7')", "        It printed it."]
    assert out[5] == "  not answered  q99.3" and "Read it." not in "\n".join(out)
    assert out[6] == "  unknown question 'q99.9': lesson 99's are q99.1, q99.2, q99.3"
    assert out[-1] == "score: 1/3"


def test_check_without_recorded_answers_says_what_to_do(bank, capsys):
    result = check("quiz99", namespace={})
    assert (result.passed, result.total) == (0, 3)
    assert "record your answers in QUIZ99 = {'q99.1': ..., ...} in a cell above, then run " \
           "check('quiz99')" in capsys.readouterr().out
    with pytest.raises(QuizError, match=r"^unknown quiz 'quiz98'; the quizzes are: quiz99$"):
        check("quiz98", namespace={})


def test_the_answers_are_sealed_in_the_package_source():
    """No answer is in the source as written: every stored answer is a 16-digit digest,
    and none is a digest the reader could make without the question's id and the salt."""
    sources = "\n".join(p.read_text() for p in (PACKAGE / "grading").glob("quiz*.py"))
    for q in QUESTIONS:
        assert re.fullmatch(r"[0-9a-f]{16}", q.answer), q.id
        right = [x for x in (list(LETTERS[:len(q.options)]) if q.options else [])
                 if is_right(q, x)]
        assert not q.options or len(right) == 1, f"{q.id}: one option is its answer"
        assert f'"{q.answer}"' in sources
    assert "base64" not in sources and "b64" not in sources


def test_every_lesson_has_three_to_five_questions_each_of_a_known_form():
    lessons = sorted({q.lesson for q in QUESTIONS})
    assert lessons == list(range(1, 11))
    assert all(3 <= len(questions_of(n)) <= 5 for n in lessons)
    assert len({q.id for q in QUESTIONS}) == len(QUESTIONS)
    for q in QUESTIONS:
        assert q.kind in ("choice", "number") and q.explanation and q.text.endswith("?")
        assert not q.options or 2 <= len(q.options) <= len(LETTERS)


def test_scoring_a_lesson_counts_each_right_answer_once(bank):
    result, _ = score(99, {"q99.1": "c", "q99.2": "40478", "q99.3": "1.8"})
    assert (result.passed, result.total, result.failures) == (3, 3, [])


def test_the_recorded_answers_are_read_from_the_source_never_run():
    cells = ["%load_ext jupyter_compaction", 'QUIZ3 = {"q3.1": "a"}',
             'QUIZ3 = {"q3.1": "b", "q3.2": 6}\ncheck("quiz3")',
             "QUIZ4 = {'q4.1': open('/etc/passwd').read()}", "QUIZ5 = [1]",
             "%check quiz3\nQUIZ6 = {'q6.1': '200'}"]
    assert recorded_answers(cells) == {3: {"q3.1": "b", "q3.2": 6}, 6: {"q6.1": "200"}}
