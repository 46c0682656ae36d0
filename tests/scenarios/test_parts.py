"""A task of several questions is cut into parts, each read with its own entities: a
pronoun in a later part takes the entity the previous part named, and two questions
joined by "and" without a second "?" are two parts when both sides are questions."""

from __future__ import annotations

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.scenarios.parts import pronouns

ROOMY = 200_000
# (scenario, task, the parts it must be read as): wordings of our own
RESOLVED = [
    ("agents", "Does agents/router.py define a retry policy? Does it define a tool dispatch "
               "table?", ["Does agents/router.py define a retry policy?",
                          "Does agents/router.py define a tool dispatch table?"]),
    ("audit", "Is there a licence exception for chardet? How many exceptions cover it?",
     ["Is there a licence exception for chardet?", "How many exceptions cover chardet?"]),
    ("agents", "Does agents/shell_agent.py hold a dispatch table, and does it define a retry "
               "policy?", ["Does agents/shell_agent.py hold a dispatch table?",
                           "Does agents/shell_agent.py define a retry policy?"]),
    ("debug", "How long does checkout-api wait for pricing-service before timing out, and "
              "which inventory-service version is deployed in production?",
     ["How long does checkout-api wait for pricing-service before timing out?",
      "Which inventory-service version is deployed in production?"]),
]


@pytest.mark.parametrize(("scenario", "task", "expected"), RESOLVED, ids=lambda v: str(v)[:30])
def test_parts_take_the_entities_they_refer_to(scenario, task, expected):
    spec = scenarios.load(scenario)
    found = spec.parts(task)
    assert [part for part, _ in found] == expected
    assert all(understood == spec.understand(part) for part, understood in found)


@pytest.mark.parametrize(("scenario", "task", "expected"), RESOLVED[:3], ids=lambda v: str(v)[:30])
def test_each_resolved_part_is_answered_for_its_entity(scenario, task, expected):
    spec = scenarios.load(scenario)
    with runner.start(scenario, task=task, budget=ROOMY) as session:
        run = session.play()
    assert run.outcome == "correct", run.answer
    assert run.answer == "\n".join(f'Part {n} ("{part}"): {spec.expected(task=part)}'
                                   for n, part in enumerate(expected, 1))


def test_a_pronoun_no_earlier_entity_fits_is_named_and_not_guessed():
    spec = scenarios.load("agents")
    task = "Which files in agents/ define a tool dispatch table? Does it define a retry policy?"
    (_, first), (second, understood) = spec.parts(task)
    assert first is not None and understood is None  # not every file's retry policy
    assert '"it"' in spec.combine(task, {task.split("? ")[0] + "?": "..."}).split("\n")[1]


def test_a_single_question_with_and_is_not_cut():
    spec = scenarios.load("debug")
    task = "What is the checkout-api timeout towards pricing-service, and how many retries?"
    assert spec.parts(task) == [(task, spec.understand(task))]


def test_that_and_this_are_pronouns_only_where_a_phrase_ends():
    assert pronouns("Does that file define it?") == ("it",)
    assert pronouns("What about that?") == ("that",)


def test_the_same_question_asked_twice_is_one_question():
    spec = scenarios.load("audit")
    task = ("Where are the services' dependency lists kept? Which manifest files are there "
            "under services/?")
    [(whole, (question, slots))] = spec.parts(task)
    assert whole == task and question.name == "manifests" and slots["services"] == "services"
    # two questions of one kind but other entities stay two
    task = "Does agents/router.py define a dispatch table? Does agents/loop.py define one?"
    assert len(scenarios.load("agents").parts(task)) == 2
