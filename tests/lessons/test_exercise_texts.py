"""Every exercise's text in its lesson: a "How it is graded" paragraph, and a name for each
input shape and edge value its cases use.

The shapes are not listed by hand: each exercise's public cases, its hidden cases for a
fixed seed and the edges of its input space are run on a spy that records what the
learner's function is given (and answers with the reference solution). Each shape found
in those inputs (a message whose content is a plain string, a list-form tool result,
parallel calls, an empty history, a 0, a negative number, `None`, a fractional
threshold, a falsy id, a blank summary, an older summary) must be named in the text, in
one of the words a learner would read it by. A message-list exercise also says how a
message it does not change is returned.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest

from jupyter_compaction.grading import EXERCISES
from jupyter_compaction.summaries import is_summary
from tests.grading.grading_solutions import REFERENCE, define

REPO = Path(__file__).resolve().parents[2]
LESSONS = REPO / "lessons"
GRADED = "How it is graded:"
HIDDEN_SEED = 1
UNTOUCHED = re.compile(r"(?:message|one) you do not change is returned as it is", re.I)


def is_message(value: Any) -> bool:
    return isinstance(value, dict) and value.get("role") in ("user", "assistant")


def blocks_of(value: Any) -> list[dict]:
    content = value.get("content") if is_message(value) else None
    return content if isinstance(content, list) else []


def walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from walk(item)


def is_fraction(value: Any) -> bool:
    return isinstance(value, float) and value != int(value)


# shape: (is it in one top-level argument?, the words that name it in a text)
SHAPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "plain-string message content": (
        lambda a: any(is_message(v) and isinstance(v["content"], str) for v in walk(a)),
        r"plain[- ]string|string content|content (?:may be|is) a (?:plain )?string"
        r"|content is a string"),
    "list-form tool result": (
        lambda a: any(isinstance(v, dict) and v.get("type") == "tool_result"
                      and isinstance(v.get("content"), list) for v in walk(a)),
        r"list-form|list of text blocks"),
    "error result": (
        lambda a: any(isinstance(v, dict) and v.get("is_error") for v in walk(a)),
        r"is_error|error results?"),
    "parallel calls": (
        lambda a: any(sum(b.get("type") == "tool_use" for b in blocks_of(v)) > 1
                      for v in walk(a)),
        r"parallel"),
    "an older summary": (
        lambda a: any(isinstance(v, dict) and v.get("type") == "text"
                      and is_summary(v.get("text", "")) for v in walk(a)),
        r"older summary|earlier summary"),
    "an empty list": (
        lambda a: isinstance(a, list) and not a,
        r"\bempty\b|\bno (?:calls|todos|facts|file|tool results)\b|\[\]|nothing follows"),
    "zero": (
        lambda a: type(a) in (int, float) and a == 0,
        r"`0`|\b0\b|zero|`keep_last=0`"),
    "a negative number": (
        lambda a: type(a) in (int, float) and a < 0,
        r"negative|below zero|`\w+ <= 0`|below `?local`?"),
    "None": (lambda a: a is None, r"`None`|\bNone\b"),
    "a fractional threshold": (is_fraction, r"fraction|1/3|0\.75|\d\.\d+ "),
    "a falsy id": (
        lambda a: any(isinstance(v, dict) and "id" in v and not v["id"] for v in walk(a)),
        r"falsy"),
    "a blank string": (
        lambda a: isinstance(a, str) and not a.strip(),
        r"\bempty\b|blank|only spaces|whitespace"),
}


def recorded_inputs(exercise_id: str) -> list[Any]:
    """Every top-level argument the cases give the learner's function."""
    exercise = EXERCISES[exercise_id]
    reference = define(REFERENCE[exercise_id])[exercise.function]
    seen: list[Any] = []

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.extend([*args, *kwargs.values()])
        return reference(*args, **kwargs)

    cases = list(exercise.cases)
    if exercise.hidden:
        cases += exercise.hidden(random.Random(HIDDEN_SEED))
    for case in cases:
        case.test(spy)
    if exercise.space:
        for edge in exercise.space.edges:
            exercise.space.build(*edge)(spy)
    return seen


def exercise_text(exercise_id: str) -> str:
    """The markdown from the exercise's heading to its solution cell."""
    exercise = EXERCISES[exercise_id]
    path = next(LESSONS.glob(f"{exercise.lesson:02d}_*.ipynb"))
    cells = nbformat.read(path, as_version=4).cells
    heading = f"## Exercise {exercise.id}: `{exercise.function}`"
    start = next(i for i, c in enumerate(cells) if heading in c.source)
    text = [cells[start].source[cells[start].source.index(heading):]]
    for cell in cells[start + 1:]:
        if cell.cell_type != "markdown":
            break
        text.append(cell.source)
    return "\n".join(text)


TAKES_INPUTS = [e for e, x in EXERCISES.items() if not x.signature.endswith("()")]


@pytest.mark.parametrize("exercise_id", list(EXERCISES))
def test_every_exercise_says_how_it_is_graded(exercise_id):
    text = exercise_text(exercise_id)
    paragraphs = [p for p in text.split("\n\n") if p.startswith(GRADED)]
    assert len(paragraphs) == 1, f"{exercise_id}: one paragraph starting {GRADED!r}"
    assert f'check("{exercise_id}")' in paragraphs[0]


@pytest.mark.parametrize("exercise_id", TAKES_INPUTS)
def test_every_input_shape_the_cases_use_is_named_in_the_text(exercise_id):
    inputs = recorded_inputs(exercise_id)
    assert inputs, "the spy saw the cases' inputs"
    text = exercise_text(exercise_id)
    used = [name for name, (found, _) in SHAPES.items() if any(found(a) for a in inputs)]
    unnamed = [name for name in used if not re.search(SHAPES[name][1], text, re.I)]
    assert not unnamed, f"{exercise_id}'s cases use {unnamed}, which its text never names"
    if any(is_message(v) for a in inputs for v in walk(a)) and exercise_id in (
            "ex2", "ex3b", "ex4c", "ex5b"):
        assert UNTOUCHED.search(text), f"{exercise_id}: say how untouched messages come back"


def test_the_shapes_are_found_in_the_inputs_they_describe():
    inputs = recorded_inputs("ex2")
    found = {name for name, (test, _) in SHAPES.items() if any(test(a) for a in inputs)}
    assert {"plain-string message content", "list-form tool result", "error result",
            "parallel calls", "zero"} <= found
    assert "a falsy id" in {n for n, (t, _) in SHAPES.items()
                            if any(t(a) for a in recorded_inputs("ex6"))}


def test_ex9s_smallest_gap_is_lesson_9s_first_call_gap_on_every_shipped_session():
    """ex9's text says both methods agree on the course's sessions; keep that true."""
    from jupyter_compaction import sessions
    from jupyter_compaction.grading.ex_replay import expected
    from jupyter_compaction.replay import replay

    for path in sessions.shipped():
        turns = replay(sessions.load(path), "off").turns
        first = next(t for t in turns if t.reported is not None)
        assert expected(list(turns)) == first.reported - first.local, path.name
    assert "first call's gap" in exercise_text("ex9") and "**smallest**" in exercise_text("ex9")
