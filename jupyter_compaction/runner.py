"""Play a bundled scenario end to end: the one call behind the demo, magics and lab.

`build()` copies the scenario's workspace to a fresh folder and builds the model
(simulated by default, Claude when given a `claude-…` id) and the agent with the
scenario's tools; `play()` builds and runs it. Everything the Jupyter layer and the
benchmarks show comes from the returned `Run` and the events it emitted.

Left out: choosing defaults for a real model's price or window; see `benchmarks/`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from typing import Any

from . import scenarios
from .agent import DEFAULT_BUDGET, Agent, Run
from .events import Event
from .models.base import Model
from .models.simulated import SimulatedModel
from .store import SessionStore

DEFAULT_MAX_TURNS = 60


def make_model(model: str | Model = "simulated", scenario: str = "agents") -> Model:
    """`"simulated"` plays `scenario` offline; a `claude-…` id uses the Anthropic API."""
    if not isinstance(model, str):
        return model
    if model == "simulated":
        return SimulatedModel(scenario)
    if model.startswith("claude"):
        from .models.anthropic import AnthropicModel

        return AnthropicModel(model)
    raise ValueError(f"unknown model {model!r}; use 'simulated' or a Claude model id such as "
                     "'claude-haiku-4-5'")


def build(
    scenario: str = "agents",
    *,
    task: str | None = None,
    model: str | Model = "simulated",
    budget: int = DEFAULT_BUDGET,
    strategy: Any = "progressive",
    task_state: bool = True,
    notes: bool = False,
    summary_role: str | None = None,
    summarizer: Any = "aux",
    on_event: Callable[[Event], None] | None = None,
    store: SessionStore | None = None,
    workdir: str | None = None,
) -> tuple[Agent, str]:
    """The agent for `scenario` (on a fresh copy of its workspace) and the task to give it."""
    spec = scenarios.load(scenario)
    workspace = spec.prepare(workdir or tempfile.mkdtemp(prefix=f"compaction-{spec.name}-"))
    agent = Agent(make_model(model, spec.name), tools=spec.tools(workspace), budget=budget,
                  strategy=strategy, task_state=task_state, notes=notes, workspace=workspace,
                  summary_role=summary_role, summarizer=summarizer, on_event=on_event,
                  store=store)
    return agent, task or spec.task


def play(scenario: str = "agents", *, max_turns: int = DEFAULT_MAX_TURNS, **knobs: Any) -> Run:
    """Run `scenario` with the given knobs (see `build`) and return the finished `Run`."""
    agent, task = build(scenario, **knobs)
    run = agent.run(task, max_turns=max_turns)
    run.scenario = scenarios.load(scenario).name
    return run
