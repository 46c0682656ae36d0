"""The agent loop on the simulated model: compaction, re-reads, transcript, events."""

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.agent import Agent
from jupyter_compaction.events import (
    Compacted,
    Failed,
    Finished,
    ModelReplied,
    ToolCalled,
    ToolReturned,
    TurnStarted,
)
from jupyter_compaction.history import validate
from jupyter_compaction.models.base import Reply, Usage
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.runner import play
from jupyter_compaction.store import SessionStore
from jupyter_compaction.strategies import ClearToolResults
from jupyter_compaction.tokens import CHARS_PER_TOKEN
from jupyter_compaction.tools import kept_chars
from tests.support.scripted import Scripted


@pytest.mark.parametrize("name", scenarios.names())
def test_default_run_compacts_twice_and_answers_right(name):
    run = play(name, budget=8000)
    assert run.status == "finished"
    assert len(run.compactions) >= 2
    assert scenarios.load(name).is_correct(run.answer)
    assert run.repeats == 0
    validate(run.messages)


def test_runs_are_deterministic():
    first, second = play("logistics", budget=8000), play("logistics", budget=8000)
    assert [e.to_dict() for e in first.events] == [e.to_dict() for e in second.events]


def test_off_lets_the_context_grow_past_the_budget_and_reports_it():
    run = play("agents", budget=4000, strategy="off")
    assert not run.compactions
    assert run.peak_context > 4000
    assert any(e.tokens > e.budget for e in run.of(TurnStarted))


def test_trimming_without_task_state_rereads_and_with_task_state_does_not():
    without = play("agents", budget=5000, strategy="trim", task_state=False)
    with_state = play("agents", budget=5000, strategy="trim", task_state=True)
    rereads = [e for e in without.of(ToolCalled) if e.repeat and e.name == "read_file"]
    assert rereads, "losing findings to trimming should make the agent read files again"
    first_compaction = without.events.index(without.of(Compacted)[0])
    assert without.events.index(rereads[0]) > first_compaction
    assert scenarios.load("agents").outcome(without) == "stuck"  # caught by the loop guard
    assert with_state.repeats == 0
    assert with_state.status == "finished"


@pytest.mark.parametrize(("user_summary", "redoes"), [("trust", False), ("redo_all", True)])
def test_how_a_user_role_summary_is_read_is_the_models_assumption(user_summary, redoes):
    model = SimulatedModel("agents", user_summary=user_summary)
    user = play("agents", budget=8000, strategy="summarize", task_state=False,
                summary_role="user", model=model)
    assistant = play("agents", budget=8000, strategy="summarize", task_state=False,
                     model=SimulatedModel("agents", user_summary=user_summary))
    assert assistant.repeats == 0 and assistant.status == "finished"
    assert (user.repeats > 0) == redoes


def test_transcript_keeps_every_message_in_order_across_compactions():
    run = play("debug", budget=5000)
    assert len(run.compactions) >= 2
    assert len(run.transcript) > len(run.messages)
    replies = [e for e in run.events if isinstance(e, ModelReplied)]
    assert len([m for m in run.transcript if m["role"] == "assistant"]) == len(replies)
    results = [e for e in run.events if isinstance(e, ToolReturned)]
    assert sum(len(m["content"]) for m in run.transcript[1:] if m["role"] == "user") == \
        len(results)
    assert run.transcript[0]["content"] == scenarios.load("debug").task


def test_transcript_rebuilt_from_the_store_equals_the_run(tmp_path):
    store = SessionStore(tmp_path)
    run = play("agents", budget=6000, store=store)
    assert store.transcript(run.session_id) == run.transcript
    chain = store.chain(run.session_id)
    assert len(chain) == len(run.compactions) + 1
    assert all(child.parent_session_id == parent.session_id
               for parent, child in zip(chain, chain[1:], strict=False))
    assert store.context(run.session_id) == run.messages
    assert [e["kind"] for e in store.events(run.session_id)] == [e.kind for e in run.events]
    reopened = SessionStore(tmp_path)  # "after a kernel restart"
    assert {s.run_id for s in reopened.list()} == {chain[0].session_id}


