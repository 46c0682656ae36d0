"""Thinking, redacted thinking, server tools and search results in `validate()`."""

import pytest

from jupyter_compaction.history import InvalidHistory, drop_old_thinking, validate
from jupyter_compaction.tokens import TokenCounter

THINK = {"type": "thinking", "thinking": "check the log first", "signature": "sig"}
REDACTED = {"type": "redacted_thinking", "data": "EmwKAhgB"}
SEARCH = {"type": "search_result", "source": "https://x.test", "title": "X",
          "content": [{"type": "text", "text": "ORD-1042 shipped"}]}


def loop(*assistant_blocks, result_content="ok"):
    call = {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}
    return [{"role": "user", "content": "task"},
            {"role": "assistant", "content": [*assistant_blocks, call]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": result_content}]}]


def test_thinking_and_server_blocks_pass():
    server = [{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search",
               "input": {"query": "orders"}},
              {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1",
               "content": [{"type": "web_search_result", "url": "u", "title": "t"}]}]
    validate(loop(THINK, REDACTED, *server, result_content=[SEARCH]))
    validate([{"role": "user", "content": [SEARCH]}])


@pytest.mark.parametrize("bad, rule", [
    ({"type": "thinking", "thinking": "x"}, "thinking block needs"),
    ({"type": "redacted_thinking"}, "redacted_thinking block needs"),
    ({"type": "server_tool_use", "id": "s", "name": "w", "input": "q"}, "server_tool_use"),
    ({"type": "web_search_tool_result", "tool_use_id": "nope", "content": []},
     "must follow its server_tool_use"),
])
def test_broken_blocks_are_named(bad, rule):
    with pytest.raises(InvalidHistory, match=rule):
        validate(loop(bad))


def test_thinking_is_assistant_only_and_search_result_user_only():
    with pytest.raises(InvalidHistory, match="user message cannot hold a 'thinking'"):
        validate([{"role": "user", "content": [THINK]}])
    with pytest.raises(InvalidHistory, match="cannot hold a 'search_result'"):
        validate([{"role": "user", "content": "t"}, {"role": "assistant", "content": [SEARCH]}])
    with pytest.raises(InvalidHistory, match="a tool_result needs"):
        validate(loop(result_content=[{**SEARCH, "type": "thinking"}]))


def test_drop_old_thinking_keeps_the_newest_turn_of_an_ongoing_loop():
    older = loop(THINK)
    older[2]["content"].append({"type": "text", "text": "go on"})
    history = [*older, {"role": "assistant", "content": [
        REDACTED, {"type": "tool_use", "id": "toolu_2", "name": "read", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2",
                                      "content": "done"}]}]
    out = drop_old_thinking(history)
    validate(out)
    assert THINK not in out[1]["content"] and out[3] is history[3]
    finished = [*history, {"role": "assistant", "content": [THINK]}]
    assert drop_old_thinking(finished)[-1] is finished[-1]  # thinking alone stays
    assert REDACTED not in drop_old_thinking(finished)[3]["content"]


def test_thinking_is_counted_like_text():
    counter = TokenCounter()
    with_thought, without = loop(THINK), loop()
    assert counter.count(with_thought) - counter.count(without) == (
        counter.count_text(THINK["thinking"]) + 4)
