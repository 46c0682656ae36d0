"""A task of several questions ("X? and Y?") is answered part by part, or says which part
it cannot answer; its grade covers every part (issue 33, item 2)."""

from __future__ import annotations

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.events import ToolCalled

ROOMY = 200_000  # the answer, not compaction, is tested

BOTH = [  # (scenario, first question, second question): each alone is a declared question
    ("logistics", "Why did the delivery of order ORD-1042 fail?",
     "And what loyalty tier is the customer of ticket TCK-5521 in?"),
    ("debug", "Which inventory-service version is deployed in production?",
     "and what read timeout does the gateway use for checkout?"),
    ("agents", "Does agents/router.py define a retry policy?",
     "Which files in agents/ define a tool dispatch table?"),
    ("audit", "Which licence exceptions are recorded in policy/?",
     "Also, what are the dependency manifests under services/?"),
]


def played(scenario: str, task: str):
    with runner.start(scenario, task=task, budget=ROOMY) as session:
        return session.play()


@pytest.mark.parametrize(("scenario", "first", "second"), BOTH, ids=lambda v: v[:30])
def test_each_part_is_answered_as_if_asked_alone(scenario, first, second):
    spec = scenarios.load(scenario)
    run = played(scenario, f"{first} {second}")
    assert run.status == "finished" and run.outcome == "correct", run.answer
    assert run.answer == (f'Part 1 ("{first}"): {spec.expected(task=first)}\n'
                          f'Part 2 ("{second}"): {spec.expected(task=second)}')
    assert run.question == f"1. {spec.canonical(first)}; 2. {spec.canonical(second)}"


def test_a_part_it_cannot_answer_is_named_and_the_run_is_partial():
    first, second = "Does agents/router.py define a tool dispatch table?", \
        "And translate it into Spanish?"
    run = played("agents", f"{first} {second}")
    spec = scenarios.load("agents")
    lines = run.answer.split("\n")
    assert lines[0] == f'Part 1 ("{first}"): {spec.expected(task=first)}'
    assert lines[1].startswith(f'Part 2 ("{second}"): I cannot answer this part offline')
    assert '"translate"' in lines[1] and '"Spanish"' in lines[1]
    assert run.status == "finished" and run.outcome == "partial (missing: part 2)"
    assert run.question.endswith("2. not understood")


def test_the_grade_covers_every_part():
    spec = scenarios.load("logistics")
    first, second = BOTH[0][1:]
    task = f"{first} {second}"
    right = spec.expected(task=task)
    assert spec.grade(right, task=task).status == "correct"
    assert spec.grade(right.replace("gold", "silver"), task=task).status == "wrong"
    assert spec.grade(right.split("\n")[0], task=task).status == "partial"  # part 2 unsaid


def test_a_task_none_of_whose_parts_is_understood_is_refused_at_turn_one():
    run = played("agents", "Translate agents/router.py into Spanish? And write a poem?")
    assert run.status == "unsupported" and run.turn == 1 and not run.of(ToolCalled)
    assert '"poem"' in run.answer and run.question is None


@pytest.mark.parametrize("task", [
    "Why is checkout failing? Find the root cause.",  # one declared question, read whole
    "Which inventory-service version is deployed in production? Then roll it back.",
])
def test_a_task_read_whole_or_not_a_run_of_questions_is_not_split(task):
    spec = scenarios.load("debug")
    assert spec.parts(task) == [(task, spec.understand(task))]
    assert spec.answerable(task) is (spec.understand(task) is not None)
