"""ClearToolResults: which results are cleared, which stay, and when nothing happens."""


import json

import pytest

from jupyter_compaction import ClearToolResults, TokenCounter
from jupyter_compaction.history import blocks, tool_result_ids, tool_use_ids
from jupyter_compaction.strategies import PLACEHOLDER
from tests.support.histories import fixed_history
from tests.support.strategy_checks import apply

COUNTER = TokenCounter()
BUDGET = 1_000_000  # clearing ignores the budget: it always clears what is old

def run(strategy, messages):
    return apply(strategy, messages, BUDGET)


def turn(calls, size=200, name="read_file"):
    """One assistant message with parallel calls `calls` and the user message answering it."""
    names = calls if isinstance(calls, dict) else {tid: name for tid in calls}
    assistant = {"role": "assistant", "content": [
        {"type": "tool_use", "id": tid, "name": tool, "input": {"arg": tid}}
        for tid, tool in names.items()]}
    user = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": tid,
         "content": f"{tid} says: " + " ".join(f"row{tid}_{i}" for i in range(size))}
        for tid in names]}
    return [assistant, user]


def history(*turns_):
    messages = [{"role": "user", "content": "Task: read everything and report."}]
    for t in turns_:
        messages += t
    return messages


def results(messages):
    """tool_use_id -> content of every tool_result, in order."""
    return {b["tool_use_id"]: b["content"] for m in messages for b in blocks(m)
            if b.get("type") == "tool_result"}


def cleared_ids(messages, placeholder=PLACEHOLDER):
    return [tid for tid, content in results(messages).items() if content == placeholder]


def test_keeps_exactly_the_last_keep_last_results():
    messages = fixed_history(6, 50)
    out = run(ClearToolResults(keep_last=2), messages)
    assert out.kind == "clear"
    assert out.cleared == ["toolu_0", "toolu_1", "toolu_2", "toolu_3"]
    assert cleared_ids(out.messages) == out.cleared
    before, after = results(messages), results(out.messages)
    assert after["toolu_4"] == before["toolu_4"]
    assert after["toolu_5"] == before["toolu_5"]
    assert out.saved > 0 and out.changed
    assert out.dropped == 0
    assert len(out.messages) == len(messages)


@pytest.mark.parametrize("keep_last", [0, 1, 3, 5, 6, 10])
def test_number_of_untouched_results_is_keep_last(keep_last):
    messages = fixed_history(6, 50)
    out = run(ClearToolResults(keep_last=keep_last), messages)
    kept = [tid for tid, c in results(out.messages).items() if c != PLACEHOLDER]
    assert kept == [f"toolu_{i}" for i in range(6)][6 - min(keep_last, 6):]
    if keep_last >= 6:
        assert not out.changed
        assert out.note == "no old tool results to clear"
        assert out.messages == messages


def test_clears_older_results_across_parallel_calls():
    messages = history(turn(["a", "b", "c"]), turn(["d", "e"]))
    out = run(ClearToolResults(keep_last=2), messages)
    assert out.cleared == ["a", "b", "c"]
    # keep_last counts results, not turns: a parallel group can be split
    out = run(ClearToolResults(keep_last=4), messages)
    assert out.cleared == ["a"]
    after = results(out.messages)
    assert after["a"] == PLACEHOLDER
    assert after["b"] == results(messages)["b"]
    # the cleared result keeps its place among its siblings
    assert tool_result_ids(out.messages[2]) == ["a", "b", "c"]


def test_exclude_tools_are_never_cleared_and_do_not_use_up_keep_last():
    messages = history(turn(["r1"]), turn({"o1": "lookup_order"}), turn(["r2"]),
                       turn({"o2": "lookup_order"}))
    out = run(ClearToolResults(keep_last=0, exclude_tools=("lookup_order",)), messages)
    assert out.cleared == ["r1", "r2"]
    after, before = results(out.messages), results(messages)
    assert after["o1"] == before["o1"] and after["o2"] == before["o2"]
    # the newest result is an excluded tool's: the newest *clearable* one is what stays
    out = run(ClearToolResults(keep_last=1, exclude_tools=("lookup_order",)), messages)
    assert out.cleared == ["r1"]
    assert results(out.messages)["r2"] == before["r2"]


def test_already_cleared_placeholders_are_skipped():
    messages = fixed_history(6, 50)
    first = run(ClearToolResults(keep_last=2), messages)
    again = run(ClearToolResults(keep_last=2), first.messages)
    assert not again.changed
    assert again.note == "no old tool results to clear"
    assert again.messages == first.messages
    # new turns arrive: only the results that became old are cleared, not the placeholders
    grown = first.messages + fixed_history(8, 50)[13:]
    later = run(ClearToolResults(keep_last=2), grown)
    assert later.cleared == ["toolu_4", "toolu_5"]
    assert cleared_ids(later.messages) == [f"toolu_{i}" for i in range(6)]


