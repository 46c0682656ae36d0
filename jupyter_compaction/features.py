"""Which features an agent has, from its settings: the one place that reads them.

The loop (`agent.py`) knows only the hook points (`hooks.py`); this module builds, from
the settings, the list of features attached to them, in the order the loop calls them:
the compactor first (it compacts over the trigger before any other feature acts before
a request), then the task state, the notes, the memory tool, the deduplication of
unchanged re-reads (`dedup.py`), the offloading of large results (`offload.py`), the
compaction the model asks for, the usage line, the join after a server compaction's
pause, the texts that come back after a compaction, the instructions restated after it,
the stop rules, and the session store last (it hears everything the others did).

The task state's and the notes' features are here rather than in `task_state.py`: the
run's record (`run.py`) holds a `TaskState`, and the hooks know the run.

Left out: features a user adds by hand (append to `Agent.features`; per-run state goes
on the run).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .asked_compaction import AskedCompaction, UsageLine
from .compactor import Compactor
from .dedup import DedupReads
from .hooks import Feature
from .memory_tool import MEMORY_FOLDER, Memory, MemoryFolder
from .models.base import Model
from .offload import Offload, OffloadFolder
from .paused import JoinPaused
from .recorder import Recorder
from .restate import Restate
from .restore import Reattach
from .rules import Breaker, GoingInCircles
from .settings import Settings
from .store import SessionStore
from .task_state import TaskState, notes_tools
from .tokens import TokenCounter
from .workspace import RUN_FOLDER, Workspace

if TYPE_CHECKING:
    from .run import Run


class TaskStateFeature(Feature):
    """The task state in a run: a fresh one for each run (when `enabled`), its tools, and
    its rendering in the system prompt."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def start(self, run: Run) -> None:
        run.task_state = TaskState() if self.enabled else None

    def tools(self, run: Run) -> list[Callable[..., Any]]:
        return run.task_state.tools() if run.task_state else []

    def system(self, run: Run) -> str:
        return run.task_state.render() if run.task_state else ""


class Notes(Feature):
    """The notes file's two tools, in `workspace`."""

    def __init__(self, workspace: Workspace):
        self.workspace = workspace

    def tools(self, run: Run) -> list[Callable[..., Any]]:
        return notes_tools(self.workspace)


def assemble(settings: Settings, compactor: Compactor, counter: TokenCounter, *,
             model: Model, workspace: Workspace | None, store: SessionStore | None
             ) -> list[Feature]:
    """The features the settings ask for; a setting that needs a workspace it was not
    given is a one-line `ValueError`."""
    needs = {"notes": "the notes file", "memory": "the memory folder",
             "offload_at": "the offloaded results", "offload_over": "the offloaded results"}
    for name, what in needs.items():
        if getattr(settings, name) not in (False, None) and workspace is None:
            raise ValueError(f"{name}={getattr(settings, name)!r} needs a workspace to "
                             f"keep {what} in")
    features: list[Feature] = [compactor, TaskStateFeature(settings.task_state)]
    if settings.notes and workspace:
        features.append(Notes(workspace))
    if settings.memory and workspace:
        features.append(Memory(MemoryFolder(workspace.root / MEMORY_FOLDER)))
    if settings.dedup_reads:  # first: it compares a result before it is offloaded
        features.append(DedupReads())
    if settings.offload_threshold is not None and workspace:
        features.append(Offload(OffloadFolder(workspace.root / RUN_FOLDER),
                                settings.offload_threshold, counter))
    if settings.compact_at is not None:
        features.append(AskedCompaction(compactor))
    if settings.usage_line:
        features.append(UsageLine(counter, compactor, settings.compact_at))
    features += [JoinPaused(), Reattach()]
    if settings.standing_instructions:
        features.append(Restate(settings.standing_instructions, settings.restate,
                                compactor.features))
    features += [GoingInCircles(), Breaker()]
    if store:
        features.append(Recorder(store, model, compactor))
    return features
