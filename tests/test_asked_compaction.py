"""Compaction the model asks for: the context-usage line and the `compact` tool in a run."""

from __future__ import annotations

import re

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.asked_compaction import read_usage_line, usage_line
from jupyter_compaction.events import Compacted, ToolCalled
from jupyter_compaction.history import blocks, validate
from jupyter_compaction.settings import DEFAULTS
from tests.support.scripted import Scripted


def test_the_line_reads_back_what_it_says():
    line = usage_line(14_210, 20_000, 0.7)
    assert line == "[context usage: 14,210 of 20,000 tokens (71%); call compact past 70%]"
    assert read_usage_line(f"results\n{line}") == (71, 70)
    assert read_usage_line(usage_line(500, 20_000)) == (2, None)
    assert read_usage_line("no line here") is None


@pytest.mark.parametrize("bad", [0, 1.5, True, "half"])
def test_compact_at_must_be_a_share(bad):
    with pytest.raises(ValueError, match="compact_at must be a (share|number)"):
        DEFAULTS.with_changes(compact_at=bad)


def test_each_round_of_results_ends_with_the_line_and_it_is_counted():
    with runner.start("logistics", budget=100_000, usage_line=True) as session:
        run = session.play()
    rounds = [m for m in run.transcript if m["role"] == "user" and isinstance(m["content"], list)]
    assert rounds and all(read_usage_line(blocks(m)[-1]["text"]) for m in rounds)
    shares = [read_usage_line(blocks(m)[-1]["text"])[0] for m in rounds]
    assert shares == sorted(shares)  # nothing compacted at this budget: it only grows
    validate(run.messages)


def test_the_model_asks_and_the_agent_compacts_with_its_focus():
    with runner.start("debug", budget=8_000, usage_line=True, compact_at=0.7,
                      trigger=1.0, strategy="summarize") as session:
        run = session.play()
    asks = [e for e in run.of(ToolCalled) if e.name == "compact"]
    compactions = run.of(Compacted)
    assert asks and compactions
    assert all(c.turn == a.turn + 1 for a, c in zip(asks, compactions, strict=False))
    prompts = [c.summary_prompt for c in compactions if c.summary_prompt]
    assert prompts and all(a.input["focus"] in p for a, p in zip(asks, prompts, strict=False))
    assert scenarios.load("debug").outcome(run) == "correct"


def test_the_model_compacts_before_its_next_step_and_focuses_on_that_step():
    with runner.start("debug", budget=8_000, usage_line=True, compact_at=0.6,
                      trigger=1.0, strategy="summarize", task_state=False) as session:
        run = session.play()
    calls = run.of(ToolCalled)
    asks = [e for e in calls if e.name == "compact"]
    assert len(asks) >= 2 and len({a.input["focus"] for a in asks}) == len(asks)
    for ask in asks:
        assert [e.name for e in calls if e.turn == ask.turn] == ["compact"]  # nothing else
        step = next(e for e in calls if e.turn > ask.turn)  # the step it named, made next
        assert ask.input["focus"].startswith(("read ", "grep ", "list "))
        assert next(iter(step.input.values())) in ask.input["focus"]
    budget = 8_000
    assert all(c.tokens_before < 0.8 * budget for c in run.of(Compacted))  # not the backstop


def test_asking_for_a_compaction_again_is_no_repeated_call():
    from jupyter_compaction.agent import Agent
    from jupyter_compaction.models.base import Reply, Usage

    def call(n, name, args):
        return {"type": "tool_use", "id": f"t{n}", "name": name, "input": args}

    def read_file(path: str) -> str:
        """Read a file."""
        return f"contents of {path}"

    same = {"focus": "the open invoices"}
    replies = [Reply([call(1, "compact", same)], "tool_use", Usage(10, 1)),
               Reply([call(2, "compact", same)], "tool_use", Usage(10, 1)),
               Reply([call(3, "read_file", {"path": "a"})], "tool_use", Usage(10, 1)),
               Reply([call(4, "read_file", {"path": "a"})], "tool_use", Usage(10, 1)),
               Reply([{"type": "text", "text": "done"}], "end_turn", Usage(10, 1))]
    agent = Agent(Scripted(replies), tools=[read_file], task_state=False, compact_at=0.7,
                  strategy="trim")
    run = agent.run("go")
    assert [e.repeat for e in run.of(ToolCalled)] == [False, False, False, True]
    assert run.repeats == 1  # the second read only


def test_without_the_line_the_model_never_asks():
    with runner.start("debug", budget=8_000, compact_at=0.7) as session:
        run = session.play()
    assert not [e for e in run.of(ToolCalled) if e.name == "compact"]


def test_context_shows_the_lines_wording_and_cost():
    from jupyter_compaction.jupyter.context_view import rows, view

    with runner.start("logistics", budget=100_000, usage_line=True, compact_at=0.7) as session:
        run = session.play()
    marked = [r for r in rows(run) if "usage line" in r.marker]
    assert marked and all(re.search(r"usage line \d+ tok", r.marker) for r in marked)
    assert all("[context usage: " in r.text for r in marked)  # the wording, with --full
    assert "usage line" in view(run).text


def test_a_compaction_asked_in_one_run_does_not_fire_in_the_next():
    from jupyter_compaction.agent import Agent
    from jupyter_compaction.models.base import Reply, Usage
    from jupyter_compaction.strategies import TrimTurns

    class Counting(TrimTurns):
        calls = 0

        def __call__(self, messages, *, goal, counter):
            Counting.calls += 1
            return super().__call__(messages, goal=goal, counter=counter)

    ask = {"type": "tool_use", "id": "t1", "name": "compact", "input": {"focus": "x"}}
    replies = [Reply([ask], "tool_use", Usage(10, 1)),  # the first run ends here, at max_turns
               Reply([{"type": "text", "text": "done"}], "end_turn", Usage(10, 1))]

    agent = Agent(Scripted(replies), task_state=False, compact_at=0.7, strategy=Counting())
    first = agent.run("go", max_turns=1)
    assert first.status == "max_turns" and first.asked == "x"
    second = agent.run("go again")
    assert second.status == "finished" and second.asked is None
    assert Counting.calls == 0 and not second.of(Compacted)
    assert first.asked == "x"  # still the first run's, for resume() to honour
