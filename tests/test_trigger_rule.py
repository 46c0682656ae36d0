"""A function as the agent's trigger (`trigger_rule.py`): the compactor asks it before each
request; its shape is checked when it is made, it gets copies, and what it raises or
answers wrongly ends the run with its own frames and the transcript kept."""

from __future__ import annotations

import pytest

from jupyter_compaction.runner import play
from jupyter_compaction.strategies import FunctionFailed
from jupyter_compaction.tokens import TokenCounter
from jupyter_compaction.trigger_rule import TriggerRule


def over_the_trigger(counter, messages, system, tools, budget, trigger):
    return counter.count(messages, system, tools) > trigger * budget


def numbers(run) -> tuple:
    return run.status, run.turn, run.peak_context, run.tokens_sent, len(run.compactions)


def test_the_loops_own_test_as_a_rule_gives_the_same_run():
    mine = play("debug", budget=6_000, strategy="summarize", trigger_rule=over_the_trigger)
    library = play("debug", budget=6_000, strategy="summarize")
    assert numbers(mine) == numbers(library) and library.compactions


def test_the_rule_decides_when_the_run_compacts():
    asked = []

    def never(counter, messages, system, tools, budget, trigger):
        asked.append(counter.count(messages, system, tools))
        return False

    run = play("agents", budget=6_000, strategy="trim", trigger_rule=never, max_turns=8)
    assert not run.compactions and len(asked) == run.turn
    assert max(asked) > 0.8 * 6_000  # the library's trigger would have compacted


def test_off_never_asks_the_rule():
    def asked(*_):
        raise AssertionError("asked")

    assert play("agents", budget=6_000, strategy="off", trigger_rule=asked).status == "finished"


def test_the_rule_gets_copies_it_cannot_change_the_transcript_through():
    def meddles(counter, messages, system, tools, budget, trigger):
        messages[0]["content"] = "changed"
        tools.clear()
        return False

    run = play("agents", budget=6_000, strategy="trim", trigger_rule=meddles, max_turns=3)
    assert run.transcript[0]["content"] != "changed" and run.turn == 3


@pytest.mark.parametrize("answer", [1, None, "yes"])
def test_an_answer_that_is_not_true_or_false_ends_the_run_naming_the_function(answer):
    def vague(counter, messages, system, tools, budget, trigger):
        return answer

    run = play("agents", budget=6_000, strategy="trim", trigger_rule=vague)
    assert run.status == "failed" and run.transcript
    assert run.error_line.startswith(f"your function vague() returned {type(answer).__name__},"
                                     " not True or False")


def test_an_exception_ends_the_run_with_the_functions_own_frames():
    def broken(counter, messages, system, tools, budget, trigger):
        return messages["first"]

    run = play("agents", budget=6_000, strategy="trim", trigger_rule=broken)
    assert run.status == "failed" and run.transcript
    assert run.error_line.startswith("your function broken() raised TypeError")
    assert 'return messages["first"]' in run.error and "compactor.py" not in run.error


def test_a_wrong_shape_is_refused_when_it_is_made():
    with pytest.raises(TypeError, match=r"^f\(messages\) does not take a trigger rule's"):
        TriggerRule(lambda messages: True, name="f")
    with pytest.raises(TypeError, match="^three is not a function"):
        TriggerRule(3, name="three")
    with pytest.raises(FunctionFailed):
        TriggerRule(lambda *a: 1 / 0)(TokenCounter(), [], None, [], 100, 0.8)


def test_a_name_is_not_a_rule():
    with pytest.raises(ValueError, match="^unknown trigger rule 'x': trigger_rule must be a "
                                         "function"):
        play("agents", trigger_rule="x")
