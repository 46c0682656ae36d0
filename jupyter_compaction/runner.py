"""Play a bundled scenario end to end: the one call behind the demo, magics and lab.

`start()` copies the scenario's workspace to a folder, builds the model (simulated by
default, Claude when given a `claude-…` id) and the agent with the scenario's tools, and
returns a `ScenarioRun`: the settings, the agent, its task and (once played) the run. A
scenario run made on a temporary folder owns it and removes it when closed (`close()`,
or use it as a context manager); a folder passed as `workdir` stays the caller's. An
empty (or new) `workdir` gets a fresh copy of the bundled files; one that holds files
already (a copy the learner made with `copy_workspace` and edited) is used as it is, and
the run is graded against the truth of those files. What an earlier run left there stays:
its notes file (NOTES.md) and memory folder (memories/) are read by a run that turns notes
or memory on, as a later session would find them.
(A recorded log is a `sessions.RecordedSession`, and the on-disk chain a `SessionStore`.)
`play()` is start, play and close in one call, returning the `Run`. Everything the
Jupyter layer and the benchmarks show comes from that `Run` and the events it emitted.

Left out: choosing defaults for a real model's price or window; see `benchmarks/`.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import scenarios
from .agent import Agent, Run
from .events import Event
from .models.base import Model
from .models.simulated import SimulatedModel
from .settings import DEFAULTS, Settings
from .store import SessionStore
from .workspace import Workspace

DEFAULT_SCENARIO = "agents"
WORKSPACE_PREFIX = "compaction-"


def make_model(model: str | Model, scenario: str) -> Model:
    """`"simulated"` plays `scenario` offline; a `claude-…` id uses the Anthropic API;
    `ollama:NAME` a local Ollama model (`models/compatible.py`)."""
    if not isinstance(model, str):
        return model
    if model == "simulated":
        return SimulatedModel(scenario)
    if model.startswith("claude"):
        from .models.anthropic import AnthropicModel

        return AnthropicModel(model)
    if model.startswith("ollama:"):
        from .models.compatible import compatible_model

        return compatible_model(model)
    raise ValueError(f"unknown model {model!r}; use 'simulated', a Claude model id such as "
                     "'claude-haiku-4-5', or 'ollama:NAME' for a local Ollama model")


@dataclass
class ScenarioRun:
    """A scenario's agent, ready to play, and (once played) its run."""

    scenario: str
    settings: Settings
    agent: Agent
    task: str
    run: Run | None = None
    folder: tempfile.TemporaryDirectory[str] | None = field(default=None, repr=False)

    def play(self) -> Run:
        """Run the task to the end (or the settings' `max_turns`)."""
        self.run = self.agent.run(self.task)
        self.run.scenario = self.scenario
        return self._graded(self.run)

    def resume(self, max_turns: int | None = None) -> Run:
        """Continue the failed run with the same agent (and workspace)."""
        if self.run is None:
            raise ValueError("this scenario has not run yet; nothing to resume")
        return self._graded(self.agent.resume(self.run, max_turns=max_turns))

    def ask(self, question: str, max_turns: int | None = None) -> Run:
        """Ask a follow-up question in the played run's conversation (`Agent.ask`), graded
        against the truth of the same workspace."""
        if self.run is None:
            raise ValueError("this scenario has not run yet; play() it before a follow-up")
        return self._graded(self.agent.ask(self.run, question, max_turns=max_turns))

    def _graded(self, run: Run) -> Run:
        """`run` with its outcome against the truth of the workspace it used, and the
        question its task was understood as (None for a task no question declares)."""
        scenario = scenarios.load(self.scenario)
        run.outcome = scenario.verdict(run, self.agent.workspace)
        run.question = scenario.canonical(run.task)
        return run

    def close(self) -> None:
        """Remove the temporary workspace this scenario run made (nothing else)."""
        if self.folder is not None:
            self.folder.cleanup()
            self.folder = None

    def __enter__(self) -> ScenarioRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start(
    scenario: str = DEFAULT_SCENARIO,
    *,
    task: str | None = None,
    settings: Settings = DEFAULTS,
    on_event: Callable[[Event], None] | None = None,
    store: SessionStore | None = None,
    workdir: str | None = None,
    **knobs: Any,
) -> ScenarioRun:
    """Build the agent for `scenario` on a fresh copy of its workspace; nothing runs yet.

    `knobs` override single settings (`budget=8_000`); a bad knob is a `ValueError`. A
    scenario with a cap of its own (`Scenario.max_turns`, the long task's) gets it while
    `max_turns` is neither a knob nor changed from its default.
    """
    spec = scenarios.load(scenario)
    if spec.max_turns and "max_turns" not in knobs and settings.max_turns == DEFAULTS.max_turns:
        knobs["max_turns"] = spec.max_turns
    settings = settings.with_changes(**knobs)
    folder = (None if workdir else
              tempfile.TemporaryDirectory(prefix=f"{WORKSPACE_PREFIX}{spec.name}-"))
    try:
        workspace = _workspace(spec, workdir or folder.name)
        agent = Agent(make_model(settings.model, spec.name), tools=spec.tools(workspace),
                      settings=settings, workspace=workspace, on_event=on_event, store=store)
    except BaseException:
        if folder is not None:
            folder.cleanup()
        raise
    return ScenarioRun(spec.name, settings, agent, task or spec.task, folder=folder)


def _workspace(spec: scenarios.Scenario, where: str) -> Workspace:
    """A fresh copy of the bundled files in an empty or new folder; a folder that holds
    files already is the learner's edited copy, used as it is."""
    path = Path(where)
    if path.is_dir() and any(path.iterdir()):
        return Workspace(path)
    return spec.prepare(path)


def copy_workspace(scenario: str, dest: str | Path) -> Path:
    """Copy `scenario`'s bundled files into `dest` (new or empty) for the learner to edit;
    then `start(scenario, workdir=dest)` or `%%agent --workdir DEST` runs on the edited
    files and grades against their truth. Returns the folder."""
    return scenarios.load(scenario).prepare(dest).root


def play(scenario: str = DEFAULT_SCENARIO, **options: Any) -> Run:
    """Run `scenario` with the given options (see `start`) and return the finished `Run`;
    its temporary workspace is removed when it ends."""
    with start(scenario, **options) as scenario_run:
        return scenario_run.play()

