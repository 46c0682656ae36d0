"""Stuck and runaway runs end cleanly, with one clear line, and never hang.

- a head (the task) larger than the budget, and a system prompt plus tools larger than the
  budget: the preflight check stops the run before the first call (`CompressionStuck`);
- a single tool result larger than the budget: truncated to a quarter of the budget with a
  note saying how much was cut;
- a summarizer that returns more than it was given: the history is left unchanged with a
  note; with nothing else to fall back on the run ends as stuck, with trimming behind it
  (progressive) the run goes on;
- a model that never stops calling tools: `max_turns` ends it.

Every test runs under a `signal.alarm` watchdog: a loop that does not end fails the test
instead of hanging the suite.
"""

from __future__ import annotations

import signal
from typing import Any

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.agent import MAX_RESULT_SHARE, Agent
from jupyter_compaction.events import Compacted, Failed, Finished, ToolReturned, TurnStarted
from jupyter_compaction.history import validate
from jupyter_compaction.models.base import Reply, Usage
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.runner import play
from jupyter_compaction.strategies import (
    STRATEGIES,
    CompactAll,
    Progressive,
    SummarizeMiddle,
    TrimTurns,
)
from jupyter_compaction.tokens import CHARS_PER_TOKEN, TokenCounter
from tests.support.scripted import Endless, Relay, Scripted

WATCHDOG_S = 30
COMPACTING = [name for name in STRATEGIES if name != "off"]


@pytest.fixture(autouse=True)
def watchdog():
    def fire(signum: int, frame: Any) -> None:
        raise TimeoutError(f"still running after {WATCHDOG_S} s: an endless loop?")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.alarm(WATCHDOG_S)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def one_line(text: str | None) -> bool:
    return bool(text) and "\n" not in text and "Traceback" not in text and len(text) < 300


def echo(text: str) -> str:
    """Return the text, a few times over."""
    return (text + " ") * 40


# -- a head larger than the budget ---------------------------------------------------------

@pytest.mark.parametrize("strategy", COMPACTING)
def test_a_task_larger_than_the_budget_stops_before_the_first_call(strategy: str) -> None:
    model = Relay(SimulatedModel("agents"))
    task = "Read every file and report. " + "Context you must keep: ORD-1042. " * 1200
    assert TokenCounter().count_text(task) > 8000
    run = Agent(model, budget=4000, strategy=strategy).run(task, max_turns=10)
    assert run.status == "failed" and model.calls == 0
    failure = run.events[-1]
    assert isinstance(failure, Failed) and failure.reason == "stuck"
    assert one_line(run.error) and "stuck" in run.error and "raise the budget" in run.error
    assert run.transcript == [{"role": "user", "content": task}]  # the task itself is kept


@pytest.mark.parametrize("strategy", COMPACTING)
def test_a_system_prompt_and_tools_over_the_budget_say_so(strategy: str) -> None:
    model = Relay(SimulatedModel("agents"))
    run = play("agents", model=model, budget=200, strategy=strategy, max_turns=10)
    assert run.status == "failed" and model.calls == 0
    assert one_line(run.error)
    assert "system prompt and tools alone take" in run.error and "budget of 200" in run.error
    assert "-" not in run.error.split("budget")[-1], "no negative budgets in the message"


@pytest.mark.parametrize("budget", [400, 800, 1500, 2500])
@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_tiny_budgets_always_end_cleanly(strategy: str, budget: int) -> None:
    run = play("debug", budget=budget, strategy=strategy, max_turns=25)
    assert run.status in ("finished", "max_turns", "failed")
    assert isinstance(run.events[-1], Finished | Failed)
    if run.status == "failed":
        assert run.events[-1].reason == "stuck" and one_line(run.error)
    validate(run.messages)


# -- a single tool result larger than the budget -------------------------------------------

