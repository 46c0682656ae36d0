"""Every shipped session loads whole: thinking kept, each segment valid, every call and
result of the log present, the session's own compaction found with its numbers."""

import json
import os
from pathlib import Path

import pytest

from jupyter_compaction import sessions
from jupyter_compaction.history import blocks, to_openai, validate

SHIPPED = sessions.shipped()
FULL = next(p for p in SHIPPED if p.name == "full_compacted.jsonl")


def raw_counts(path):
    """Tool calls, results and thinking blocks, counted straight from the JSONL lines."""
    calls, results, thoughts = set(), set(), 0
    for line in path.read_text().splitlines():
        message = json.loads(line).get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), list):
            for block in message["content"]:
                calls |= {block["id"]} if block.get("type") == "tool_use" else set()
                results |= {block["tool_use_id"]} if block.get("type") == "tool_result" else set()
                thoughts += block.get("type") == "thinking"
    return calls, results, thoughts


def test_four_sessions_ship_with_their_licence():
    assert [p.name for p in SHIPPED] == [
        "short.jsonl", "tool_heavy.jsonl", "subagent.jsonl", "full_compacted.jsonl"]
    assert "MIT License" in (FULL.parent / "LICENSE").read_text()


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_session_loads_whole(path):
    session = sessions.load(path)
    assert session.format == "claude-code"
    for segment in session.segments:
        validate(segment)
    loaded = [b for s in session.segments for m in s for b in blocks(m)]
    calls, results, thoughts = raw_counts(path)
    assert sorted(b["id"] for b in loaded if b["type"] == "tool_use") == sorted(calls)
    assert sorted(b["tool_use_id"] for b in loaded if b["type"] == "tool_result") == sorted(results)
    assert sum(b["type"] == "thinking" for b in loaded) == thoughts > 0
    assert session.usage and all(u.input_tokens > 0 for u in session.usage)
    for u in session.usage:
        assert session.segments[u.segment][u.index]["role"] == "assistant"


def test_the_sessions_own_compaction():
    session = sessions.load(FULL)
    (compaction,) = session.compactions
    assert compaction.segment == 1 and compaction.trigger == "auto"
    assert compaction.tokens_before == 170_251
    assert compaction.summary.startswith("This session is being continued")
    assert blocks(session.segments[1][0])[0]["text"] == compaction.summary
    assert [len(s) for s in session.segments] == [123, 156]
    # the published log lacks the entry the boundary points back to: bridged, and said so
    assert session.warnings == [
        "line 754: its parent 459e838f-d7ea-4f7d-94ad-2cb4d227dc77 is not in the log; "
        "continuing from the entry above it"]


def test_parallel_calls_on_side_branches_are_merged_back(tmp_path):
    session = sessions.load(next(p for p in SHIPPED if p.name == "subagent.jsonl"))
    first_reply = session.messages[1]
    calls = [b for b in blocks(first_reply) if b["type"] == "tool_use"]
    assert len(calls) == 4  # four parallel web searches, two of them off the live thread
    answered = [b["tool_use_id"] for b in blocks(session.messages[2])]
    assert sorted(answered) == sorted(c["id"] for c in calls)


def test_message_lists_in_both_styles(tmp_path):
    history = sessions.load(SHIPPED[1]).messages
    (tmp_path / "a.json").write_text(json.dumps(history))
    (tmp_path / "o.json").write_text(json.dumps({"messages": to_openai(history),
                                                 "tools": [{"name": "Bash"}]}))
    anthropic, openai = sessions.load(tmp_path / "a.json"), sessions.load(tmp_path / "o.json")
    assert anthropic.messages == history and anthropic.warnings == []
    assert openai.format == "openai" and openai.tools == [{"name": "Bash"}]
    validate(openai.messages)


