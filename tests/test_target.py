"""The agent compacts at the trigger and down to the target, so compaction is occasional.

Across the short bundled scenarios at 6,000 tokens, each compacting strategy compacts on at
most half the turns and most compactions leave at most 60 % of the budget; a compaction
reaches the target whenever the task and the newest turn fit under it.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from jupyter_compaction import scenarios, validate
from jupyter_compaction.agent import Agent, Run
from jupyter_compaction.events import Compacted, TurnStarted
from jupyter_compaction.history import blocks, cut_points
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.runner import play
from jupyter_compaction.summaries import is_summary
from jupyter_compaction.tokens import TokenCounter
from tests.support.histories import histories, png
from tests.support.quick import quick_first

BUDGET = 6_000
COUNTER = TokenCounter()


# The long `markdown` scenario reads source files of 1-3k tokens each: at 6,000 tokens two
# of them fill the room between target and trigger, so it compacts every other turn by
# design; its economics are measured at 8,000 tokens in benchmarks/bench_quality.py.
SHORT = [name for name in scenarios.names() if name != "markdown"]
CASES = [(scenario, strategy) for scenario in SHORT
         for strategy in ("trim", "summarize", "compact", "progressive")]


@pytest.mark.parametrize(("scenario", "strategy"), CASES)
def test_compaction_is_occasional_and_lands_near_the_target(scenario, strategy):
    run = play(scenario, budget=BUDGET, strategy=strategy)
    assert run.status == "finished" and scenarios.load(scenario).is_correct(run.answer)
    compacted = {e.turn for e in run.of(Compacted)}
    assert 0 < len(compacted) <= run.turn / 2
    starts = {e.turn: e for e in run.of(TurnStarted)}
    low = [t for t in compacted if starts[t].tokens <= 0.6 * BUDGET]
    assert len(low) > len(compacted) / 2


@pytest.mark.parametrize("scenario", scenarios.names())
def test_trimming_reaches_the_target_when_the_task_and_newest_turn_fit(scenario):
    run = play(scenario, budget=BUDGET, strategy="trim")
    starts = {e.turn: e for e in run.of(TurnStarted)}
    for event, result in zip(run.of(Compacted), run.compactions, strict=True):
        start = starts[event.turn]
        goal = start.target_at - start.parts["system"]
        newest = cut_points(result.messages)[-1]
        floor = COUNTER.count([result.messages[0], *result.messages[newest:]])
        assert result.tokens_after <= goal or floor > goal, event
        assert start.target_at == BUDGET // 2 and start.trigger_at == int(0.8 * BUDGET)


def test_a_higher_target_compacts_more_often():
    counts = [len(play("agents", budget=BUDGET, strategy="trim", target=t).compactions)
              for t in (0.3, 0.7)]
    assert counts[0] < counts[1]


def short_summary(prompt: str) -> str:
    return "## Goal\nfinish\n## Progress\nsome files read"


def _text(text: str) -> dict:
    return {"type": "text", "text": text}


def _call(n: int) -> dict:
    return {"type": "tool_use", "id": f"toolu_{n:04d}", "name": "read_file",
            "input": {"path": f"f{n}.txt"}}


def _failed(n: int, content) -> dict:
    return {"type": "tool_result", "tool_use_id": f"toolu_{n:04d}", "content": content,
            "is_error": True}


PNG = {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                   "data": png(1, 1)}}
URL = {"type": "image", "source": {"type": "url", "url": "https://example.com/chart.png"}}
# Found by hypothesis: `progressive`'s summary lands in the newest turn's assistant message,
# where trimming cannot drop it, one token over the goal; trimming the cleared history fits.
SUMMARY_IN_THE_NEWEST_TURN = [
    {"role": "user", "content": "Task: read"},
    {"role": "assistant", "content": [_call(2), _call(3), _call(4)]},
    {"role": "user", "content": [_failed(2, [_text("read"), URL]), _failed(3, "read"),
                                 _failed(4, "read")]},
    {"role": "assistant", "content": [_text("read"), _call(5), _call(6), _call(7),
                                      _text("read")]},
    {"role": "user", "content": [
        _failed(5, [_text("read"), PNG]), _failed(6, [_text("read read"), PNG]),
        _failed(7, [_text(" ".join(["read"] * 12 + ["ORD-1042"] * 7)), PNG]),
        _text("read read read read read")]},
]

# Found by hypothesis: a task over a tenth of the goal is the whole head, and with the
# summary it left the tail (half the goal) one token too little; the tail is shortened.
TASK_ALONE_HEAD = [
    {"role": "user", "content": [_text("Task: " + " ".join(["read"] * 24 + ["ORD-1042"] * 6)),
                                 PNG]},
    *[message for n, image in ((1, URL), (2, URL), (3, PNG), (4, PNG)) for message in (
        {"role": "assistant", "content": [_call(n), _text("read")]},
        {"role": "user", "content": [_failed(n, [_text("read"), image]), _text("read")]})],
    {"role": "assistant", "content": "read read"},
]


@pytest.mark.parametrize("strategy", quick_first(["trim", "summarize", "progressive"]))
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(messages=histories(min_turns=1), budget=st.integers(400, 20_000))
@example(messages=SUMMARY_IN_THE_NEWEST_TURN, budget=400)
@example(messages=TASK_ALONE_HEAD, budget=400)
def test_a_compaction_lands_at_the_target_on_any_history(strategy, messages, budget):
    """Generated histories (parallel calls, errors, images, documents): the agent's own
    compaction leaves a valid context, keeps the transcript whole, and reaches the target
    whenever the task and the newest turn fit under it (and, for `summarize`, which keeps
    its summary whatever it costs, the summary too)."""
    agent = Agent(SimulatedModel("agents"), budget=budget, strategy=strategy,
                  summarizer=short_summary, task_state=False)
    run = Run(task="task", messages=list(messages), transcript=list(messages))
    snapshot = copy.deepcopy(messages)
    result = agent.compact(run)
    assert run.transcript == snapshot and messages == snapshot
    if result is None:  # stuck: the run says so, and nothing was changed
        assert run.status == "failed" and run.messages == snapshot
        return
    validate(run.messages)
    goal = int(agent.settings.target * budget) - COUNTER.count([], run.system, [])
    newest = cut_points(snapshot)[-1]
    floor = COUNTER.count([snapshot[0], *snapshot[newest:]])
    if strategy == "summarize":
        floor += sum(COUNTER.count_message({"role": "assistant", "content": [b]})
                     for m in run.messages for b in blocks(m)
                     if b.get("type") == "text" and is_summary(b["text"]))
    if floor <= goal:
        assert COUNTER.count(run.messages) <= goal
