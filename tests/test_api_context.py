"""The library's knobs as the Messages API's context management, sent with the real SDK
to the local fake Messages API (which checks the edits' shape and beta headers)."""

from __future__ import annotations

import pytest

from jupyter_compaction import ClearToolResults
from jupyter_compaction.api_context import (
    COMPACTION_BETA,
    CONTEXT_EDITING_BETA,
    clear_thinking_edit,
    clear_tool_edit,
    compact_edit,
    context_request,
    memory_tool,
)
from jupyter_compaction.history import drop_old_thinking
from tests.support.fake_messages_api import FakeMessagesAPI
from tests.support.needs import NEEDS_ANTHROPIC

pytestmark = NEEDS_ANTHROPIC

TOOLS = [{"name": "read_file", "description": "Read a file.",
          "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]
HISTORY = [
    {"role": "user", "content": "Which handler table does agents/router.py use?"},
    {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "read_file",
                                       "input": {"path": "agents/router.py"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                  "content": "TOOL_HANDLERS = {...}"}]},
]


def test_clear_tool_edit_carries_the_strategy_knobs():
    clear = ClearToolResults(keep_last=2, exclude_tools=("todo_update",), clear_at_least=1_500)
    assert clear_tool_edit(clear, trigger=30_000) == {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 30_000},
        "keep": {"type": "tool_uses", "value": 2},
        "clear_at_least": {"type": "input_tokens", "value": 1_500},
        "exclude_tools": ["todo_update"]}
    plain = clear_tool_edit(ClearToolResults(), trigger=8_000, clear_inputs=True)
    assert set(plain) == {"type", "trigger", "keep", "clear_tool_inputs"}  # defaults left out
    assert plain["keep"]["value"] == ClearToolResults().keep_last


def test_clear_tool_inputs_is_true_or_a_list_of_tool_names():
    assert "clear_tool_inputs" not in clear_tool_edit(ClearToolResults(), trigger=8_000)
    own = clear_tool_edit(ClearToolResults(clear_inputs=True), trigger=8_000)
    assert own["clear_tool_inputs"] is True
    named = clear_tool_edit(ClearToolResults(), trigger=8_000,
                            clear_inputs=("read_file", "grep"))
    assert named["clear_tool_inputs"] == ["read_file", "grep"]
    with pytest.raises(ValueError, match=r"not the string 'read_file'; write \['read_file'\]"):
        clear_tool_edit(ClearToolResults(), trigger=8_000, clear_inputs="read_file")


def test_compact_edit_pauses_after_compaction_when_asked():
    assert "pause_after_compaction" not in compact_edit(60_000)
    assert compact_edit(60_000, pause_after_compaction=True)["pause_after_compaction"] is True
    with pytest.raises(TypeError, match="True or False"):
        compact_edit(60_000, pause_after_compaction="yes")


def test_compact_edit_and_its_minimum_trigger():
    assert compact_edit(60_000) == {"type": "compact_20260112",
                                    "trigger": {"type": "input_tokens", "value": 60_000}}
    assert compact_edit(60_000, "Keep every ID.")["instructions"] == "Keep every ID."
    with pytest.raises(ValueError, match="at least 50_000 tokens, not 8_000"):
        compact_edit(8_000)


def test_context_request_names_the_betas_each_feature_needs():
    clear = clear_tool_edit(ClearToolResults(), 30_000)
    assert context_request([clear])["betas"] == [CONTEXT_EDITING_BETA]
    assert context_request([compact_edit(60_000)])["betas"] == [COMPACTION_BETA]
    both = context_request([clear, compact_edit(60_000)], TOOLS, memory=True)
    assert both["betas"] == [CONTEXT_EDITING_BETA, COMPACTION_BETA]
    assert both["tools"] == [*TOOLS, {"type": "memory_20250818", "name": "memory"}]
    assert context_request([compact_edit(60_000)], memory=True)["betas"] == [
        CONTEXT_EDITING_BETA, COMPACTION_BETA]


THINKING_HISTORY = [
    {"role": "user", "content": "Find the handler table."},
    *[m for n in (1, 2, 3) for m in (
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": f"step {n}", "signature": f"sig{n}"},
            {"type": "tool_use", "id": f"toolu_{n}", "name": "read_file", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{n}",
                                      "content": f"result {n}"}]})],
    {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
]


def thoughts(messages) -> list[str]:
    return [b["thinking"] for m in messages if isinstance(m["content"], list)
            for b in m["content"] if b.get("type") == "thinking"]


def test_clear_thinking_edit_and_drop_old_thinking_share_keep():
    assert clear_thinking_edit(2) == {"type": "clear_thinking_20251015",
                                      "keep": {"type": "thinking_turns", "value": 2}}
    assert clear_thinking_edit("all") == {"type": "clear_thinking_20251015", "keep": "all"}
    assert context_request([clear_thinking_edit()])["betas"] == [CONTEXT_EDITING_BETA]
    assert thoughts(drop_old_thinking(THINKING_HISTORY, keep=2)) == ["step 2", "step 3"]
    assert thoughts(drop_old_thinking(THINKING_HISTORY, keep="all")) == [
        "step 1", "step 2", "step 3"]
    assert thoughts(drop_old_thinking(THINKING_HISTORY, keep=0)) == []
    with pytest.raises(ValueError, match="positive number of thinking turns or 'all'"):
        clear_thinking_edit(0)


def send(api: FakeMessagesAPI, **extra):
    import anthropic

    client = anthropic.Anthropic(api_key="sk-ant-test-key", base_url=api.base_url, max_retries=0)
    return client.beta.messages.create(model="claude-haiku-4-5", max_tokens=64,
                                       messages=HISTORY, **extra)


def test_the_sdk_sends_the_exact_parameters_and_the_api_accepts_them():
    request = context_request(
        [clear_tool_edit(ClearToolResults(keep_last=1, exclude_tools=("read_file",)), 30_000),
         clear_thinking_edit(2), compact_edit(60_000)], TOOLS, memory=True)
    with FakeMessagesAPI() as api:
        send(api, **request)
    (record,) = api.message_requests
    assert record["status"] == 200, record["response"]
    assert record["body"]["context_management"] == request["context_management"]
    assert record["body"]["tools"] == request["tools"]
    assert record["headers"]["anthropic-beta"].split(",") == request["betas"]


@pytest.mark.parametrize(("extra", "error"), [
    ({"context_management": {"edits": [compact_edit(60_000)]}}, "needs the anthropic-beta header"),
    ({"betas": [COMPACTION_BETA], "context_management": {"edits": [
        {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 8_000}}]}},
     "must be at least 50000 input_tokens"),
    ({"betas": [CONTEXT_EDITING_BETA], "context_management": {"edits": [
        {"type": "clear_tool_uses_20250919", "keep_last": 3}]}}, "Extra inputs are not permitted"),
    ({"tools": [*TOOLS, memory_tool()]}, "the memory tool needs the context-management"),
    ({"betas": [CONTEXT_EDITING_BETA], "context_management": {"edits": [
        {"type": "clear_thinking_20251015", "keep": {"type": "tool_uses", "value": 1}}]}},
     "thinking_turns"),
])
def test_the_fake_api_refuses_what_the_real_one_refuses(extra, error):
    extra.setdefault("tools", TOOLS)
    import anthropic

    with FakeMessagesAPI() as api, pytest.raises(anthropic.BadRequestError, match=error):
        send(api, **extra)
