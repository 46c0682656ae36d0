"""Server-side compaction (`compact_20260112`) end to end: the real SDK and the Claude
adapter against the local Messages API, which emulates the edit as documented."""

from __future__ import annotations

from jupyter_compaction import scenarios
from jupyter_compaction.agent import Agent
from jupyter_compaction.api_context import compact_edit
from jupyter_compaction.history import blocks, validate
from jupyter_compaction.models.anthropic import AnthropicModel
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.pricing import dollars
from jupyter_compaction.server_compaction import ServerCompactingModel, from_compaction
from jupyter_compaction.tokens import TokenCounter
from tests.support.fake_messages_api import (
    FakeMessagesAPI,
    model_responder,
    strip_cache_control,
)
from tests.support.needs import NEEDS_ANTHROPIC

pytestmark = NEEDS_ANTHROPIC

KEEP = ("Summarize this conversation. Keep every identifier and file name verbatim, in at "
        "most 3000 words.")
PRICES = {"input": 1.0, "output": 5.0}


def compacted_turns(run) -> list[int]:
    return [n for n, u in enumerate(run.usage) if u.iterations]


def play_markdown(tmp_path, edit, turns=120):
    spec = scenarios.load("markdown")
    workspace = spec.prepare(tmp_path / "ws")
    with FakeMessagesAPI(model_responder(SimulatedModel("markdown"))) as api:
        model = AnthropicModel(api_key="sk-ant-test-key", base_url=api.base_url, edits=[edit])
        agent = Agent(model, tools=spec.tools(workspace), workspace=workspace, strategy="off",
                      budget=1_000_000, task_state=False, max_turns=turns)
        run = agent.run(spec.task)
    return spec, workspace, api, run


def test_the_block_comes_back_is_sent_again_and_what_precedes_it_is_ignored(tmp_path):
    spec, workspace, api, run = play_markdown(tmp_path, compact_edit(50_000, KEEP))
    assert spec.outcome(run, workspace) == "correct" and api.refusals == []
    first = compacted_turns(run)[0]
    reply = [m for m in run.messages if m["role"] == "assistant"][first]
    assert blocks(reply)[0]["type"] == "compaction" and "## " in blocks(reply)[0]["content"]
    validate(run.messages)
    later = api.message_requests[first + 1]["body"]["messages"]
    assert any(b.get("type") == "compaction" for m in later for b in blocks(m))
    view, ignored = from_compaction(later)
    assert ignored > 10 and len(view) < len(later) - 10
    assert run.repeats == 0  # the summary kept every file's imports


def test_iterations_bill_the_summary_step_and_dollars_price_it(tmp_path):
    _, _, api, run = play_markdown(tmp_path, compact_edit(50_000, KEEP), turns=30)
    billed = run.usage[compacted_turns(run)[0]]
    kinds = [step["type"] for step in billed.iterations]
    assert kinds == ["compaction", "message"]
    assert billed.iterations[0]["input_tokens"] >= 50_000  # the whole context, once
    top_only = dollars([type(billed)(**{k: v for k, v in billed.to_dict().items()
                                        if k != "iterations"})], PRICES)
    assert dollars([billed], PRICES) > top_only + 50_000 * PRICES["input"] / 1e6 - 1e-9


def test_pause_after_compaction_stops_the_reply_and_the_agent_goes_on(tmp_path):
    edit = compact_edit(50_000, KEEP, pause_after_compaction=True)
    spec, workspace, api, run = play_markdown(tmp_path, edit)
    assert spec.outcome(run, workspace) == "correct" and api.refusals == []
    paused = [n for n, r in enumerate(api.message_requests)
              if r["response"]["stop_reason"] == "compaction"]
    assert paused and [b["type"] for b in api.message_requests[paused[0]]["response"]
                       ["content"]] == ["compaction"]
    sent_back = api.message_requests[paused[0] + 1]["body"]["messages"][-1]
    assert sent_back["role"] == "assistant" and sent_back["content"][0]["type"] == "compaction"
    joined = [m for m in run.messages if m["role"] == "assistant"
              and blocks(m)[0]["type"] == "compaction"]
    assert joined and len(blocks(joined[0])) > 1  # the reply continued the paused turn
    returned = api.message_requests[paused[0]]["response"]["content"][0]
    sent_block = strip_cache_control(sent_back["content"][0])  # the adapter's breakpoint
    assert sent_block == returned  # the block went back as it came
    validate(run.messages)
    assert any(u.iterations and [s["type"] for s in u.iterations] == ["compaction"]
               for u in run.usage)


def test_below_the_trigger_nothing_is_compacted(tmp_path):
    spec, workspace, api, run = play_markdown(tmp_path, compact_edit(10_000_000), turns=5)
    assert not compacted_turns(run)
    assert all("iterations" not in r["response"]["usage"] for r in api.message_requests)


def test_the_in_process_model_does_what_the_local_api_does(tmp_path):
    spec = scenarios.load("markdown")
    workspace = spec.prepare(tmp_path / "ws")
    model = ServerCompactingModel(SimulatedModel("markdown"), [compact_edit(50_000, KEEP)])
    run = Agent(model, tools=spec.tools(workspace), workspace=workspace, strategy="off",
                budget=1_000_000, task_state=False, max_turns=120).run(spec.task)
    assert spec.outcome(run, workspace) == "correct" and compacted_turns(run)
    assert TokenCounter().count(run.messages) > 50_000  # the client keeps everything
