"""The output rules the simulated model honours: any quoted text, several wordings, and
honoured only while a message stating them is in the request."""

from __future__ import annotations

import pytest

from jupyter_compaction.models.output_rules import apply, rules_in, without_marks
from jupyter_compaction.models.simulated import SimulatedModel


@pytest.mark.parametrize(("stated", "expected"), [
    ('End every answer with "-- ops bot".', "a\nb\n-- ops bot"),
    ('Please end each answer with "Cheers, Q".', "a\nb\nCheers, Q"),
    ('Start your answer with "Summary:"', "Summary: a\nb"),
    ("Answer in one line, please.", "a / b"),
    ('Answer in one line. End every answer with "[done]".', "a / b / [done]"),
    ("Be brief.", "a\nb"),  # not a rule it knows: nothing changes
])
def test_each_rule_takes_any_quoted_text(stated, expected):
    assert apply(rules_in([stated]), "a\nb") == expected


def ask(messages, system=""):
    model = SimulatedModel("agents")
    reply = model.create(system=system, messages=messages, tools=[], max_tokens=2_000)
    return reply.text


TASK = {"role": "user", "content": SimulatedModel("agents").scenario.task}
RULE = 'End every answer with "-- ops bot".'


def test_the_model_honours_a_rule_only_while_its_message_is_in_the_request():
    plain = ask([TASK])
    assert not plain.endswith("-- ops bot")
    assert ask([TASK, {"role": "system", "content": RULE}]) == f"{plain}\n-- ops bot"
    assert ask([TASK], system=RULE) == f"{plain}\n-- ops bot"  # the system prompt too


@pytest.mark.parametrize("stated", [
    'Start every answer with "Hi:". End every answer with "-- ops bot".',
    'End every answer with "[a]". End each answer with "[b]".',
    "Be brief.",
])
def test_what_the_rules_added_is_taken_off_for_grading_and_nothing_else(stated):
    assert without_marks([stated], apply(rules_in([stated]), "a\nb")) == "a\nb"
    assert without_marks([stated], "x -- ops bot") == "x -- ops bot"  # not on its own line


def test_a_run_that_follows_its_rule_is_graded_on_its_content():
    from jupyter_compaction import runner

    with runner.start("agents", budget=8_000, strategy="trim",
                      standing_instructions=RULE) as session:
        run = session.play()
    assert run.answer.endswith("-- ops bot") and run.outcome == "correct"
