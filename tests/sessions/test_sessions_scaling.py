"""Importers stay linear and lose nothing: each shape that once made an import quadratic
(many consecutive user entries, one reply streamed as many entries, many parallel calls, a
long list of user messages, many messages a history rule makes the import repair, many
OpenAI tool messages in a row) takes twice the steps, not four times, when the input
doubles; and a block the history cannot hold, a file that grows after its size check, and
a log in UTF-16/32 or with a byte-order mark each load with every message they can keep.

Steps are counted, not timed (`sys.settrace` sees every call, line and turn of a loop in
Python code), so the check gives the same answer on a loaded machine. It leaves out work
inside one C call (a list copied, `in` on a list): a loop around such a call is still
counted once per turn."""

import json
import sys
from collections.abc import Callable

import pytest

from jupyter_compaction import sessions
from jupyter_compaction.history import blocks, validate
from tests.support.quick import quick_first

SIZE = 400  # entries in the smaller input; the larger has twice as many
GROWTH = 2.2  # the most steps the doubled input may take, relative: linear measures 1.99,
# quadratic 4 (less while the linear part still dominates; the control below shows 3)


def _claude(entries: list[dict]) -> str:
    """Claude Code lines chaining `entries` (each a `message` and a `type`) by parentUuid."""
    lines, parent = [], None
    for n, e in enumerate(entries):
        lines.append({"type": e["type"], "uuid": f"u{n}", "parentUuid": parent,
                      "timestamp": f"2026-01-01T00:{n // 60000:02d}:{n % 60000 / 1000:06.3f}Z",
                      "message": e["message"]})
        parent = f"u{n}"
    return "\n".join(map(json.dumps, lines))


def consecutive_user_entries(n: int) -> str:
    return _claude([{"type": "user", "message": {"role": "user", "content": f"note {i}"}}
                    for i in range(n)])


def streamed_reply(n: int) -> str:
    head = [{"type": "user", "message": {"role": "user", "content": "go"}}]
    return _claude(head + [{"type": "assistant", "message": {
        "role": "assistant", "id": "msg_1", "content": [{"type": "text", "text": f"part {i}"}]}}
        for i in range(n)])


def parallel_codex_calls(n: int) -> str:
    def item(payload):
        return json.dumps({"type": "response_item", "payload": payload})
    calls = [item({"type": "function_call", "name": "shell", "call_id": f"c{i}",
                   "arguments": json.dumps({"cmd": f"ls {i}"})}) for i in range(n)]
    outputs = [item({"type": "function_call_output", "call_id": f"c{i}", "output": f"{i}"})
               for i in range(n)]
    head = [json.dumps({"type": "session_meta", "payload": {"id": "s"}}),
            item({"type": "message", "role": "user",
                  "content": [{"type": "input_text", "text": "go"}]})]
    return "\n".join(head + calls + outputs)


def user_message_list(n: int) -> str:
    return json.dumps([{"role": "user", "content": f"note {i}"} for i in range(n)])


def messages_breaking_a_rule(n: int) -> str:
    """Each reply holds a web search result with no search before it: every one is a
    message the import repairs (kept as text) after the history check finds it."""
    return _claude([entry for i in range(n) for entry in (
        {"type": "user", "message": {"role": "user", "content": f"note {i}"}},
        {"type": "assistant", "message": {"role": "assistant", "id": f"m{i}", "content": [
            {"type": "web_search_tool_result", "tool_use_id": f"srvtoolu_{i}",
             "content": []}]}})])


