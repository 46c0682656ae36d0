"""Instructions restated after compaction (`restate.py`): the simulated model forgets a
rule whose message a compaction summarized away, and keeps it when the agent restates
it; client-side (whole-history compaction) and the API's own (a threshold compaction
with a pause), in process and through the real SDK against the strict local API."""

from __future__ import annotations

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.agent import Agent
from jupyter_compaction.history import COMPACTION, blocks, validate
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.restate import in_view
from jupyter_compaction.server_compaction import ServerCompactingModel
from jupyter_compaction.vocab import COMPACT
from tests.support.needs import NEEDS_ANTHROPIC

RULE = 'End every answer with "-- ops bot".'
SIGN_OFF = "-- ops bot"


def stated(messages):
    return [n for n, m in enumerate(messages) if m["role"] == "system"]


@pytest.mark.parametrize("restate", [False, True])
def test_whole_history_compaction_loses_the_rule_unless_it_is_restated(restate):
    with runner.start("agents", budget=8_000, strategy="compact", standing_instructions=RULE,
                      restate=restate) as session:
        run = session.play()
    assert run.status == "finished" and len(run.compactions) >= 2
    validate(run.messages)
    assert run.answer.endswith(SIGN_OFF) is restate
    assert stated(run.transcript)[0] == 1  # stated once after the task, either way
    assert len(stated(run.transcript)) == 1 + restate * len(run.compactions)
    assert bool(stated(run.messages)) is restate  # the live context still shows it


def test_a_strategy_that_keeps_the_task_turn_keeps_the_rule_and_it_is_not_sent_twice():
    with runner.start("agents", budget=8_000, strategy="trim",
                      standing_instructions=RULE) as session:
        run = session.play()
    assert run.compactions and run.answer.endswith(SIGN_OFF)
    assert stated(run.transcript) == [1]  # still in view after each trim: not restated


def test_it_is_counted_in_the_running_tally():
    with runner.start("agents", budget=8_000, strategy="compact",
                      standing_instructions=RULE) as session:
        run = session.play()
    assert len(stated(run.messages)) == 1
    before = run.tokens(session.agent.counter).total
    run.tally = None
    assert run.tokens(session.agent.counter).total == before  # the running count agrees


KEEP = ("Summarize this conversation. Keep every identifier and file name verbatim, in at "
        "most 3000 words.")


def edit():
    # below the real API's 50,000 minimum, so that a small run compacts once
    return {"type": COMPACT, "trigger": {"type": "input_tokens", "value": 6_000},
            "instructions": KEEP, "pause_after_compaction": True}


def play(model, restate, tmp_path, scenario="agents", turns=60):
    spec = scenarios.load(scenario)
    workspace = spec.prepare(tmp_path / f"ws{restate}")
    agent = Agent(model, tools=spec.tools(workspace), workspace=workspace, strategy="off",
                  budget=1_000_000, task_state=False, max_turns=turns, standing_instructions=RULE,
                  restate=restate)
    return agent.run(spec.task)


def compacted(run):
    return [n for n, m in enumerate(run.messages)
            if any(b.get("type") == COMPACTION for b in blocks(m))]


@pytest.mark.parametrize("restate", [False, True])
def test_the_apis_compaction_summarizes_it_away_unless_restated_after_the_block(
        restate, tmp_path):
    model = ServerCompactingModel(SimulatedModel("agents"), [edit()])
    run = play(model, restate, tmp_path)
    assert run.status == "finished" and compacted(run)
    assert run.answer.endswith(SIGN_OFF) is restate
    newest = compacted(run)[-1]
    after = [n for n in stated(run.messages) if n > newest]
    assert bool(after) is restate  # restated after the newest block, where the API reads
    assert all(run.messages[n - 1]["role"] == "user" for n in after)
    validate(run.messages)


def test_in_view_starts_at_the_newest_block_with_content():
    block = {"type": COMPACTION, "content": "summary"}
    null = {"type": COMPACTION, "content": None}
    messages = [{"role": "user", "content": "task"}, {"role": "system", "content": RULE},
                {"role": "assistant", "content": [block]}, {"role": "user", "content": "go"},
                {"role": "assistant", "content": [null]}]
    assert in_view(messages) == messages[2:]
    assert in_view(messages[:2]) == messages[:2]


