"""The two summarizers: "aux" (a separate request) and "same" (appended to the history).

The simulated model is the reader here: what reaches a summary must come from the request.
"""

from __future__ import annotations

import json

import pytest

from jupyter_compaction import CompactAll, TokenCounter
from jupyter_compaction.models.base import Reply, Usage
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.runner import play
from jupyter_compaction.summaries import (
    INSTRUCTIONS,
    REMEMBERED_PROMPTS,
    build_prompt,
    built_from,
    message_goal,
    summary_prompt,
)
from jupyter_compaction.summarizers import (
    SUMMARIZER_SYSTEM,
    instructions,
    make_summarizer,
    open_tool_call,
    with_request,
)
from tests.support.scripted import Relay, Scripted

SYSTEM = "You are a careful agent."
TOOLS = [{"name": n, "description": "", "input_schema": {"type": "object"}}
         for n in ("read_file", "list_files")]


@pytest.fixture(scope="module")
def transcript():
    """A complete `agents` run without compaction: 28 messages."""
    return play("agents", budget=100_000, strategy="off", task_state=False).transcript


def same(model, history, usage):
    return make_summarizer("same", model=model, system=SYSTEM, tools=TOOLS, usage=usage,
                           history=lambda: history)


def test_same_reads_the_covered_turns_from_the_conversation_and_nothing_else(transcript):
    history, middle = transcript[:11], transcript[1:6]  # middle: list agents/, read two files
    model, usage = Relay(SimulatedModel("agents")), []
    prompt = build_prompt(middle, None, message_goal(history[0]))
    summary = same(model, history, usage)(prompt)

    sent = model.requests[-1]
    assert sent["system"] == SYSTEM and sent["tools"] == TOOLS and sent["cache"] is True
    assert sent["messages"][:-1] == history[:-1]  # the prefix, untouched
    ask = sent["messages"][-1]["content"][-1]["text"]
    assert sent["messages"][-1]["content"][:-1] == history[-1]["content"]
    assert "messages 2 to 6 of this conversation" in ask and "<turns>" not in ask
    assert "ACTION_TABLE" not in ask  # the fact is only in the conversation ...
    assert "ACTION_TABLE" in summary  # ... and reaches the summary
    assert "HANDLER_REGISTRY" in json.dumps(history)  # in the conversation, not covered
    assert "HANDLER_REGISTRY" not in summary
    assert "TOOL_HANDLERS" not in summary  # nowhere in the request
    aux = make_summarizer("aux", model=SimulatedModel("agents"), system=SYSTEM, tools=TOOLS,
                          usage=[])(prompt)
    assert summary == aux  # the same reading as the aux path, from another layout
    assert len(usage) == 1 and usage[0].output_tokens > 0


def test_the_request_carries_sections_previous_summary_and_focus_not_the_transcript(transcript):
    middle = transcript[5:9]
    prompt = build_prompt(middle, "## Goal\nold goal\n## Progress\n- READ-77", "the task",
                          "tables")
    made = built_from(prompt)
    ask = summary_prompt(made.middle, made.previous, made.goal, made.focus, cover=(6, 9)).text
    assert ask.startswith(INSTRUCTIONS[:60]) and "## Next Steps" in ask
    assert "READ-77" in ask and "tables" in ask and "messages 6 to 9" in ask
    assert "<task>" not in ask and "<turns>" not in ask and len(ask) < len(prompt) / 3


def test_an_open_tool_call_skips_the_summary_without_a_call(transcript):
    history = transcript[:12]  # ends with the assistant's tool call, no result yet
    assert open_tool_call(history) and not open_tool_call(transcript[:11])
    partial = [*transcript[:11], {**transcript[11], "content": [
        *transcript[11]["content"], {"type": "tool_use", "id": "t2", "name": "x", "input": {}}]},
        {**transcript[12], "content": transcript[12]["content"]}]
    assert open_tool_call(partial)  # one of two calls still has no result
    model, usage = Relay(SimulatedModel("agents")), []
    assert same(model, history, usage)(build_prompt(history[1:6])) == ""
    assert model.requests == [] and usage == []


def test_a_tool_call_instead_of_text_is_an_empty_summary_and_the_history_stays(transcript):
    call = Reply([{"type": "text", "text": "Let me look."},
                  {"type": "tool_use", "id": "t1", "name": "read_file", "input": {}}],
                 "tool_use", Usage(input_tokens=0, output_tokens=12,
                                   cache_read_input_tokens=900))
    history, usage = transcript[:11], []
    result = CompactAll(summarizer=same(Scripted([call]), history, usage))(
        history, goal=1_000, counter=TokenCounter())
    assert not result.changed and "retry next turn" in result.note
    assert usage == [call.usage]  # the call happened and is paid for


def test_aux_is_a_separate_uncached_request_with_the_transcript(transcript):
    model, usage = Relay(SimulatedModel("agents")), []
    prompt = build_prompt(transcript[1:6])
    make_summarizer("aux", model=model, system=SYSTEM, tools=TOOLS, usage=usage)(prompt)
    sent = model.requests[-1]
    assert sent["system"] == SUMMARIZER_SYSTEM and sent["tools"] == [] and not sent["cache"]
    assert sent["messages"] == [{"role": "user", "content": prompt}]
    assert usage[0].cache_read_input_tokens == usage[0].cache_creation_input_tokens == 0