def test_a_tool_result_larger_than_the_budget_is_truncated_with_a_note() -> None:
    budget = 4000
    limit = int(budget * MAX_RESULT_SHARE) * CHARS_PER_TOKEN

    def dump(path: str) -> str:
        """Return an enormous file."""
        return "A line of a very large log file, ORD-1042 somewhere.\n" * 40_000

    replies = [Reply([{"type": "tool_use", "id": "toolu_1", "name": "dump",
                       "input": {"path": "big.log"}}], "tool_use", Usage(5, 5)),
               Reply([{"type": "text", "text": "Done."}], usage=Usage(5, 5))]

    run = Agent(Scripted(replies), tools=[dump], budget=budget, task_state=False,
                strategy="progressive").run("Summarize the log", max_turns=5)
    assert run.status == "finished"
    result = run.transcript[2]["content"][0]
    assert len(dump("x")) > 10 * limit
    assert result["content"].startswith("A line of a very large log file")
    assert result["content"].endswith(f"[{len(dump('x')) - limit} more characters truncated]")
    assert len(result["content"]) < limit + 100
    returned = run.of(ToolReturned)[0]
    # the cut is in characters (4 per token, an estimate), so allow the tokenizer some slack
    assert returned.truncated and returned.tokens < budget * MAX_RESULT_SHARE * 1.5
    assert all(e.tokens <= budget for e in run.of(TurnStarted))


def test_many_oversized_results_in_a_row_never_blow_the_budget() -> None:
    def echo(text: str) -> str:
        """Return the text, two million characters of it."""
        return text * 500_000

    run = Agent(Endless(), tools=[echo], budget=6000, task_state=False,
                strategy="progressive").run("go", max_turns=15)
    assert run.status == "max_turns" and run.turn == 15
    assert all(e.truncated for e in run.of(ToolReturned))
    assert all(e.tokens <= 6000 for e in run.of(TurnStarted))


# -- a summarizer that returns more than it was given --------------------------------------

def bloat(prompt: str) -> str:
    return "## Progress\n" + prompt + "\n" + prompt


def long_history(turns: int = 12) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Read the logs."}]
    for n in range(turns):
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Reading part {n}."},
            {"type": "tool_use", "id": f"toolu_{n}", "name": "echo", "input": {"text": str(n)}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": f"part {n} " * 100}]})
    return messages


@pytest.mark.parametrize("strategy", [SummarizeMiddle(summarizer=bloat),
                                      CompactAll(summarizer=bloat)], ids=["summarize", "compact"])
def test_a_longer_summary_leaves_the_history_unchanged_with_a_note(strategy: Any) -> None:
    history = long_history()
    result = strategy(history, goal=1000, counter=TokenCounter())
    assert result.messages == history and not result.changed
    assert "not smaller than the input" in result.note and "history unchanged" in result.note
    assert result.summary is None


def test_a_bloating_summarizer_alone_rests_and_trimming_stands_in() -> None:
    calls = []

    def counted(prompt: str) -> str:
        calls.append(prompt)
        return bloat(prompt)

    agent = Agent(Endless(), tools=[echo], budget=3000, task_state=False,
                  strategy="summarize", summarizer=counted)
    run = agent.run("go", max_turns=60)
    assert run.status == "max_turns" and run.error is None
    assert len(calls) == 2  # two weak summaries, then a rest for the rest of the run
    events = run.of(Compacted)
    assert events and all(e.strategy == "trim" and e.summary is None for e in events)
    assert all("trimmed instead" in e.note for e in events)
    assert all("summary skipped" in e.note for e in events[1:])


def test_a_bloating_summarizer_inside_progressive_falls_through_to_trimming() -> None:
    strategy = Progressive(layers=(SummarizeMiddle(), TrimTurns()))
    agent = Agent(Endless(), tools=[echo], budget=3000, task_state=False,
                  strategy=strategy, summarizer=bloat)
    run = agent.run("go", max_turns=30)
    assert run.status == "max_turns"
    events = run.of(Compacted)
    assert events and all(e.summary is None for e in events)
    noted = [e for e in events if "not smaller than the input" in e.note]
    assert noted and all("trim" in e.strategy for e in noted)


# -- a model that never stops -----------------------------------------------------------------

@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_a_model_that_never_stops_calling_tools_hits_max_turns(strategy: str) -> None:
    model = Endless()
    run = Agent(model, tools=[echo], budget=4000, task_state=False,
                strategy=strategy).run("go", max_turns=40)
    if strategy in ("off", "clear"):  # no way to shrink forever: stuck or over the budget
        assert run.status in ("max_turns", "failed")
    else:
        assert run.status == "max_turns" and run.turn == 40 and model.n == 40
        last = run.events[-1]
        assert isinstance(last, Finished) and last.reason == "max_turns"
    validate(run.messages)


def test_the_simulated_model_on_a_short_leash_stops_at_max_turns() -> None:
    run = play("audit", budget=6000, max_turns=3)
    assert run.status == "max_turns" and run.turn == 3 and run.answer is None
    assert not scenarios.load("audit").is_correct(run.answer or "")
