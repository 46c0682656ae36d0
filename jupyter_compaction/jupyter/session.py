"""One `%%agent` run: the knobs, the agent built from them, and the run it produced.

`runner.play()` returns only the `Run`; resuming a failed run needs the `Agent` that ran
it (its model, strategy and workspace, where a notes file may live), so this module
builds the agent with `runner.build()` and keeps it next to the run.

Left out: persisting sessions to disk (pass a `SessionStore` to the core for that).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from .. import runner
from ..agent import DEFAULT_BUDGET, Agent, Run
from ..events import Event
from ..runner import DEFAULT_MAX_TURNS


@dataclass(frozen=True)
class Knobs:
    """Everything `%%agent` and the lab can set for one run."""

    scenario: str
    task: str | None = None  # None: the scenario's own task
    model: str = "simulated"
    budget: int = DEFAULT_BUDGET
    strategy: str = "progressive"
    task_state: bool = True
    notes: bool = False
    summary_role: str | None = None
    summarizer: str = "aux"
    max_turns: int = DEFAULT_MAX_TURNS


@dataclass
class Session:
    """The knobs, the agent built from them, its task, and (once played) the run."""

    knobs: Knobs
    agent: Agent
    task: str
    run: Run | None = None


def build(knobs: Knobs, on_event: Callable[[Event], None] | None = None) -> tuple[Agent, str]:
    """The agent for `knobs` (on a fresh copy of the scenario's workspace) and its task."""
    fields = {k: v for k, v in dataclasses.asdict(knobs).items() if k != "max_turns"}
    return runner.build(**fields, on_event=on_event)


def prepare(knobs: Knobs, on_event: Callable[[Event], None] | None = None) -> Session:
    """Build the agent (raises ValueError for knobs the agent refuses); nothing runs yet."""
    agent, task = build(knobs, on_event)
    return Session(knobs, agent, task)


def play(session: Session) -> Run:
    """Run the prepared session's task to the end (or `max_turns`)."""
    session.run = session.agent.run(session.task, max_turns=session.knobs.max_turns)
    session.run.scenario = session.knobs.scenario
    return session.run


def start(knobs: Knobs, on_event: Callable[[Event], None] | None = None) -> Session:
    """Build the agent and run it: `prepare()` then `play()`."""
    session = prepare(knobs, on_event)
    play(session)
    return session


def resume(session: Session, on_event: Callable[[Event], None] | None = None,
           max_turns: int | None = None) -> Run:
    """Continue the session's failed run with the same agent; events go to `on_event`."""
    if session.run is None:
        raise ValueError("this session has not run yet; nothing to resume")
    session.agent.on_event = on_event
    return session.agent.resume(session.run, max_turns=max_turns or session.knobs.max_turns)
