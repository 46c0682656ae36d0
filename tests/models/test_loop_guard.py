"""No run cycles past the loop rule, over every setting.

Every scenario x every strategy x budgets 3,000 / 6,000 / 20,000 x task state on and off:
the windows a compaction closed are rebuilt from the run's events and transcript (apart
from the guard's own bookkeeping), and no run has more than `STALE_WINDOWS` windows in a
row that only repeat calls already made with the results they already got; a run that
reaches that many ends as stuck, with a reason that says it was looping.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from jupyter_compaction import scenarios, strategies
from jupyter_compaction.agent import Run
from jupyter_compaction.events import Compacted, Failed, ToolCalled
from jupyter_compaction.history import blocks, result_text
from jupyter_compaction.loop_guard import STALE_WINDOWS
from jupyter_compaction.runner import play

BUDGETS = (3000, 6000, 20_000)


def windows(run: Run) -> list[set[tuple[str, str, str]]]:
    """The calls (tool, input, result digest) of each stretch a compaction closed."""
    results = {b["tool_use_id"]: b for m in run.transcript for b in blocks(m)
               if b.get("type") == "tool_result"}
    found: list[set[tuple[str, str, str]]] = [set()]
    for event in run.events:
        if isinstance(event, Compacted):
            found.append(set())
        elif isinstance(event, ToolCalled) and event.id in results:
            result = results[event.id]
            digest = hashlib.sha1(f"{bool(result.get('is_error'))}\n{result_text(result)}"
                                  .encode()).hexdigest()
            found[-1].add((event.name, json.dumps(event.input, sort_keys=True), digest))
    return [w for w in found[:-1] if w]  # the last stretch is still open


def longest_stale_streak(run: Run) -> int:
    """The most windows in a row that made only calls made before, with the same results."""
    seen: set[tuple[str, str, str]] = set()
    streak = longest = 0
    for window in windows(run):
        streak = streak + 1 if window <= seen else 0
        longest = max(longest, streak)
        seen |= window
    return longest


CASES = [pytest.param(name, strategy, id=f"{name}-{strategy}")
         for name in scenarios.names() for strategy in strategies.STRATEGIES]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "strategy"), CASES)
def test_no_call_set_cycles_past_the_loop_rule(name: str, strategy: str) -> None:
    for budget in BUDGETS:
        for task_state in (True, False):
            run = play(name, budget=budget, strategy=strategy, task_state=task_state)
            where = f"{name} {strategy} budget={budget} task_state={task_state}"
            streak = longest_stale_streak(run)
            assert streak <= STALE_WINDOWS, (where, streak)
            if streak == STALE_WINDOWS and run.status != "finished":
                assert run.of(Failed)[-1].reason == "stuck", where
                assert "loop" in run.error and "same results" in run.error, where
            assert run.status != "max_turns" or streak < STALE_WINDOWS, where
