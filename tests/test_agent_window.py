"""A reply that fills the model's context window (stop reason
`model_context_window_exceeded`) is an overflow: the agent drops it, compacts harder once
and asks again; a second one ends the run with a line saying what to change, and the
transcript survives. Against the strict local API, through the real SDK."""

from __future__ import annotations

from jupyter_compaction import scenarios
from jupyter_compaction.agent import Agent
from jupyter_compaction.compactor import TOO_LONG_NOTE
from jupyter_compaction.events import Compacted, Failed
from jupyter_compaction.history import validate
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.vocab import WINDOW_EXCEEDED
from tests.support.needs import NEEDS_ANTHROPIC

pytestmark = NEEDS_ANTHROPIC


def play(tmp_path, responder, window, **knobs):
    from jupyter_compaction.models.anthropic import AnthropicModel
    from tests.support.fake_messages_api import FakeMessagesAPI

    spec = scenarios.load("agents")
    workspace = spec.prepare(tmp_path / "ws")
    with FakeMessagesAPI(responder, context_window=window) as api:
        model = AnthropicModel(api_key="sk-ant-test-key", base_url=api.base_url, cache=False)
        agent = Agent(model, tools=spec.tools(workspace), workspace=workspace,
                      task_state=False, **knobs)
        run = agent.run(spec.task)
    return spec, workspace, api, run


def cut_off(api):
    return [n for n, r in enumerate(api.message_requests)
            if (r["response"] or {}).get("stop_reason") == WINDOW_EXCEEDED]


def test_a_full_window_compacts_harder_and_the_retry_goes_on(tmp_path):
    from tests.support.fake_messages_api import model_responder

    simulated = model_responder(SimulatedModel("agents"))

    def thinking_aloud(body):  # each reply opens with about 1,500 tokens of prose
        answer = simulated(body)
        prose = {"type": "text", "text": "Let me think this through. " * 230}
        return {**answer, "content": [prose, *answer["content"]], "usage": {}}

    # the agent believes it has 20,000 tokens; the model's window holds 6,000
    _, _, api, run = play(tmp_path, thinking_aloud, 6_000, budget=20_000,
                          strategy="summarize", max_turns=4)
    assert cut_off(api) and api.refusals == [] and run.error_line is None, run.error_line
    notes = [e.note for e in run.of(Compacted)]
    assert sum(TOO_LONG_NOTE in n for n in notes) == len(cut_off(api))  # one each
    sent = [b for m in run.transcript for b in m["content"] if isinstance(b, dict)]
    for n in cut_off(api):
        retry = api.message_requests[n + 1]
        assert retry["response"]["stop_reason"] != WINDOW_EXCEEDED  # it fit after compacting
        assert len(retry["body"]["messages"]) < len(api.message_requests[n]["body"]["messages"])
        dropped = api.message_requests[n]["response"]["content"]
        assert all(block not in sent for block in dropped)  # the cut-off reply was dropped
    validate(run.messages)


def test_a_window_too_small_even_after_compacting_is_a_clear_error(tmp_path):
    calls = []

    def verbose(body):  # two short calls, then replies longer than the window leaves
        if len(calls) < 2:
            calls.append(f"toolu_{len(calls)}")
            return {"content": [{"type": "tool_use", "id": calls[-1], "name": "list_files",
                                 "input": {"folder": "."}}]}
        return {"content": [{"type": "text", "text": "word " * 4_000}]}

    _, _, api, run = play(tmp_path, verbose, 3_000, budget=20_000, strategy="trim")
    assert run.status == "failed" and len(cut_off(api)) == 2  # the retry filled it again
    assert len(run.compactions) == 1  # compacted harder once
    error = run.of(Failed)[-1]
    assert error.reason == "model" and WINDOW_EXCEEDED in error.error
    assert "lower the budget" in error.error and "\n" not in error.error
    assert run.transcript[0]["content"] == scenarios.load("agents").task  # it survives