def test_placeholders_do_not_count_towards_keep_last():
    messages = fixed_history(4, 50)
    for m in messages[2:6:2]:  # results of toolu_0 and toolu_1 are already cleared
        m["content"] = [{**b, "content": PLACEHOLDER} for b in m["content"]]
    out = run(ClearToolResults(keep_last=2), messages)
    assert not out.changed  # toolu_2 and toolu_3 are the two newest real results


def test_custom_placeholder_and_list_form_results():
    messages = history(turn(["a"]), turn(["b"]))
    messages[2]["content"][0]["content"] = [{"type": "text", "text": "part one " * 50},
                                             {"type": "text", "text": "part two " * 50}]
    out = run(ClearToolResults(keep_last=1, placeholder="[gone]"), messages)
    assert out.cleared == ["a"]
    assert results(out.messages)["a"] == "[gone]"


def test_keeps_every_tool_use_block_and_error_flags():
    messages = history(turn(["a", "b"]), turn(["c"]), turn(["d"]))
    messages[2]["content"][1]["is_error"] = True
    messages[2]["content"].append({"type": "text", "text": "user aside after the results"})
    out = run(ClearToolResults(keep_last=0), messages)
    assert out.cleared == ["a", "b", "c", "d"]
    for old, new in zip(messages, out.messages, strict=True):
        assert new["role"] == old["role"]
        assert tool_use_ids(new) == tool_use_ids(old)
        assert tool_result_ids(new) == tool_result_ids(old)
        if old["role"] == "assistant":
            assert new is old  # calls are shared verbatim, not copied or rewritten
    assert out.messages[0] is messages[0]
    assert out.messages[2]["content"][1]["is_error"] is True
    assert out.messages[2]["content"][2] == {"type": "text", "text": "user aside after the results"}


def test_clear_at_least_leaves_the_history_unchanged_when_the_gain_is_small():
    messages = fixed_history(6, 50)
    gain = run(ClearToolResults(keep_last=2), messages).saved
    assert gain > 0
    small = run(ClearToolResults(keep_last=2, clear_at_least=gain + 1), messages)
    assert not small.changed
    assert small.messages == messages
    assert all(a is b for a, b in zip(small.messages, messages, strict=True))
    assert small.tokens_after == small.tokens_before
    assert small.note == f"clearing would free {gain} < {gain + 1} tokens"
    enough = run(ClearToolResults(keep_last=2, clear_at_least=gain), messages)
    assert enough.saved == gain


def test_never_grows_the_context_when_results_are_shorter_than_the_placeholder():
    messages = history(*(turn([f"t{i}"], size=0) for i in range(5)))
    for m in messages[2::2]:
        m["content"] = [{**b, "content": "ok"} for b in m["content"]]
    out = run(ClearToolResults(keep_last=0), messages)
    assert out.tokens_after <= out.tokens_before
    assert not out.changed
    assert out.note.startswith("clearing would free -")


def test_history_without_tool_results_is_unchanged():
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    out = run(ClearToolResults(keep_last=0), messages)
    assert not out.changed and out.note == "no old tool results to clear"


def test_a_result_holding_an_image_is_cleared_whole_and_frees_its_tokens():
    from tests.support.histories import png

    shot = [{"type": "text", "text": "screenshot"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                         "data": png(1000, 1000)}}]
    messages = history(turn(["a"]), turn(["b"]))
    messages[2] = {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "a", "content": shot}]}
    out = run(ClearToolResults(keep_last=1), messages)
    assert results(out.messages)["a"] == PLACEHOLDER
    assert out.saved > 1300  # the image's 1,334-token estimate is freed with it


def test_clear_inputs_shrinks_the_cleared_calls_inputs_to_valid_json():
    big = {"path": "notes/todo.md", "body": "line\n" * 200, "lines": list(range(50)),
           "flag": True}
    messages = history(turn(["a"]), turn(["b"]), turn(["c"]))
    for m in messages[1::2]:
        m["content"] = [{**b, "input": big} for b in m["content"]]
    out = run(ClearToolResults(keep_last=1, clear_inputs=True), messages)
    inputs = {b["id"]: b["input"] for m in out.messages for b in blocks(m)
              if b.get("type") == "tool_use"}
    for tid in ("a", "b"):
        assert json.loads(json.dumps(inputs[tid])) == inputs[tid]
        assert inputs[tid]["path"] == "notes/todo.md" and inputs[tid]["flag"] is True
        assert inputs[tid]["body"] == "[cleared: 1202 chars]"  # its JSON length
        assert inputs[tid]["lines"].startswith("[cleared: ")
    assert inputs["c"] == big  # the kept call keeps its input
    plain = run(ClearToolResults(keep_last=1), messages)
    assert out.tokens_after < plain.tokens_after
    assert all(b["input"] == big for m in plain.messages for b in blocks(m)
               if b.get("type") == "tool_use")


def test_clear_inputs_with_nothing_old_changes_nothing():
    messages = history(turn(["a"]))
    out = run(ClearToolResults(keep_last=1, clear_inputs=True), messages)
    assert out.messages == messages and not out.changed