def over_the_sdk(edits, restate, folder):
    """The markdown task with the API's `edits`, through the real SDK to the strict local
    API: (the run, the API with its requests)."""
    from jupyter_compaction.models.anthropic import AnthropicModel
    from tests.support.fake_messages_api import FakeMessagesAPI, model_responder

    with FakeMessagesAPI(model_responder(SimulatedModel("markdown"))) as api:
        model = AnthropicModel(api_key="sk-ant-test-key", base_url=api.base_url, edits=edits)
        run = play(model, restate, folder, "markdown", turns=120)
    assert api.refusals == [] and run.status == "finished"
    return run, api


def sent_rules(body):
    """The system messages of a request that the API reads (after the newest block)."""
    return ["".join(b["text"] for b in blocks(m)) for m in in_view(body["messages"])
            if m["role"] == "system"]


@NEEDS_ANTHROPIC
@pytest.mark.parametrize("restate", [False, True])
def test_through_the_sdk_the_strict_api_sees_the_restated_rule_after_the_block(
        restate, tmp_path):
    from jupyter_compaction.api_context import compact_edit

    run, api = over_the_sdk([compact_edit(50_000, KEEP, pause_after_compaction=True)],
                            restate, tmp_path)  # 50,000: the API's least trigger
    assert compacted(run) and run.answer.endswith(SIGN_OFF) is restate
    paused = [n for n, r in enumerate(api.message_requests)
              if r["response"]["stop_reason"] == "compaction"]
    assert paused
    assert sent_rules(api.message_requests[-1]["body"]) == [RULE] * restate


@pytest.fixture(scope="module")
def last_two_sizes(tmp_path_factory):
    """The strict API's count of the markdown run's last two requests, with no edit."""
    from tests.support.fake_messages_api import approx_tokens

    _, api = over_the_sdk([], True, tmp_path_factory.mktemp("measure"))
    return [approx_tokens(r["body"]) for r in api.message_requests[-2:]]


@NEEDS_ANTHROPIC
@pytest.mark.slow
@pytest.mark.parametrize("restate", [False, True])
def test_when_the_reply_that_continues_a_pause_is_the_answer_the_rule_is_in_its_request(
        restate, tmp_path, last_two_sizes):
    from jupyter_compaction.restate import GO_ON

    trigger = sum(last_two_sizes) // 2  # only the request for the answer reaches it
    assert trigger >= 50_000
    at_last = {**edit(), "trigger": {"type": "input_tokens", "value": trigger}}
    run, api = over_the_sdk([at_last], restate, tmp_path)
    stops = [r["response"]["stop_reason"] for r in api.message_requests]
    assert stops[-2:] == ["compaction", "end_turn"] and stops.count("compaction") == 1
    last = api.message_requests[-1]["body"]
    assert sent_rules(last) == [RULE] * restate
    if restate:  # the block, a user turn to go on, the rule: then the answer
        assert [m["role"] for m in in_view(last["messages"])] == ["assistant", "user", "system"]
        assert blocks(in_view(last["messages"])[1])[0]["text"] == GO_ON
    assert run.answer.endswith(SIGN_OFF) is restate
    validate(run.messages)
    validate(run.transcript)


def test_the_session_store_keeps_the_restated_messages_and_a_resumed_run_honours_them(
        tmp_path):
    from jupyter_compaction.store import SessionStore

    with runner.start("agents", budget=8_000, strategy="compact", standing_instructions=RULE,
                      store=SessionStore(tmp_path / "store"), max_turns=6) as session:
        run = session.play()
        assert run.status == "max_turns"
        context, transcript = next(filter(None, (f.stored(run)
                                                 for f in session.agent.features)))
        assert stated(transcript) == stated(run.transcript) and stated(context)
        resumed = session.agent.resume(run, max_turns=60)
    assert resumed.status == "finished" and resumed.answer.endswith(SIGN_OFF)