CODEX = [
    {"type": "session_meta", "payload": {"id": "s1"}},
    {"type": "response_item", "payload": {"type": "message", "role": "user",
                                          "content": [{"type": "input_text", "text": "fix it"}]}},
    {"type": "response_item", "payload": {"type": "reasoning", "summary": []}},
    {"type": "response_item", "payload": {"type": "function_call", "name": "shell",
                                          "arguments": '{"command": ["ls"]}', "call_id": "c1"}},
    {"type": "event_msg", "payload": {"type": "token_count", "info": {
        "last_token_usage": {"input_tokens": 1200, "output_tokens": 30}}}},
    {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1",
                                          "output": "a.py"}},
    {"type": "compacted", "payload": {"message": "ls showed a.py"}},
    {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                          "content": [{"type": "output_text", "text": "done"}]}},
]


def test_codex_rollout(tmp_path):
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(map(json.dumps, CODEX)) + '\n{"type": "response_item", "pay')
    session = sessions.load(path)
    assert session.format == "codex" and [len(s) for s in session.segments] == [3, 2]
    assert blocks(session.segments[0][1])[0] == {
        "type": "tool_use", "id": "c1", "name": "shell", "input": {"command": ["ls"]}}
    assert session.compactions[0].summary == "ls showed a.py"
    assert (session.usage[0].index, session.usage[0].input_tokens) == (1, 1200)
    assert session.warnings == ["line 9: not valid JSON (damaged or truncated); skipped"]


@pytest.mark.parametrize("text, error", [
    ("hello", "no known format; pass a Claude Code .jsonl log"),
    ("", "no known format"),
    ("{]", "not valid JSON"),
    ('{"messages": 3}', "expected a list of messages"),
    ("[" * 5000, "nested deeper than"),
])
def test_unknown_input_is_one_line(tmp_path, text, error):
    (tmp_path / "x").write_text(text)
    with pytest.raises(sessions.SessionFormatError, match=error) as info:
        sessions.load(tmp_path / "x")
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="cannot read"):
        sessions.load(tmp_path / "missing.jsonl")


def test_only_regular_files_within_the_limit_are_read(tmp_path):
    fifo = tmp_path / "pipe\nname.jsonl"
    os.mkfifo(fifo)
    for path, error in [(tmp_path, "is a directory"), (fifo, "is a FIFO"),
                        (Path("/dev/zero"), "is a device")]:
        with pytest.raises(sessions.SessionFormatError, match=error) as info:
            sessions.load(path)
        assert "\n" not in str(info.value)
    assert "pipe\\nname" in str(pytest.raises(ValueError, sessions.load, fifo).value)
    big = tmp_path / "big.jsonl"
    big.write_text(SHIPPED[0].read_text())
    with pytest.raises(sessions.SessionFormatError, match="over the 100-byte limit"):
        sessions.load(big, max_bytes=100)
    assert sessions.load(big).segments


def test_bad_lines_are_counted_in_one_warning():
    good = SHIPPED[0].read_text().splitlines()
    text = "\n".join([*good, *["not json"] * 300, '{"type": "user", "parentUuid": 7}'])
    session = sessions.loads(text)
    skipped = [w for w in session.warnings if "lines skipped" in w]
    assert skipped == [f"301 lines skipped: 300 not valid JSON (damaged or truncated) (lines "
                       f"{', '.join(str(len(good) + n) for n in range(1, 6))} and 295 more); "
                       f"1 wrong type for parentUuid (line {len(good) + 301})"]


def test_a_renamed_class_is_an_error_that_names_the_new_one():
    with pytest.raises(AttributeError, match="sessions.Session is now sessions.RecordedSession"):
        _ = sessions.Session
    with pytest.raises(AttributeError, match="sessions.Usage is now sessions.ReportedUsage"):
        _ = sessions.Usage


def test_every_format_comes_from_the_registry():
    folder = Path(sessions.__file__).parent
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "base", "registry"}
    assert len(sessions.IMPORTERS) == len(modules) >= 3  # one importer per module
    assert {"claude-code", "codex", "messages"} <= set(sessions.IMPORTERS)
    help_text = sessions.formats_help()
    assert all(i.label in help_text for i in sessions.IMPORTERS.values())
