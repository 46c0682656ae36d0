"""The simulated model writes only what its request shows, over every setting.

Every scenario x every strategy x budgets 3,000 / 6,000 / 20,000 x task state on and
off: each argument of each call to a scenario tool, literal or composed, appears whole
in the request that produced it (a search pattern included); each identifier-like
argument of a task-state call (the model's own notes) appears there too; each id, time
or date of a final answer (and of a summary) appears in its
request, and no run makes the same call in three turns in a row.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from jupyter_compaction import scenarios, strategies
from jupyter_compaction.evaluation import identifiers
from jupyter_compaction.history import blocks, message_text
from jupyter_compaction.models.base import Reply
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.runner import start
from jupyter_compaction.vocab import READ_NOTES, SET_GOAL, TODO_UPDATE, TODO_WRITE, WRITE_NOTE

BUDGETS = (3000, 6000, 20_000)
MAX_TURNS = 60
COMPOSED = ("id",)  # a todo's own numbering: the model's words
STATE_TOOLS = {SET_GOAL, TODO_WRITE, TODO_UPDATE, WRITE_NOTE, READ_NOTES}  # its own notes


@dataclass
class Recorder:
    """A model wrapper that keeps every request with the reply it got."""

    model: SimulatedModel
    name: str = "simulated"
    calls: list[tuple[str, Reply]] = field(default_factory=list)

    def create(self, *, system: str, messages: list[dict], tools: list[dict[str, Any]],
               max_tokens: int, cache: bool = False) -> Reply:
        reply = self.model.create(system=system, messages=messages, tools=tools,
                                  max_tokens=max_tokens, cache=cache)
        seen = "\n".join([system, json.dumps(tools, ensure_ascii=False),
                          *(message_text(m) for m in messages)])
        self.calls.append((seen, reply))
        return reply


def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() if k not in COMPOSED for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def unseen(text: str, request: str) -> list[str]:
    return sorted(i for i in identifiers(text) if i not in request)


CASES = [pytest.param(name, strategy, id=f"{name}-{strategy}")
         for name in scenarios.names() for strategy in strategies.STRATEGIES]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "strategy"), CASES)
def test_every_identifier_written_was_in_the_request(name: str, strategy: str, tmp_path) -> None:
    for budget in BUDGETS:
        for task_state in (True, False):
            model = Recorder(SimulatedModel(name))
            workdir = str(tmp_path / f"{budget}{task_state}")
            session = start(name, model=model, budget=budget, strategy=strategy,
                            task_state=task_state, workdir=workdir)
            agent, task = session.agent, session.task
            run = agent.run(task, max_turns=MAX_TURNS)
            where = f"{name} {strategy} budget={budget} task_state={task_state}"
            for request, reply in model.calls:
                for use in reply.tool_uses:
                    if use["name"] not in STATE_TOOLS:  # every argument, whole
                        for value in strings(use["input"]):
                            assert value in request, (where, use["name"], value)
                        continue
                    for value in strings(use["input"]):
                        assert not unseen(value, request), (where, use["name"], value)
                assert not unseen(reply.text, request), (where, reply.text[:200])
            calls = [{(b["name"], json.dumps(b["input"], sort_keys=True))
                      for b in blocks(m) if b.get("type") == "tool_use"}
                     for m in run.transcript if m["role"] == "assistant"]
            for a, b, c in zip(calls, calls[1:], calls[2:], strict=False):
                assert not (a & b & c), (where, a & b & c)
            assert run.status in ("finished", "max_turns", "failed"), where
