"""`differences.first_difference`: the checkers name the first differing field, in words,
and a message returned in another form gets its own fix instead of a case's hint."""

from __future__ import annotations

import copy
import re

from jupyter_compaction.grading import check
from jupyter_compaction.grading.base import Advice, Case, attempt
from jupyter_compaction.grading.differences import first_difference
from jupyter_compaction.grading.histories import reading_history, result, text, user
from jupyter_compaction.history import blocks

HISTORY = reading_history(2)  # a plain-string task, then block-list messages


def as_block_lists(messages):
    return [{**m, "content": blocks(m)} for m in messages]


def test_equal_values_have_no_difference():
    assert first_difference(copy.deepcopy(HISTORY), HISTORY, HISTORY) is None
    assert first_difference([1, {"a": "x"}], [1, {"a": "x"}]) is None


def test_string_content_turned_into_blocks_is_named_with_its_fix():
    found = first_difference(as_block_lists(HISTORY), HISTORY, HISTORY)
    assert isinstance(found, Advice)
    found = str(found)
    assert found.startswith("message 0, content: expected a str ('Summarize every file.'), "
                            "got a list (")
    assert "return a message you do not change as it is (string content stays a string)" in found


def test_advice_replaces_the_case_hint_that_is_about_another_mistake():
    case = Case("c", "count blocks, not messages",
                lambda fn: first_difference(fn(HISTORY), HISTORY, HISTORY))
    problem, _ = attempt(case, as_block_lists)
    assert problem.startswith("message 0, content: expected a str")
    assert "count blocks" not in problem


def test_a_changed_text_names_the_block_and_the_field():
    got = copy.deepcopy(HISTORY)
    got[1]["content"][0]["text"] = "Reading src/s09.py."
    found = first_difference(got, HISTORY, HISTORY)
    assert found == ("message 1, content[0].text differs: got 'Reading src/s09.py.', expected "
                     "'Reading src/s01.py.' (this message comes back as it was given)")
    assert not isinstance(found, Advice)


def test_a_long_text_shows_where_it_parts():
    long = "x" * 200
    found = first_difference([user(long + "A")], [user(long + "B")])
    assert found.startswith("message 0, content differs at character 200: got ...'")
    assert "A'" in found and "B'" in found and len(found) < 200


def test_missing_and_extra_messages_and_keys():
    assert first_difference(HISTORY[:3], HISTORY) == (
        "3 messages, expected 5: message 3 is missing ("
        + repr(HISTORY[3])[:117] + "...)")
    assert first_difference([*HISTORY, user("more")], HISTORY).startswith(
        "6 messages, expected 5: message 5 is one too many ({'role': 'user'")
    error = [user(result("t1", "boom", is_error=True))]
    assert first_difference([user(result("t1", "boom"))], error) == (
        "message 0, content[0] lacks the key 'is_error'")
    assert first_difference(error, [user(result("t1", "boom"))]) == (
        "message 0, content[0] has a key 'is_error' that is not expected")


def test_list_form_results_and_types_are_compared_exactly():
    want = [user(result("t1", [text("a"), text("b")]))]
    got = [user(result("t1", "ab"))]
    assert first_difference(got, want).startswith(
        "message 0, content[0].content: expected a list (")
    assert first_difference([True], [1]) == "result[0]: expected an int (1), got a bool (True)"
    assert first_difference((1,), [1]) == "result: expected a list ([1]), got a tuple ((1,))"
    assert first_difference({"a": None}, {"a": 0}) == "result.a: expected an int (0), got None"


def test_ex2_and_ex4c_name_the_plain_string_message_not_another_bug(capsys):
    from jupyter_compaction.summaries import is_summary, summary_block

    def clear_old_results(messages, keep_last=3, placeholder="[cleared]"):
        ids = [b["tool_use_id"] for m in messages for b in blocks(m)
               if b["type"] == "tool_result" and b["content"] != placeholder]
        old = set(ids[:max(len(ids) - keep_last, 0)])
        return [{**m, "content": [{**b, "content": placeholder}
                                  if b["type"] == "tool_result" and b["tool_use_id"] in old
                                  else b for b in blocks(m)]} for m in messages]

    def place_summary(messages, head_end, tail_start, summary, role):
        if head_end >= tail_start or not summary.strip():
            return list(messages)
        kept = [{**m, "content": [b for b in blocks(m)
                                  if not (b["type"] == "text" and is_summary(b["text"]))]}
                for m in messages[:head_end] + messages[tail_start:]]
        at = head_end - 1 if role == "user" else head_end
        block = summary_block(summary, role)
        content = blocks(kept[at])
        kept[at] = {**kept[at], "content": [*content, block] if role == "user"
                    else [block, *content]}
        return kept

    check("ex2", {"clear_old_results": clear_old_results})
    check("ex4c", {"place_summary": place_summary})
    out = capsys.readouterr().out
    hints = [line for line in out.splitlines() if "hint:" in line]
    assert hints and all(re.search(r"message \d+, content: expected a str", h)
                         for h in hints), out  # public and practice cases alike
    assert all("string content stays a string" in h for h in hints)
    assert "count tool_result *blocks*" not in out and "becomes [{'type'" not in out
