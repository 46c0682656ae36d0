"""`%agent` and `runner.play()` with the same knobs give the same run (as ipytest tests
its function and magic forms against each other)."""

from __future__ import annotations

import pytest

from jupyter_compaction import runner

KNOB_SETS = [
    ("--scenario agents --budget 8000 --strategy trim --no-task-state",
     {"budget": 8_000, "strategy": "trim", "task_state": False}),
    ("--scenario debug --budget 6000 --strategy progressive --summary-role user "
     "--summarizer same --max-turns 12",
     {"budget": 6_000, "strategy": "progressive", "summary_role": "user",
      "summarizer": "same", "max_turns": 12}),
    ("--scenario agents --budget 5000 --strategy summarize --notes",
     {"budget": 5_000, "strategy": "summarize", "notes": True}),
]


@pytest.mark.parametrize(("line", "knobs"), KNOB_SETS, ids=lambda v: str(v)[:40])
def test_the_magic_and_the_function_give_the_same_run(ip, line, knobs):
    ip.run_line_magic("agent", line + " --quiet")
    magic = ip.user_ns["_agent_run"]
    scenario = line.split()[1]
    function = runner.play(scenario, **knobs)
    assert magic.compactions  # the knobs matter: each run compacts
    assert (magic.status, magic.turn, magic.answer) == (
        function.status, function.turn, function.answer)
    assert magic.transcript == function.transcript
    assert magic.events == function.events
    assert magic.messages == function.messages


def test_context_budget_counts_as_a_knob_the_user_set(ip):
    ip.user_ns["CONTEXT_BUDGET"] = 7_000
    ip.run_line_magic("agent", "--scenario agents --quiet")
    assert ip.user_ns["_agent_run"].events == runner.play("agents", budget=7_000).events
