"""`FunctionStrategy`: a plain function `(messages, goal, counter) -> messages` as a
strategy, its shape checked, its failures attributed to it, the agent's transcript kept."""

from __future__ import annotations

import copy
import functools

import pytest

from jupyter_compaction import (
    ClearToolResults,
    CompressionStuck,
    TokenCounter,
    TrimTurns,
    validate,
)
from jupyter_compaction.history import blocks
from jupyter_compaction.runner import play
from jupyter_compaction.strategies import FunctionFailed, FunctionStrategy, configure
from jupyter_compaction.vocab import PLACEHOLDER

COUNTER = TokenCounter()


@pytest.fixture(scope="module")
def history():
    return play("agents", budget=8_000, strategy="off", task_state=False).transcript[:11]


def keep_two(messages, goal, counter):
    """The library's clearing, called the way a learner's function is."""
    return ClearToolResults(keep_last=2)(messages, goal=goal, counter=counter).messages


def test_a_function_does_what_the_strategy_it_calls_does(history):
    mine = FunctionStrategy(keep_two)(history, goal=8_000, counter=COUNTER)
    library = ClearToolResults(keep_last=2)(history, goal=8_000, counter=COUNTER)
    assert mine.kind == "keep_two"
    assert mine.messages == library.messages
    assert (mine.tokens_before, mine.tokens_after) == (library.tokens_before,
                                                        library.tokens_after)
    assert mine.cleared == library.cleared and mine.changed


def test_a_function_that_drops_turns_is_counted_as_dropping(history):
    def newest(messages, goal, counter):
        return TrimTurns()(messages, goal=goal, counter=counter).messages

    done = FunctionStrategy(newest)(history, goal=2_000, counter=COUNTER)
    assert done.dropped == len(history) - len(done.messages) > 0
    validate(done.messages)


def test_editing_the_messages_in_place_never_reaches_the_input(history):
    def in_place(messages, goal, counter):
        for message in messages[:-2]:
            for block in blocks(message):
                if block.get("type") == "tool_result":
                    block["content"] = PLACEHOLDER
        return messages

    before = copy.deepcopy(history)
    done = FunctionStrategy(in_place)(history, goal=8_000, counter=COUNTER)
    assert history == before  # the transcript shares these messages
    assert done.changed and done.cleared


def test_a_result_no_smaller_keeps_the_input(history):
    done = FunctionStrategy(lambda m, g, c: m, name="same")(history, goal=1, counter=COUNTER)
    assert not done.changed and "not smaller" in done.note


def test_an_exception_names_the_function_and_keeps_only_its_frames(history):
    def stub(messages, goal, counter):
        raise NotImplementedError("write your solution here")

    with pytest.raises(FunctionFailed) as info:
        FunctionStrategy(stub)(history, goal=8_000, counter=COUNTER)
    failed = info.value
    assert str(failed) == ("your function stub() raised NotImplementedError: "
                           "write your solution here")
    assert "in stub" in failed.details and "strategies/function.py" not in failed.details
    assert failed.details.rstrip().endswith("NotImplementedError: write your solution here")
    assert isinstance(failed.__cause__, NotImplementedError)


def test_saying_it_is_stuck_is_no_failure(history):
    def stuck(messages, goal, counter):
        raise CompressionStuck("mine", 100, 95, 50)

    with pytest.raises(CompressionStuck, match="compaction 'mine' is stuck"):
        FunctionStrategy(stuck)(history, goal=8_000, counter=COUNTER)


@pytest.mark.parametrize("returned, says", [
    (None, "returned NoneType, not a list of messages"),
    ("text", "returned str, not a list of messages"),
    ([{"role": "assistant", "content": "hi"}], "returned an invalid history"),
])
def test_a_result_that_is_not_a_history_is_the_functions_failure(history, returned, says):
    with pytest.raises(FunctionFailed, match=f"your function back\\(\\) {says}"):
        FunctionStrategy(lambda m, g, c: returned, name="back")(history, goal=8_000,
                                                                counter=COUNTER)


@pytest.mark.parametrize("function, says", [
    (lambda messages, drop: messages, "does not have a strategy's shape"),
    (lambda messages, goal, counter, extra: messages, "does not have a strategy's shape"),
    (42, "is not a function"),
])
def test_a_wrong_shape_is_one_line_when_it_is_made(function, says):
    with pytest.raises(TypeError) as info:
        FunctionStrategy(function, name="f")
    assert says in str(info.value) and "\n" not in str(info.value)
    assert "(messages, goal, counter) -> messages" in str(info.value)


def test_defaults_and_partials_have_the_shape(history):
    def trimmed(messages, goal, counter, keep_last=2):
        return keep_two(messages, goal, counter)

    assert FunctionStrategy(trimmed).name == "trimmed"
    bound = functools.partial(keep_two)
    assert FunctionStrategy(bound, name="bound")(history, goal=8_000, counter=COUNTER).changed


def test_a_function_taking_summarize_gets_the_agents_summarizer(history):
    seen = []

    def summarized(messages, goal, counter, summarize):
        seen.append(summarize("the prompt"))
        return messages[:1] + messages[-2:]

    strategy = FunctionStrategy(summarized)
    assert strategy.takes_summarize and strategy.summarizer is None
    bound = configure(strategy, summarizer=lambda prompt: f"summary of {prompt}")
    assert bound.takes_summarize and strategy.summarizer is None  # the original unchanged
    bound(history, goal=8_000, counter=COUNTER)
    assert seen == ["summary of the prompt"]


def test_a_failed_summary_call_is_the_agents_to_handle_not_the_functions(history):
    class CallFailed(Exception):
        pass

    def refuse(prompt):
        raise CallFailed("the summary call failed")

    def summarized(messages, goal, counter, summarize):
        return messages[:1] + [summarize("the prompt")]

    with pytest.raises(CallFailed):  # as it was raised: the agent trims instead
        configure(FunctionStrategy(summarized), summarizer=refuse)(history, goal=8_000,
                                                                   counter=COUNTER)
    with pytest.raises(ValueError, match="FunctionStrategy needs a summarizer"):  # none bound
        FunctionStrategy(summarized)(history, goal=8_000, counter=COUNTER)


def test_in_a_run_it_plays_as_the_library_does_and_a_failure_keeps_the_transcript():
    mine = play("agents", budget=5_000, strategy=FunctionStrategy(keep_two), task_state=False)
    library = play("agents", budget=5_000, strategy=ClearToolResults(keep_last=2),
                   task_state=False)
    assert (mine.status, mine.turn, mine.peak_context, mine.tokens_sent) == (
        library.status, library.turn, library.peak_context, library.tokens_sent)
    assert {c.kind for c in mine.compactions} == {"keep_two"}

    def stub(messages, goal, counter):
        raise NotImplementedError("write your solution here")

    failed = play("agents", budget=5_000, strategy=FunctionStrategy(stub), task_state=False)
    assert failed.status == "failed" and failed.error_line.startswith("your function stub()")
    assert failed.error.startswith("Traceback") and "in stub" in failed.error
    assert len(failed.transcript) > 2 and failed.transcript[0] == mine.transcript[0]


def test_in_a_run_a_failed_summary_call_trims_instead_of_ending_the_run():
    def refuse(prompt):
        raise RuntimeError("the API is down")

    def summarized(messages, goal, counter, summarize):
        return messages[:1] + messages[-2:] if summarize("the prompt") else messages

    run = play("debug", budget=5_000, strategy=FunctionStrategy(summarized), summarizer=refuse)
    assert run.status == "finished" and run.compactions
    assert all(c.kind == "trim" and "fallback summary" in c.note for c in run.compactions)