def test_compacted_event_carries_prompt_summary_and_dropped_facts():
    run = play("logistics", budget=6000, strategy="summarize", task_state=False)
    event = next(e for e in run.of(Compacted) if e.summary)
    assert "## Goal" in event.summary and "<turns>" in event.summary_prompt
    assert event.tokens_after < event.tokens_before
    assert run.summary_usage, "the summary call's usage is counted"
    assert run.tokens_sent > sum(u.total_input for u in run.usage)


def call(n, name="shout", text="hi"):
    return {"type": "tool_use", "id": f"t{n}", "name": name, "input": {"text": text}}


def shout(text: str) -> str:
    """Repeat the text loudly."""
    if text == "boom":
        raise RuntimeError("the tool broke\nsecond line")
    return text.upper() * 5


def test_tool_errors_become_error_results_not_crashes():
    model = Scripted([Reply([call(1, text="boom")], "tool_use", Usage(10, 5)),
                      Reply([{"type": "text", "text": "done"}], "end_turn", Usage(20, 2))])
    run = Agent(model, tools=[shout], task_state=False).run("go")
    assert run.status == "finished" and run.answer == "done"
    result = run.transcript[2]["content"][0]
    assert result["is_error"] and result["content"] == "RuntimeError: the tool broke"


def test_model_failure_ends_the_run_with_one_line_and_keeps_the_transcript():
    model = Scripted([Reply([call(1)], "tool_use", Usage(10, 5)),
                      RuntimeError("overloaded\ntraceback noise")])
    run = Agent(model, tools=[shout], task_state=False).run("go")
    assert run.status == "failed"
    assert run.error == "RuntimeError: overloaded"
    assert isinstance(run.events[-1], Failed)
    assert len(run.transcript) == 3


def test_resume_continues_a_failed_run(tmp_path):
    store = SessionStore(tmp_path)
    model = Scripted([Reply([call(1)], "tool_use", Usage(10, 5)), RuntimeError("down"),
                      Reply([{"type": "text", "text": "finished"}], "end_turn", Usage(9, 1))])
    agent = Agent(model, tools=[shout], task_state=False, store=store)
    run = agent.run("go")
    assert run.status == "failed"
    run = agent.resume(run)
    assert run.status == "finished" and run.answer == "finished"
    assert store.transcript(run.session_id) == run.transcript


def test_max_turns_stops_a_model_that_never_stops_calling_tools():
    model = Scripted([Reply([call(n)], "tool_use", Usage(1, 1)) for n in range(10)])
    run = Agent(model, tools=[shout], task_state=False).run("go", max_turns=4)
    assert run.status == "max_turns" and run.turn == 4
    assert isinstance(run.events[-1], Finished) and run.events[-1].reason == "max_turns"


def test_oversized_tool_result_is_truncated_with_a_note():
    def dump() -> str:
        """Return a huge blob."""
        return "x" * 100_000

    model = Scripted([Reply([{"type": "tool_use", "id": "t1", "name": "dump", "input": {}}],
                            "tool_use", Usage(1, 1)),
                      Reply([{"type": "text", "text": "ok"}], "end_turn", Usage(1, 1))])
    run = Agent(model, tools=[dump], task_state=False, budget=4000).run("go")
    content = run.transcript[2]["content"][0]["content"]
    assert "more characters truncated" in content and len(content) < 5000
    assert run.of(ToolReturned)[0].truncated


@pytest.mark.parametrize("share", [0.1, 0.5])
def test_the_result_cap_is_the_setting_s_share_of_the_budget(share):
    def dump() -> str:
        """Return a huge blob."""
        return "x" * 100_000

    model = Scripted([Reply([{"type": "tool_use", "id": "t1", "name": "dump", "input": {}}],
                            "tool_use", Usage(1, 1)),
                      Reply([{"type": "text", "text": "ok"}], "end_turn", Usage(1, 1))])
    run = Agent(model, tools=[dump], task_state=False, budget=4000, result_cap=share).run("go")
    content = run.transcript[2]["content"][0]["content"]
    assert kept_chars(content) == int(4000 * share) * CHARS_PER_TOKEN


