"""ServerSummarize: on-demand compaction, offline (the emulated API around a summarizer)
and through the real SDK against the strict local Messages API."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from jupyter_compaction import TokenCounter
from jupyter_compaction.history import blocks, cut_points, tool_result_ids, validate
from jupyter_compaction.models.anthropic import AnthropicModel
from jupyter_compaction.models.base import Usage
from jupyter_compaction.pricing import dollars
from jupyter_compaction.server_compaction import signature_problem
from jupyter_compaction.strategies import STRATEGIES, ServerSummarize
from jupyter_compaction.strategies.server_summarize import swap_in
from tests.strategies.test_summarize import TASK, ticket_history
from tests.support.fake_messages_api import FakeMessagesAPI
from tests.support.needs import NEEDS_ANTHROPIC

COUNTER = TokenCounter()
TOOLS = ({"name": "lookup_batch", "description": "look a batch up",
          "input_schema": {"type": "object"}},)


def summarizer(prompt: str) -> str:
    return "## Goal\nfind ORD-1042\n## Progress\nbatches looked up"


def summary_responder(body):
    """The local API's model: a summary for a compaction's summary step, else an answer."""
    text = str(body["messages"])
    if "<turns>" in text:
        return {"content": [{"type": "text", "text": "## Goal\nfind ORD-1042\n## Progress\n"
                             + ("twice" if "previous-summary" in text else "once")}]}
    return {"content": [{"type": "text", "text": "ORD-1042 is on VD-50003."}]}


def check_shape(before, after, strategy):
    """The block first, the task second, the kept turns verbatim after a safe cut."""
    block = blocks(after[0])[0]
    assert after[0]["role"] == "assistant" and block["type"] == "compaction"
    assert signature_problem(block) is None
    assert after[1] == before[0] or after[1]["content"] == before[1]["content"]
    kept = after[2:]
    cut = len(before) - len(kept)
    assert before[cut:] == kept and cut in cut_points(before)
    assert not tool_result_ids(before[cut])  # no call is open across the cut
    validate(after)


def test_registered_and_offline_it_asks_the_emulated_api():
    assert isinstance(STRATEGIES["server-summarize"], ServerSummarize)
    before = ticket_history(turns=8)
    result = ServerSummarize(summarizer, tail_tokens=300)(before, goal=2_000, counter=COUNTER)
    check_shape(before, result.messages, result)
    assert result.summary.startswith("## Goal") and result.dropped > 4
    assert [s["type"] for s in result.iterations] == ["compaction"]
    assert result.tokens_after == COUNTER.count(result.messages) < result.tokens_before
    price = dollars([Usage(iterations=result.iterations)], {"input": 3.0, "output": 15.0})
    assert price > 0


def test_a_failed_compaction_leaves_the_history_and_says_so():
    before = ticket_history(turns=8)
    result = ServerSummarize(lambda prompt: "", tail_tokens=300)(before, goal=2_000,
                                                                 counter=COUNTER)
    assert result.messages == before and "content null" in result.note


def test_nothing_before_the_kept_turns_is_left_alone():
    before = ticket_history(turns=1)
    result = ServerSummarize(summarizer)(before, goal=100_000, counter=COUNTER)
    assert result.messages == before and not result.changed


def test_a_second_compaction_updates_the_first_and_keeps_one_block():
    first = ServerSummarize(summarizer, tail_tokens=300)(ticket_history(turns=8), goal=2_000,
                                                        counter=COUNTER).messages
    grown = first + ticket_history(turns=12)[-8:]
    again = ServerSummarize(summarizer, tail_tokens=300)(grown, goal=2_000, counter=COUNTER)
    assert again.changed and again.messages[1]["content"] == TASK
    assert sum(b.get("type") == "compaction" for m in again.messages for b in blocks(m)) == 1
    validate(again.messages)


@NEEDS_ANTHROPIC
def test_through_the_sdk_the_strict_api_compacts_and_takes_the_result_back():
    with FakeMessagesAPI(summary_responder) as api:
        model = AnthropicModel(api_key="sk-ant-test-key", base_url=api.base_url, cache=False)
        strategy = ServerSummarize(api=model, tail_tokens=300, tools=TOOLS,
                                   instructions="Keep every order id.")
        before = ticket_history(turns=8)
        result = strategy(before, goal=2_000, counter=COUNTER)
        request = api.message_requests[0]
        assert request["body"]["compaction"] == {"type": "summarize",
                                                 "instructions": "Keep every order id."}
        assert "compact-2026-09-04" in request["headers"]["anthropic-beta"]
        assert request["response"]["stop_reason"] == "compaction"
        check_shape(before, result.messages, result)
        assert result.iterations == request["response"]["usage"]["iterations"]
        messages = [*result.messages, {"role": "assistant", "content": "Next."},
                    {"role": "user", "content": "Go on."}]
        model.create(system="", messages=messages, tools=list(TOOLS), max_tokens=100)
        assert api.message_requests[-1]["body"]["messages"][0] == result.messages[0]
        grown = [*result.messages, *ticket_history(turns=12)[-8:]]
        again = strategy(grown, goal=2_000, counter=COUNTER)
        assert again.summary.endswith("twice")  # the earlier block was adopted
        assert api.refusals == []


@NEEDS_ANTHROPIC
def test_the_strict_api_refuses_the_request_the_strategy_never_sends():
    with FakeMessagesAPI(summary_responder) as api:
        model = AnthropicModel(api_key="sk-ant-test-key", base_url=api.base_url, cache=False)
        open_call = ticket_history(turns=3)[:-1]  # ends on an unanswered call
        with pytest.raises(Exception, match="unanswered"):
            model.compact(system="", messages=open_call, tools=list(TOOLS))
        cut = ServerSummarize(tail_tokens=300).cut(ticket_history(turns=8), 2_000, COUNTER)
        assert model.compact(system="", messages=ticket_history(turns=8)[:cut],
                             tools=list(TOOLS)).stop_reason == "compaction"


@NEEDS_ANTHROPIC
def test_in_the_background_the_talk_goes_on_and_exactly_the_sent_messages_are_replaced():
    chat = [{"role": "user", "content": TASK}, {"role": "assistant", "content": "Looking."},
            {"role": "user", "content": "Which waybill?"},
            {"role": "assistant", "content": "VD-50003."}]
    with FakeMessagesAPI(summary_responder) as api, ThreadPoolExecutor(1) as pool:
        model = AnthropicModel(api_key="sk-ant-test-key", base_url=api.base_url, cache=False)
        sent = len(chat)
        pending = pool.submit(model.compact, system="", messages=list(chat), tools=[])
        for turn in range(3):  # meanwhile, the conversation goes on with the full history
            chat.append({"role": "user", "content": f"And then {turn}?"})
            chat.append(model.create(system="", messages=chat, tools=[],
                                     max_tokens=50).as_message())
        swapped = swap_in(chat, sent, pending.result())
        assert swapped[1:] == chat[sent:] and len(swapped) == len(chat) - sent + 1
        validate(swapped)
        model.create(system="", messages=[*swapped, {"role": "user", "content": "Go on."}],
                     tools=[], max_tokens=50)
        assert api.refusals == []
    failed = type(pending.result())([{"type": "compaction", "content": None}], "compaction")
    assert swap_in(chat, sent, failed) == chat