def openai_tool_messages(n: int) -> str:
    calls = [{"id": f"c{i}", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
             for i in range(n)]
    return json.dumps([{"role": "user", "content": "go"},
                       {"role": "assistant", "content": None, "tool_calls": calls},
                       *({"role": "tool", "tool_call_id": f"c{i}", "content": f"note {i}"}
                         for i in range(n))])


SHAPES = [consecutive_user_entries, streamed_reply, parallel_codex_calls, user_message_list,
          messages_breaking_a_rule, openai_tool_messages]


def steps(load: Callable[[str], object], text: str) -> int:
    """How many steps `load(text)` takes: the events `sys.settrace` reports (each call,
    line, return and loop turn in Python code), the same on any machine under any load."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        count += 1
        return tracer

    before = sys.gettrace()  # a coverage run's tracer is put back afterwards
    sys.settrace(tracer)
    try:
        load(text)
    finally:
        sys.settrace(before)
    return count


def growth(load: Callable[[str], object], shape: Callable[[int], str]) -> float:
    """How many times the steps grow when the input doubles."""
    return steps(load, shape(2 * SIZE)) / steps(load, shape(SIZE))


@pytest.mark.parametrize("shape", quick_first(SHAPES), ids=lambda f: f.__name__)
def test_loading_is_linear(shape):
    ratio = growth(sessions.loads, shape)
    assert ratio < GROWTH, f"{shape.__name__}: doubling the input took {ratio:.2f}x the steps"


def quadratic_loads(text: str) -> None:
    """The import with a quadratic step added, as a same-role merge that searches every
    block kept so far before it keeps the next one would be."""
    kept: list[dict] = []
    for block in (b for m in sessions.loads(text).messages for b in blocks(m)):
        if all(block is not other for other in kept):
            kept.append(block)


def test_the_check_fails_a_quadratic_import():
    assert growth(quadratic_loads, user_message_list) > GROWTH + 0.5


@pytest.mark.parametrize("shape", SHAPES, ids=lambda f: f.__name__)
def test_every_entry_is_kept(shape):
    session = sessions.loads(shape(50))
    text = json.dumps(session.segments)
    for segment in session.segments:
        validate(segment)
    assert all(f" {i}" in text for i in range(50))


def _entry(uuid, parent, kind, content, mid=None):
    message = {"role": kind, "content": content, **({"id": mid} if mid else {})}
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "message": message,
            "timestamp": f"2026-01-01T00:00:{len(uuid):02d}Z"}


def test_a_side_result_the_history_cannot_hold_is_kept_as_text():
    # two parallel calls streamed as two entries; the first's result (holding a block the
    # history has no rule for) sits on a side branch; the conversation goes on after it
    lines = [_entry("a", None, "user", "go"),
             _entry("bb", "a", "assistant", [{"type": "tool_use", "id": "t1", "name": "find",
                                              "input": {}}], "m1"),
             _entry("side", "bb", "user", [{"type": "tool_result", "tool_use_id": "t1",
                                            "content": [{"type": "tool_reference",
                                                         "tool_name": "grep"}]}]),
             _entry("ccc", "bb", "assistant", [{"type": "tool_use", "id": "t2", "name": "ls",
                                               "input": {}}], "m1"),
             _entry("dddd", "ccc", "user", [{"type": "tool_result", "tool_use_id": "t2",
                                             "content": "two files"}]),
             _entry("eeeee", "dddd", "assistant", [{"type": "text", "text": "done"}], "m2")]
    session = sessions.loads("\n".join(map(json.dumps, lines)))
    (segment,) = session.segments
    validate(segment)
    assert len(segment) == 4 and segment[-1]["content"][0]["text"] == "done"
    results = {b["tool_use_id"]: b for b in segment[2]["content"]}
    assert "tool_reference" in results["t1"]["content"] and not results["t1"].get("is_error")


def test_a_block_the_history_cannot_hold_becomes_text_in_place():
    lines = [_entry("a", None, "user", [{"type": "text", "text": "go"},
                                         {"type": "mystery", "x": 1},
                                         {"type": "text", "text": "after"}])]
    session = sessions.loads(json.dumps(lines[0]))
    texts = [b["text"] for b in session.messages[0]["content"]]
    assert texts[0] == "go" and '"mystery"' in texts[1] and texts[2] == "after"
    assert any("kept as text" in w for w in session.warnings)


def test_a_file_growing_after_the_size_check_is_read_only_to_that_size(tmp_path,
                                                                      monkeypatch):
    path = tmp_path / "log.jsonl"
    path.write_text(consecutive_user_entries(3) + "\n")
    size = path.stat().st_size
    real_open = open

    def open_then_grow(file, *args, **kwargs):  # another process appends meanwhile
        if str(file) == str(path):
            with real_open(path, "a") as grow:
                grow.write(consecutive_user_entries(4000).replace('"u', '"v') + "\n")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", open_then_grow)
    session = sessions.load(path, max_bytes=size)
    assert path.stat().st_size > 100 * size
    assert json.dumps(session.segments).count("note") == 3


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-16-be",
                                      "utf-32", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("shape", [consecutive_user_entries, user_message_list],
                         ids=lambda f: f.__name__)
def test_byte_order_marks_and_wide_encodings_are_read(tmp_path, encoding, shape):
    text = shape(3).replace("note 1", "note ü 1 ✓")
    path = tmp_path / "log.json"
    path.write_bytes(text.encode(encoding))
    session = sessions.load(path)
    assert not session.warnings
    assert "note ü 1 ✓" in json.dumps(session.segments, ensure_ascii=False)
