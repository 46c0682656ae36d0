"""Writes a run to a `SessionStore` as it happens: a listener, like the chart.

The recorder hears every message and event the loop adds (`hooks.py`) and appends it to
the run's session, so a crash, a model error or a stuck compaction loses nothing. Each
compaction starts a new session in the run's chain, holding the compacted context and
the task state it began with; the task state is saved again after each round of tool
results. `Agent.resume` reads the newest session's context and transcript back.

Left out: what the store's files are (`store.py`), and reading a chain (`store.chain`).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from .events import Event
from .history import Message, blocks
from .hooks import Feature
from .models.base import Model
from .store import SessionStore

if TYPE_CHECKING:
    from .compactor import Compactor
    from .run import Run

TASK_CHARS = 500  # the task's first characters, in each session's meta.json


class Recorder(Feature):
    """One agent's runs in `store`: where they start, what they add, each compaction."""

    def __init__(self, store: SessionStore, model: Model, compactor: Compactor):
        self.store, self.model, self.compactor = store, model, compactor

    def start(self, run: Run) -> None:
        run.session_id = self.store.start(self._meta(run.task))

    def stored(self, run: Run) -> tuple[list[Message], list[Message]] | None:
        if not run.session_id:
            return None
        return self.store.context(run.session_id), self.store.transcript(run.session_id)

    def on_message(self, run: Run, message: Message) -> None:
        if run.session_id:
            self.store.append_message(run.session_id, message)
            if any(b.get("type") == "tool_result" for b in blocks(message)):
                self._save_state(run)  # a round of tool results may have changed it

    def on_event(self, run: Run, event: Event) -> None:
        if run.session_id:
            self.store.append_event(run.session_id, event.to_dict())

    def on_compacted(self, run: Run) -> None:
        if run.session_id:
            run.session_id = self.store.start(self._meta(run.task), parent=run.session_id,
                                              context=run.messages)
            self._save_state(run)  # each session of the chain holds the task state it began with

    def _save_state(self, run: Run) -> None:
        if run.task_state:
            self.store.save_state(run.session_id, dataclasses.asdict(run.task_state))

    def _meta(self, task: str) -> dict[str, Any]:
        strategy = self.compactor.strategy
        return {"task": task[:TASK_CHARS], "model": getattr(self.model, "name", "?"),
                "strategy": getattr(strategy, "name", str(strategy)),
                "budget": self.compactor.budget}