def test_a_strategy_that_cannot_shrink_ends_the_run_as_stuck():
    model = Scripted([Reply([call(n, text="y" * 400)], "tool_use", Usage(1, 1))
                      for n in range(30)])
    agent = Agent(model, tools=[shout], task_state=False, budget=3000,
                  strategy=ClearToolResults(keep_last=50))
    run = agent.run("go", max_turns=30)
    assert run.status == "failed"
    assert isinstance(run.events[-1], Failed) and run.events[-1].reason == "stuck"
    assert "stuck" in run.error and "\n" not in run.error


def test_bad_budget_and_task_are_clear_errors():
    with pytest.raises(ValueError, match="positive whole number of tokens"):
        Agent(Scripted([]), budget=0)
    with pytest.raises(ValueError, match="non-empty"):
        Agent(Scripted([])).run("  ")


def test_an_interrupt_ends_the_run_cleanly_and_resume_continues():
    model = Scripted([Reply([call(1)], "tool_use", Usage(1, 1)), KeyboardInterrupt(),
                      Reply([{"type": "text", "text": "back"}], "end_turn", Usage(1, 1))])
    agent = Agent(model, tools=[shout], task_state=False)
    run = agent.run("go")
    assert run.status == "failed" and run.events[-1].reason == "interrupted"
    assert len(run.transcript) == 3
    assert agent.resume(run).answer == "back"


class Broken:
    """A learner's strategy with a bug in it."""

    name = "broken"

    def __call__(self, messages, *, goal, counter):
        return 1 / 0


def test_a_strategy_bug_ends_the_run_failed_with_its_traceback():
    run = play("agents", budget=6_000, strategy=Broken())
    assert run.status == "failed" and not run.compactions
    event = run.events[-1]
    assert isinstance(event, Failed) and event.reason == "strategy"
    assert event.error == run.error_line == ("the compaction raised ZeroDivisionError: "
                                             "division by zero; see run.error for the traceback")
    assert run.error.startswith("Traceback (most recent call last):")
    assert "return 1 / 0" in run.error and run.error.endswith("ZeroDivisionError: division by zero")


def test_only_a_failed_summary_call_trims_instead():
    def down(prompt):
        raise RuntimeError("summary service down")

    run = play("agents", budget=6_000, strategy="summarize", summarizer=down)
    assert run.status == "finished" and run.error is None
    assert any(e.note.startswith("summary failed (RuntimeError: summary service down)")
               for e in run.of(Compacted))


def test_a_feature_attaches_at_the_hook_points_without_touching_the_loop():
    from jupyter_compaction.hooks import Feature, Stop

    class Budgeted(Feature):
        """A stop rule of one's own: at most two rounds of tool calls."""

        def __init__(self):
            self.heard = []

        def tools(self, run):
            def ping(text: str) -> str:
                """Answer pong."""
                return "pong"
            return [ping]

        def after_round(self, run):
            rounds = sum(1 for m in run.messages if m["role"] == "user") - 1
            return Stop("two rounds are enough", "stuck") if rounds >= 2 else None

        def on_event(self, run, event):
            self.heard.append(event.kind)

    model = Scripted([Reply([call(n, name="ping")], "tool_use", Usage(1, 1)) for n in range(5)])
    agent = Agent(model, task_state=False, strategy="off")
    feature = Budgeted()
    agent.features.append(feature)
    run = agent.run("go")
    assert run.status == "failed" and run.error == "two rounds are enough" and run.turn == 2
    assert run.transcript[2]["content"][0]["content"] == "pong"
    assert feature.heard[-1] == "failed" and feature.heard.count("turn_started") == 2