def test_with_request_appends_to_the_last_user_message_or_adds_one():
    user = {"role": "user", "content": "task"}
    said = {"role": "assistant", "content": [{"type": "text", "text": "done"}]}
    assert with_request([user], "sum")[-1]["content"] == [
        {"type": "text", "text": "task"}, {"type": "text", "text": "sum"}]
    assert with_request([user, said], "sum")[-1] == {
        "role": "user", "content": [{"type": "text", "text": "sum"}]}
    assert user == {"role": "user", "content": "task"}  # the history is not changed


def test_a_turn_cut_to_fit_cannot_be_covered(transcript):
    cut = [{**transcript[1], "content": [{"type": "text", "text": "shortened"}]}]
    with pytest.raises(ValueError, match="aux"):
        same(SimulatedModel("agents"), transcript[:11], [])(build_prompt(cut))


def test_same_needs_the_history():
    with pytest.raises(ValueError, match="history="):
        make_summarizer("same", model=SimulatedModel(), system="", tools=[], usage=[])


@pytest.mark.parametrize("strategy", ["summarize", "compact"])
def test_an_agent_run_with_same_reads_its_summary_prefix_from_the_cache(strategy):
    runs = {spec: play("agents", budget=6_000, strategy=strategy, task_state=False,
                       summarizer=spec) for spec in ("same", "aux")}
    assert runs["same"].summary_usage and all(
        u.cache_read_input_tokens > u.cache_creation_input_tokens and u.input_tokens == 0
        for u in runs["same"].summary_usage)
    assert [c.summary for c in runs["same"].compactions] == [
        c.summary for c in runs["aux"].compactions]  # the same summaries, billed differently
    assert runs["same"].answer == runs["aux"].answer and runs["same"].status == "finished"



def test_on_claude_the_appended_request_is_the_cache_breakpoint_and_the_prefix_is_read(
        transcript):
    pytest.importorskip("anthropic")
    from jupyter_compaction.models.anthropic import AnthropicModel
    from tests.support.fake_messages_api import FakeMessagesAPI, model_responder

    history = transcript[:11]
    with FakeMessagesAPI(model_responder(SimulatedModel("agents"))) as fake:
        claude = AnthropicModel(api_key="sk-ant-test-key", base_url=fake.base_url,
                                max_retries=0, timeout=5.0)
        claude.create(system=SYSTEM, messages=history[:9], tools=TOOLS, max_tokens=256,
                      cache=True)  # the agent's previous call, which wrote the prefix
        usage = []
        summary = same(claude, history, usage)(build_prompt(history[1:6], None, "goal"))
        body = fake.requests[-1]["body"]
    marked = [b for m in body["messages"] for b in m["content"] if "cache_control" in b]
    assert marked == [body["messages"][-1]["content"][-1]]
    assert "Summarize messages 2 to 6" in marked[0]["text"]
    assert body["system"][0]["cache_control"] and body["tools"][-1]["cache_control"]
    assert "ACTION_TABLE" in summary
    assert usage[0].cache_read_input_tokens > usage[0].cache_creation_input_tokens > 0
    assert usage[0].input_tokens == 0


def test_a_summary_prompt_is_plain_text_whose_ingredients_stay_known(transcript):
    import copy
    import pickle

    prompt = build_prompt(transcript[1:4], "old", "goal", "focus")
    made = summary_prompt(transcript[1:4], "old", "goal", "focus")
    assert type(prompt) is str and prompt == made.text  # no str subclass carrying data
    for again in (copy.deepcopy(prompt), pickle.loads(pickle.dumps(prompt))):
        assert built_from(again) == made.built_from
    assert built_from("a prompt written by hand") is None
    for n in range(REMEMBERED_PROMPTS):
        build_prompt(transcript[1:4], f"summary {n}")
    assert built_from(prompt) is None  # only the newest are remembered


def test_turns_cleared_by_an_earlier_layer_are_found_in_the_history(transcript):
    """In `progressive` the summarizing layer sees the cleared middle; the history holds the
    results as they were sent, and that is what the appended request covers."""
    from jupyter_compaction import ClearToolResults

    cleared = ClearToolResults(keep_last=0)(transcript[:9], goal=1,
                                            counter=TokenCounter()).messages
    assert cleared[1:9] != transcript[1:9]
    ask = instructions(build_prompt(cleared[1:9]), transcript[:9])
    assert "messages 2 to 9 of this conversation" in ask


@pytest.mark.parametrize("scenario", ["agents", "debug"])
def test_progressive_with_same_summarizes_after_clearing(scenario):
    same = play(scenario, budget=6_000, strategy="progressive", summarizer="same",
                task_state=False)
    aux = play(scenario, budget=6_000, strategy="progressive", summarizer="aux",
               task_state=False)
    assert len(same.summary_usage) == len(aux.summary_usage) > 0
    assert [c.summary for c in same.compactions] == [c.summary for c in aux.compactions]
