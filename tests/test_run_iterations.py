"""The API's compaction steps (`usage.iterations`) count in a run's tally and price: the
threshold edit's summary step (billed in the reply's iterations) and an on-demand
compaction asked by `server-summarize` (its cost only in the iterations)."""

from __future__ import annotations

from jupyter_compaction import scenarios
from jupyter_compaction.agent import Agent
from jupyter_compaction.models.base import Usage
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.pricing import dollars
from jupyter_compaction.server_compaction import ServerCompactingModel
from jupyter_compaction.strategies import ServerSummarize
from jupyter_compaction.vocab import COMPACT

PRICES = {"input": 1.0, "output": 5.0}


def play(tmp_path, model, **knobs):
    spec = scenarios.load("agents")
    workspace = spec.prepare(tmp_path / "ws")
    return Agent(model, tools=spec.tools(workspace), workspace=workspace, task_state=False,
                 **knobs).run(spec.task)


def steps(usages, kind):
    return [s for u in usages for s in u.iterations if s["type"] == kind]


def test_billed_input_sums_the_steps():
    plain = Usage(input_tokens=5, cache_read_input_tokens=7)
    assert plain.billed_input == plain.total_input == 12
    stepped = Usage(input_tokens=5, iterations=[
        {"type": "compaction", "input_tokens": 900, "output_tokens": 40},
        {"type": "message", "input_tokens": 5, "cache_read_input_tokens": 3}])
    assert stepped.billed_input == 908 and stepped.total_input == 5


def test_the_threshold_summary_step_is_in_tokens_sent(tmp_path):
    edit = {"type": COMPACT, "trigger": {"type": "input_tokens", "value": 6_000},
            "pause_after_compaction": True}
    model = ServerCompactingModel(SimulatedModel("agents"), [edit])
    run = play(tmp_path, model, strategy="off", budget=1_000_000)
    summaries = steps(run.usage, "compaction")
    assert summaries and all(s["input_tokens"] >= 6_000 for s in summaries)
    top = sum(u.total_input for u in run.usage)
    assert run.tokens_sent == top + sum(s["input_tokens"] for s in summaries)


def test_an_on_demand_compaction_by_the_api_is_tallied_and_priced(tmp_path):
    api = ServerCompactingModel(SimulatedModel("agents"))  # stands for the real API
    run = play(tmp_path, SimulatedModel("agents"), budget=8_000,
               strategy=ServerSummarize(api=api, tail_tokens=1_000))
    assert run.compactions and all(c.iterations for c in run.compactions)
    billed = steps(run.summary_usage, "compaction")
    assert billed == [s for c in run.compactions for s in c.iterations]  # each once
    inputs = sum(s["input_tokens"] for s in billed)
    assert run.tokens_sent == sum(u.total_input for u in run.usage) + inputs
    assert dollars(run.usage + run.summary_usage, PRICES) >= (
        dollars(run.usage, PRICES) + inputs * PRICES["input"] / 1e6)
