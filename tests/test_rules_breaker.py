"""The compaction circuit breaker (`loop_guard.CompactionBreaker`, `rules.Breaker`): three
failed compaction attempts in a row, or the context back over the trigger right after each of three
compactions in a row that cost a model call, stop the run as stuck with a reason that says what
to change; client-side and for the API's own compaction. A compaction that costs no call (clear,
trim) never trips the second rule."""

from __future__ import annotations

from typing import Any

from jupyter_compaction.agent import Agent
from jupyter_compaction.events import Compacted, Failed
from jupyter_compaction.history import COMPACTION, validate
from jupyter_compaction.loop_guard import FAILED_IN_A_ROW, REFILLED_IN_A_ROW, CompactionBreaker
from jupyter_compaction.server_compaction import ServerCompactingModel
from jupyter_compaction.vocab import COMPACT
from tests.support.scripted import Endless


def echo(text: str) -> str:
    """Return the text, many times over."""
    return (text + " ") * 5_000


def failed(prompt: str) -> str:
    raise ConnectionError("the summary service is down")


def stuck_line(run) -> str:
    events = run.of(Failed)
    assert run.status == "failed" and events and events[-1].reason == "stuck"
    assert "\n" not in events[-1].error
    return events[-1].error


def test_the_counts_reset_and_trip():
    breaker = CompactionBreaker()
    assert breaker.attempted("x") is None and breaker.attempted("x") is None
    assert breaker.attempted("") is None and breaker.failed == 0  # a success resets
    for _ in range(FAILED_IN_A_ROW - 1):
        assert breaker.attempted("down") is None
    assert "attempts in a row failed (the last: down)" in breaker.attempted("down")
    fresh = CompactionBreaker()
    for _ in range(REFILLED_IN_A_ROW - 1):
        assert fresh.attempted("", over=True, paid=True) is None
    assert fresh.attempted("", over=False, paid=True) is None and fresh.refilled == 0
    for _ in range(REFILLED_IN_A_ROW - 1):
        fresh.attempted("", over=True, paid=True)
    for _ in range(REFILLED_IN_A_ROW):  # free compactions over the trigger are not counted
        assert fresh.attempted("", over=True) is None
    assert fresh.refilled == REFILLED_IN_A_ROW - 1
    assert "back over the trigger" in fresh.attempted("", over=True, paid=True)


def test_three_failed_summary_calls_stop_the_run_though_trimming_stood_in():
    run = Agent(Endless(), tools=[echo], budget=4_000, task_state=False,
                strategy="summarize", summarizer=failed).run("go", max_turns=200)
    line = stuck_line(run)
    assert f"{FAILED_IN_A_ROW} compaction attempts in a row failed" in line
    assert "ConnectionError" in line and "raise the budget" in line
    notes = [e.note for e in run.of(Compacted)]
    assert sum("summary failed" in n for n in notes) == FAILED_IN_A_ROW
    assert any("summary skipped" in n for n in notes)  # resting: no attempt, not counted
    validate(run.messages)


def results_of(tokens: int):
    """An `echo` tool whose every result is about `tokens` tokens long."""
    from jupyter_compaction.tokens import TokenCounter

    def echo(text: str) -> str:
        """Return the text, many times over."""
        words = ""
        while TokenCounter().count_text(words) < tokens:
            words += f"{text} {len(words)} "
        return words
    return echo


def test_clearing_that_keeps_the_context_over_the_trigger_is_not_stopped():
    """The three newest results `clear` keeps are over the 80 % trigger after each clearing
    (yet under the budget, and each clearing frees enough): no call is wasted, so the run
    goes on to its turn limit."""
    run = Agent(Endless(), tools=[results_of(1_150)], budget=4_000, task_state=False,
                strategy="clear", result_cap=1.0).run("go", max_turns=10)
    compactions = run.of(Compacted)
    assert len(compactions) > REFILLED_IN_A_ROW and not any(c.summary for c in compactions)
    assert all(c.tokens_after > 3_200 for c in compactions)  # the trigger: 80 % of 4,000
    assert run.status == "max_turns" and not run.of(Failed)


def test_summaries_that_leave_the_context_over_the_trigger_stop_the_run():
    """Each summary (a model call) is itself over the trigger: three in a row stop the run."""
    summary = "## Progress\n" + " ".join(f"fact{i} kept" for i in range(1_030))
    run = Agent(Endless(summary), tools=[results_of(3_350)], budget=4_000, task_state=False,
                strategy="compact", result_cap=1.0).run("go", max_turns=40)
    line = stuck_line(run)
    assert f"each of the last {REFILLED_IN_A_ROW} compactions that cost a model call" in line
    assert "raise the budget" in line and "shorter summary" in line
    assert len(run.compactions) == REFILLED_IN_A_ROW and len(run.summary_usage) == REFILLED_IN_A_ROW
    assert all(c.summary for c in run.of(Compacted)) and run.breaker.refilled == REFILLED_IN_A_ROW
    assert run.transcript[0]["content"] == "go"  # the transcript survives


def api_edit(trigger: int) -> dict[str, Any]:
    return {"type": COMPACT, "trigger": {"type": "input_tokens", "value": trigger}}


def test_the_apis_null_compactions_trip_it_before_the_next_request():
    model = ServerCompactingModel(Endless(summary=None), [api_edit(3_000)])
    run = Agent(model, tools=[echo], budget=100_000, strategy="off", task_state=False,
                result_cap=0.05).run("go", max_turns=40)
    line = stuck_line(run)
    assert "the API's compaction came back with null content" in line
    nulls = [b for m in run.messages for b in m["content"] if isinstance(b, dict)
             and b.get("type") == COMPACTION and b.get("content") is None]
    assert len(nulls) == FAILED_IN_A_ROW


def test_the_api_compacting_on_every_request_trips_it():
    model = ServerCompactingModel(Endless(), [api_edit(3_000)])
    run = Agent(model, tools=[echo], budget=100_000, strategy="off", task_state=False,
                result_cap=0.05).run("go", max_turns=40)
    assert "back over the trigger right after" in stuck_line(run)
    assert sum(bool(u.iterations) for u in run.usage) == REFILLED_IN_A_ROW + 1
