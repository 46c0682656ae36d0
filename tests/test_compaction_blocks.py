"""Every block the API returns goes back byte for byte: the compaction block (signature,
encrypted content, tool changes, null content), thinking with its signature, and block
types this library does not know; the strict local API refuses a block that changed."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from jupyter_compaction.history import InvalidHistory, validate
from jupyter_compaction.models.anthropic import AnthropicModel, ModelError, build_request, to_reply
from jupyter_compaction.server_compaction import (
    CONTENT_MISMATCH,
    SIGNATURE_INVALID,
    new_block,
    serve,
    signature_problem,
)
from jupyter_compaction.store import SessionStore
from jupyter_compaction.tokens import TokenCounter
from tests.support.fake_messages_api import FakeMessagesAPI
from tests.support.needs import NEEDS_ANTHROPIC

KEY = "sk-ant-test-key"
TASK = "Read notes.md and report the order id ORD-1042 with its status."


def responder(body):
    """Summaries for compaction requests, a short answer otherwise; a summary request
    with 'fail' in it is answered with a tool call, as a failing summary step does."""
    text = json.dumps(body["messages"])
    if "<turns>" in text:
        if "fail" in text:
            return {"content": [{"type": "tool_use", "id": "toolu_x", "name": "read",
                                 "input": {}}]}
        return {"content": [{"type": "text", "text": "## Goal\nreport ORD-1042"}]}
    return {"content": [{"type": "text", "text": f"turn {len(body['messages'])}"}]}


def conversation(task=TASK):
    return [{"role": "user", "content": task},
            {"role": "assistant", "content": "ORD-1042 is open."},
            {"role": "user", "content": "Anything else?"},
            {"role": "assistant", "content": "No."}]


@NEEDS_ANTHROPIC
def test_a_compaction_block_goes_through_the_sdk_three_times_unchanged():
    with FakeMessagesAPI(responder) as api:
        model = AnthropicModel(api_key=KEY, base_url=api.base_url, cache=False)
        reply = model.compact(system="", messages=conversation(), tools=[])
        returned = api.message_requests[0]["response"]["content"][0]
        assert reply.stop_reason == "compaction" and reply.content == [returned]
        assert set(returned) == {"type", "content", "encrypted_content", "signature",
                                 "tool_changes"}
        assert reply.usage.iterations[0]["type"] == "compaction"
        assert reply.usage.input_tokens == reply.usage.output_tokens == 0
        messages = [reply.as_message(), {"role": "user", "content": "Go on."}]
        for turn in range(3):
            answer = model.create(system="", messages=messages, tools=[], max_tokens=100)
            sent = api.message_requests[turn + 1]["body"]["messages"][0]["content"][0]
            assert json.dumps(sent, sort_keys=True) == json.dumps(returned, sort_keys=True)
            messages += [answer.as_message(), {"role": "user", "content": f"more {turn}"}]
            validate(messages)
        assert api.refusals == []


@NEEDS_ANTHROPIC
@pytest.mark.parametrize(("field", "code"), [("signature", SIGNATURE_INVALID),
                                             ("content", CONTENT_MISMATCH)])
def test_a_changed_block_is_refused_with_the_sdk_error_code(field, code):
    with FakeMessagesAPI(responder) as api:
        model = AnthropicModel(api_key=KEY, base_url=api.base_url, cache=False)
        block = model.compact(system="", messages=conversation(), tools=[]).content[0]
        changed = {**block, field: block[field][:-2] + "xx"}
        messages = [{"role": "assistant", "content": [changed]},
                    {"role": "user", "content": "Go on."}]
        with pytest.raises(ModelError) as err:
            model.create(system="", messages=messages, tools=[], max_tokens=100)
    assert err.value.status == 400 and err.value.error_code == code


@NEEDS_ANTHROPIC
def test_a_misplaced_block_and_a_second_block_with_content_are_refused():
    with FakeMessagesAPI(responder) as api:
        model = AnthropicModel(api_key=KEY, base_url=api.base_url, cache=False)
        block = model.compact(system="", messages=conversation(), tools=[]).content[0]
        late = [*conversation(), {"role": "user", "content": "x"},
                {"role": "assistant", "content": [block]}, {"role": "user", "content": "y"}]
        twice = [{"role": "assistant", "content": [block]}, {"role": "user", "content": "x"},
                 {"role": "assistant", "content": [block]}, {"role": "user", "content": "y"}]
        codes = []
        for messages in (late, twice):
            with pytest.raises(ModelError) as err:
                model.create(system="", messages=messages, tools=[], max_tokens=100)
            codes.append(err.value.error_code)
    assert codes == ["compaction_block_misplaced", "compaction_block_ambiguous"]


@NEEDS_ANTHROPIC
def test_a_failed_compaction_has_null_content_and_is_accepted_back():
    with FakeMessagesAPI(responder) as api:
        model = AnthropicModel(api_key=KEY, base_url=api.base_url, cache=False)
        block = model.compact(system="", messages=conversation("fail " + TASK),
                              tools=[]).content[0]
        assert "content" in block and block["content"] is None
        messages = [{"role": "assistant", "content": [block]},
                    {"role": "user", "content": "Go on."}]
        validate(messages)
        model.create(system="", messages=messages, tools=[], max_tokens=100)
        assert api.message_requests[-1]["body"]["messages"][0]["content"][0] == block
        assert api.refusals == []


@NEEDS_ANTHROPIC
def test_on_demand_errors_nothing_to_summarize_unanswered_call_and_context_management():
    with FakeMessagesAPI(responder) as api:
        model = AnthropicModel(api_key=KEY, base_url=api.base_url, cache=False)
        block = model.compact(system="", messages=conversation(), tools=[]).content[0]
        tool = {"name": "read", "description": "read", "input_schema": {"type": "object"}}
        open_call = [{"role": "user", "content": TASK}, {"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}]}]
        codes = []
        for messages, tools in (([{"role": "assistant", "content": [
                {**block, "content": None, "signature": new_block(None, 1)["signature"],
                 "encrypted_content": new_block(None, 1)["encrypted_content"]}]}], []),
                                (open_call, [tool])):
            with pytest.raises(ModelError) as err:
                model.compact(system="", messages=messages, tools=tools)
            codes.append(err.value.error_code)
        assert codes == ["compaction_nothing_to_summarize", "compaction_incomplete_turn"]
        model.edits = [{"type": "compact_20260112"}]
        model.compact(system="", messages=conversation(), tools=[])  # edits are not sent
        assert "context_management" not in api.message_requests[-1]["body"]


def test_to_reply_keeps_every_field_of_every_block_and_sends_it_back():
    returned = [
        {"type": "thinking", "thinking": "check the id", "signature": "sig-think"},
        {"type": "compaction", "content": None, "encrypted_content": "opaque",
         "signature": "sig", "tool_changes": []},
        {"type": "brand_new_block", "payload": {"a": [1, None]}},
    ]
    message = SimpleNamespace(
        content=[SimpleNamespace(type=b["type"], model_dump=lambda mode, exclude_unset, b=b: b)
                 for b in returned],
        stop_reason="end_turn", usage=None, model="claude-x")
    reply = to_reply(message)
    assert reply.content == returned
    sent = build_request(system="", messages=[{"role": "user", "content": "hi"},
                                              reply.as_message()], tools=[], cache=False)
    assert sent["messages"][1]["content"] == returned


@NEEDS_ANTHROPIC
def test_the_sdk_keeps_a_null_content_as_sent():
    from anthropic.types.beta import BetaMessage

    body = {"id": "m", "type": "message", "role": "assistant", "model": "claude-x",
            "stop_reason": "compaction", "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
            "content": [{"type": "compaction", "content": None, "signature": "s",
                         "encrypted_content": "e", "tool_changes": []}]}
    assert to_reply(BetaMessage.construct(**body)).content[0] is not None
    assert to_reply(BetaMessage.model_validate(body)).content == body["content"]


def test_validate_knows_the_compaction_block_rules():
    block = new_block("summary", 3)
    first = {"role": "assistant", "content": [block]}
    validate([first, {"role": "user", "content": "go"}])
    bad = [
        ([{"role": "user", "content": "go"}, {"role": "assistant", "content": [
            {"type": "text", "text": "x"}, block]}], "first block"),
        ([first, {"role": "user", "content": "go"}, first], "only the newest"),
        ([{"role": "assistant", "content": [{**block, "content": ""}]}], "non-empty"),
        ([{"role": "assistant", "content": [{**block, "signature": 5}]}], "signature"),
    ]
    for messages, words in bad:
        with pytest.raises(InvalidHistory, match=words):
            validate(messages)


def test_the_emulator_signature_names_what_changed():
    block = new_block("summary", 3)
    assert signature_problem(block) is None
    assert signature_problem({**block, "content": "other"})[0] == CONTENT_MISMATCH
    assert signature_problem({**block, "tool_changes": [{"type": "tool_removal"}]})[0] == \
        "compaction_tool_changes_mismatch"
    assert signature_problem({k: v for k, v in block.items() if k != "signature"})[0] == \
        SIGNATURE_INVALID


def test_the_store_and_the_counter_keep_and_count_a_null_block(tmp_path):
    message = {"role": "assistant", "content": [new_block(None, 2)]}
    store = SessionStore(tmp_path)
    session = store.start({"task": TASK})
    store.append_message(session, message)
    assert store.transcript(session) == [message]
    assert TokenCounter().count([message]) > 0


def test_at_a_threshold_a_failed_summary_gives_a_null_block_and_the_full_context_answers():
    seen = []

    def respond(request):
        seen.append(request["messages"])
        if "<turns>" in str(request["messages"]):  # the summary step calls a tool instead
            return {"content": [{"type": "tool_use", "id": "t", "name": "read", "input": {}}]}
        return {"content": [{"type": "text", "text": "answer"}]}

    body = {"model": "m", "max_tokens": 10, "messages": conversation(),
            "context_management": {"edits": [{"type": "compact_20260112",
                                               "trigger": {"type": "input_tokens",
                                                           "value": 1}}]}}
    _, answer, steps = serve(body, respond, lambda request: 100)
    block = answer["content"][0]
    assert block["type"] == "compaction" and block["content"] is None
    assert signature_problem(block) is None and answer["content"][1]["text"] == "answer"
    assert seen[-1] == conversation()  # the reply read the whole context
    assert [s["type"] for s in steps] == ["compaction", "message"]
