"""Mid-conversation `system` messages as a role of the data model: where they may sit,
how they are counted, which turn owns them, and that they reach the strict local API
unchanged."""

from __future__ import annotations

import pytest

from jupyter_compaction import TokenCounter, TrimTurns
from jupyter_compaction.history import InvalidHistory, cut_points, turns, validate
from jupyter_compaction.models.anthropic import AnthropicModel, ModelError
from tests.support.fake_messages_api import FakeMessagesAPI
from tests.support.needs import NEEDS_ANTHROPIC

RULE = {"role": "system", "content": "Always quote order ids verbatim.",
        "clear_at": "never"}


def history(turns_after=3):
    messages = [{"role": "user", "content": "Find ORD-1042."}, RULE]
    for k in range(turns_after):
        messages += [{"role": "assistant", "content": f"step {k} " + "x " * 200},
                     {"role": "user", "content": f"go on {k}"}]
    return messages


def test_a_system_message_follows_a_user_message_and_is_not_a_turn():
    messages = history()
    validate(messages)
    assert turns(messages)[0] == (0, 2)  # the task's turn owns the rule
    assert cut_points(messages) == [2, 4, 6]


@pytest.mark.parametrize(("messages", "words"), [
    ([RULE, {"role": "user", "content": "hi"}], "right after a user message"),
    ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "a"}, RULE],
     "right after a user message"),
    ([{"role": "user", "content": "hi"}, RULE, RULE], "right after a user message"),
    ([{"role": "user", "content": "hi"}, {**RULE, "clear_at": "later"}], "clear_at"),
    ([{"role": "user", "content": "hi"}, {**RULE, "name": "x"}], "no field 'name'"),
    ([{"role": "user", "content": "hi"}, {"role": "system", "content": [
        {"type": "tool_result", "tool_use_id": "t", "content": "x"}]}], "cannot hold"),
    ([{"role": "user", "content": "hi"}, RULE, {"role": "user", "content": "again"}],
     "roles must alternate"),
])
def test_validate_refuses_a_misplaced_or_malformed_system_message(messages, words):
    with pytest.raises(InvalidHistory, match=words):
        validate(messages)


def test_it_is_counted_and_a_strategy_that_drops_its_turn_drops_it():
    counter = TokenCounter()
    messages = history()
    without = [m for m in messages if m is not RULE]
    assert counter.count(messages) > counter.count(without)
    result = TrimTurns(keep_first=1)(messages, goal=300, counter=counter)
    validate(result.messages)
    assert RULE in result.messages  # it sits in the task's turn, which trimming keeps
    later = history()
    later.insert(4, {"role": "system", "content": "Now answer in French."})  # after a user
    validate(later)
    trimmed = TrimTurns(keep_first=1)(later, goal=300, counter=counter).messages
    assert all(m.get("content") != "Now answer in French." for m in trimmed)


@NEEDS_ANTHROPIC
def test_it_reaches_the_strict_api_with_its_fields_and_a_misplaced_one_is_refused():
    with FakeMessagesAPI() as api:
        model = AnthropicModel(api_key="sk-ant-test-key", base_url=api.base_url, cache=False)
        model.create(system="", messages=history(1), tools=[], max_tokens=50)
        assert api.message_requests[-1]["body"]["messages"][1] == RULE
        bad = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "a"}, RULE]
        with pytest.raises(ModelError, match="immediately follow a user message"):
            model.create(system="", messages=bad, tools=[], max_tokens=50)
