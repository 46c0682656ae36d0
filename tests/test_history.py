import copy

import pytest
from hypothesis import given

from jupyter_compaction.history import (
    InvalidHistory,
    Rules,
    cut_points,
    from_openai,
    to_openai,
    turns,
    validate,
)
from tests.support.histories import fixed_history, histories


def call(i, name="read_file"):
    return {"type": "tool_use", "id": f"t{i}", "name": name, "input": {"path": f"{i}.txt"}}


def result(i, text="ok"):
    return {"type": "tool_result", "tool_use_id": f"t{i}", "content": text}


@given(histories())
def test_generated_histories_are_valid(messages):
    validate(messages)


@pytest.mark.parametrize(("messages", "index", "rule"), [
    ([{"role": "assistant", "content": "hi"}], 0, "first message must come from user"),
    ([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}], 1, "alternate"),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": [call(1)]},
      {"role": "user", "content": "no results"}], 1, "not answered"),  # the call's message
    ([{"role": "user", "content": [result(9)]}], 0, "without a tool_use"),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": [call(1), call(2)]},
      {"role": "user", "content": [result(1)]}], 1, "not answered"),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": [call(1)]},
      {"role": "user", "content": [{"type": "text", "text": "x"}, result(1)]}], 2, "first"),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": [call(1)]},
      {"role": "user", "content": [result(1)]}, {"role": "assistant", "content": [call(1)]},
      {"role": "user", "content": [result(1)]}], 3, "duplicate"),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": [call(1), call(1)]},
      {"role": "user", "content": [result(1)]}], 1, "duplicate"),
    ([{"role": "user", "content": []}], 0, "non-empty"),
    ([{"role": "user"}], 0, "content"),
    ([{"role": "tool", "content": "x"}], 0, "role must be"),
    ([{"role": "system", "content": "x"}], 0, "right after a user message"),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"},
      {"role": "system", "content": "x"}], 2, "right after a user message"),
    (["not a dict"], 0, "must be a dict"),
    ([{"role": "user", "content": [{"type": "video"}]}], 0, "cannot hold"),
    ([{"role": "user", "content": [{"type": "image"}]}], 0, "need a 'source'"),
])
def test_validate_names_index_and_rule(messages, index, rule):
    with pytest.raises(InvalidHistory) as err:
        validate(messages)
    assert err.value.index == index
    assert rule in str(err.value)
    assert str(err.value).startswith(f"messages[{index}]")
    assert "\n" not in str(err.value)


def test_a_message_that_breaks_a_rule_is_not_taken():
    # what the refused message would have added (its call id, its turn) is not kept: the
    # message checked in its place is judged after the ones taken before it
    rules = Rules()
    rules.take({"role": "user", "content": "a"})
    with pytest.raises(InvalidHistory, match="messages\\[1\\].*duplicate"):
        rules.take({"role": "assistant", "content": [call(1), call(1)]})
    rules.take({"role": "assistant", "content": [call(1)]})
    rules.take({"role": "user", "content": [result(1)]})


def test_parallel_calls_answered_together_are_valid():
    validate([{"role": "user", "content": "go"},
              {"role": "assistant", "content": [call(1), call(2), call(3)]},
              {"role": "user", "content": [result(3), result(1), result(2),
                                           {"type": "text", "text": "and then?"}]}])


def test_cut_points_are_assistant_messages_and_turns_cover_history():
    messages = fixed_history(4)
    assert cut_points(messages) == [1, 3, 5, 7]
    assert turns(messages) == [(0, 1), (1, 3), (3, 5), (5, 7), (7, 9)]


@given(histories())
def test_openai_round_trip(messages):
    openai = to_openai(messages)
    assert all(m["role"] in ("user", "assistant", "tool") for m in openai)
    back = from_openai(openai)
    validate(back)
    assert to_openai(back) == openai


def test_from_openai_matches_seed_style():
    seed_style = [
        {"role": "user", "content": "Read a.txt and b.txt"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "read", "arguments": '{"path": "a.txt"}'}},
            {"id": "c2", "type": "function",
             "function": {"name": "read", "arguments": '{"path": "b.txt"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "A"},
        {"role": "tool", "tool_call_id": "c2", "content": "B"},
        {"role": "assistant", "content": "Done."},
    ]
    original = copy.deepcopy(seed_style)
    converted = from_openai(seed_style)
    validate(converted)
    assert seed_style == original
    assert [m["role"] for m in converted] == ["user", "assistant", "user", "assistant"]
    assert [b["tool_use_id"] for b in converted[2]["content"]] == ["c1", "c2"]
    assert to_openai(converted) == [
        {**m, "content": m["content"]} for m in seed_style
    ]


def test_tool_blocks_need_tools_when_tools_are_given():
    history = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f",
                                           "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "ok"}]},
    ]
    validate(history)  # tools not given: the rule is not checked
    validate(history, tools=[{"name": "f", "input_schema": {"type": "object"}}])
    with pytest.raises(InvalidHistory, match="must define tools") as info:
        validate(history, tools=[])
    assert info.value.index == 1 and "tools=" in str(info.value)
    validate([{"role": "user", "content": "hi"}], tools=[])  # no tool blocks: no tools needed
