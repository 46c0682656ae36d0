"""Each lesson's quiz: its cells sit right before the closing section, list the bank's
questions, and every answer is the one the lesson's own stored outputs give.

The answers are recomputed here from the `# NBVAL_CHECK_OUTPUT` cells' outputs (a regular
expression or a small reading of a printed table per question), never copied, so a lesson
re-run that changes a number fails the question that quotes it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from jupyter_compaction.grading.quiz import question, questions_of, recorded_answers, variable
from jupyter_compaction.grading.quiz_bank import QUESTIONS
from jupyter_compaction.grading.quiz_question import LETTERS, is_right

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
NOTEBOOKS = {int(p.name[:2]): p for p in sorted(LESSONS.glob("[0-9][0-9]_*.ipynb"))}
CHECK = "# NBVAL_CHECK_OUTPUT"
CLOSING = "## Try this with Claude"


def outputs(lesson: int) -> str:
    """The stored text of every checked cell of the lesson, in order."""
    nb = nbformat.read(NOTEBOOKS[lesson], as_version=4)
    return "\n".join(o.get("text", "") + str(o.get("data", {}).get("text/plain", ""))
                     for c in nb.cells if c.cell_type == "code" and c.source.startswith(CHECK)
                     for o in c.outputs)


def one(pattern: str) -> Callable[[str], str]:
    """The first group of the one match of `pattern` in the outputs."""
    def read(text: str) -> str:
        found = re.findall(pattern, text, re.M)
        assert len(found) == 1, f"{pattern!r} matches {len(found)} times"
        return found[0]
    return read


def said(pattern: str, option: str) -> Callable[[str], str | None]:
    """`option` when the outputs print a line matching `pattern`, else None."""
    return lambda text: option if re.search(pattern, text, re.M) else None


def rows(pattern: str, text: str) -> list[tuple[str, ...]]:
    return re.findall(pattern, text, re.M)


# What each question's answer is, read from its lesson's outputs: a number, or the text of
# the option that is right.
READ: dict[str, Callable[[str], str | int | None]] = {
    "q1.1": one(r"^task message\s+(\d+) tokens"),
    "q1.2": lambda t: min(int(n) for n, tokens in rows(r"^\s+(\d+)\s+(\d+)\s+\+\d+\s+\d+$", t)
                          if int(tokens) > 8_000),
    "q1.3": said(r"the question is at 0 %", "at the very start"),
    "q1.4": said(r"^unsupported .* I did not understand: ",
                 "it did not understand some words of the task"),
    "q2.1": one(r"^tool_results\s+\d+ tokens\s+(\d+)%"),
    "q2.2": one(r"\(saved (\d+)\)"),
    "q2.3": said(r"^False - clearing would free \d+ < 5000 tokens",
                 "it clears nothing: it would free too little"),
    "q3.1": lambda t: len(one(r"^cut points: \[([\d, ]+)\]")(t).split(",")),
    "q3.2": one(r"^\(\w\) (.+): valid$"),
    "q3.3": one(r"^\d+ -> \d+ tokens, (\d+) messages dropped"),
    "q4.1": one(r"^\s+2000\s+\d+ msg\s+\d+\s+\d+ msg\s+\d+\s+(\d+) msg"),
    "q4.2": one(r"^5449 -> (\d+) tokens, \d+ messages summarized"),
    "q4.3": lambda t: {"weak": "the weak one ('a few lines')"}[
        one(r"^(\w+)\s+failed\s+\d+\s+\d+\s+stuck$")(t)],
    "q4.4": lambda t: ", ".join(one(r"^(user|assistant)\s+(\w+)\s+failed")(t)),
    "q5.1": lambda t: max(rows(r"^((?:aux|same)\D+?)\s+\d+\s+\d+\s+\d+\s+(\d+)\s+\d+$", t),
                          key=lambda r: int(r[1]))[0],
    "q5.2": one(r"^compact\s+finished\s+\d+\s+\d+\s+\d+\s+\d+\s+(\d+)$"),
    "q5.3": one(r"^turn 9: compacted before the call, 6777 -> (\d+) tokens"),
    "q5.4": one(r"still over the (\d+) tokens left for messages"),
    "q6.1": lambda t: min(int(w) for w, s in rows(r"^\s+(\d+) (\w+)\s+\d+\s+\d+\s+\d+$", t)
                          if s == "finished"),
    "q6.2": one(r"^task state True\s*:.*\((\d+)%\)"),
    "q6.3": one(r"a chain of (\d+) sessions"),
    "q7.1": lambda t: min(int(cap) for cap, recall in rows(r"^\s+(\d+)\s+\d+\s+(\d+)%", t)
                          if recall == "100"),
    "q7.2": lambda t: next(name.strip() for name, claims in rows(
        r"^(.+?)\s+\d+%\s+\d+%\s+[\d.]+%\s+(.+)$", t) if claims.strip() != "-"),
    "q7.3": lambda t: one(r"^(\w+)\s+\d+\s+\d+\s+(?!-$)agents/")(t),
    "q8.1": one(r"^off / 7000 .*peak (\d+) tokens"),
    "q8.2": lambda t: len(re.findall(r"^  FAIL  ", t, re.M)),
    "q8.3": lambda t: next(target for i, target in enumerate(
        ("correct", "repeats", "budget", "small", "cheap"))
        if all(r.split()[-5:][i] == "--" for r in t.splitlines() if r.endswith(("ok", "--")))),
    "q8.4": one(r"^off\s+offload\s+\w+\s+\d+\s+\d+\s+\d+\s+([\d.]+)%"),
    "q8.5": one(r"^trim, no task state\s+\w+\s+\d+\s+\d+\s+\d+\s+[\d.]+%\s+(.+)$"),
    "q9.1": one(r"reported tokens before: ([\d,]+)"),
    "q9.2": one(r"^call   1: local\s+\d+ \+ overhead ([\d,]+)"),
    "q9.3": lambda t: max(rows(r"^(\w+)\s+loses\s+(\d+):", t), key=lambda r: int(r[1]))[0],
    "q10.1": lambda t: one(r"must be at least ([\d_]+) tokens")(t).replace("_", ""),
    "q10.2": lambda t: one(r'"type": "(clear_tool_uses_\d+)"')(t[:t.index("compact_")]),
    "q10.3": lambda t: " and ".join(re.findall(r'^    "([\w-]+-\d{4}-\d\d-\d\d)",?$', t,
                                               re.M)),
}


def test_every_question_has_a_reading_of_the_outputs():
    assert sorted(READ) == sorted(q.id for q in QUESTIONS)


@pytest.mark.parametrize("question_id", [q.id for q in QUESTIONS])
def test_the_stored_answer_is_what_the_lessons_outputs_say(question_id):
    asked = question(question_id)
    value = READ[question_id](outputs(asked.lesson))
    if asked.options:  # the option whose text the outputs give is the right letter
        assert value in asked.options, f"{question_id}: {value!r} is none of its options"
        value = LETTERS[asked.options.index(value)]
    assert is_right(asked, value), f"{question_id}: the lesson's outputs say {value!r}"


def quiz_cells(lesson: int) -> tuple[int, list]:
    """The index of the quiz's markdown cell, and the lesson's cells."""
    cells = nbformat.read(NOTEBOOKS[lesson], as_version=4).cells
    found = [i for i, c in enumerate(cells) if c.cell_type == "markdown"
             and c.source.startswith("## Quiz")]
    assert len(found) == 1, f"lesson {lesson}: one quiz cell"
    return found[0], cells


@pytest.mark.parametrize("lesson", sorted(NOTEBOOKS))
def test_the_quiz_sits_right_before_the_closing_section(lesson):
    at, cells = quiz_cells(lesson)
    assert cells[at + 1].cell_type == "code" and CLOSING in cells[at + 2].source
    text, code = cells[at].source, cells[at + 1]
    for asked in questions_of(lesson):
        assert f"- **{asked.id}** {asked.text}" in text
        for letter, option in zip(LETTERS, asked.options, strict=False):
            assert f"  - ({letter}) {option}" in text
    assert code.outputs == [] and code.source.rstrip().endswith(f'check("quiz{lesson}")')
    recorded = recorded_answers([code.source])
    assert recorded == {lesson: {q.id: "" for q in questions_of(lesson)}}, variable(lesson)


@pytest.mark.parametrize("lesson", sorted(NOTEBOOKS))
def test_no_explanation_gives_away_another_questions_answer(lesson):
    """Explanations are shown after each answer, so none may hold a sibling's answer: its
    option's text, or its number as printed (with or without thousands separators)."""
    answers = {q.id: str(READ[q.id](outputs(lesson))) for q in questions_of(lesson)}
    for asked in questions_of(lesson):
        for other, answer in answers.items():
            forms = {answer, f"{int(answer):,}"} if answer.isdigit() else {answer}
            leaked = [f for f in forms if re.search(
                rf"(?<![\w.,]){re.escape(f)}(?![\w,]|\.\d)", asked.explanation)]
            assert other == asked.id or not leaked, f"{asked.id} gives away {other}: {leaked}"
