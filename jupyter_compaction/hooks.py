"""The loop's hook points: where a feature attaches to a run without the loop knowing it.

The agent (`agent.py`) plays a run as a plain loop. Everything else is a `Feature` that
overrides a few of the methods below: the compactor, the task state and notes, the
memory tool, the compaction the model asks for, the usage line, the join after a server
compaction's pause, what comes back after a compaction, the stop rules and the session
store (`features.py` builds the list from the settings). The loop calls each feature's
method at its point, in the list's order; each method does nothing unless overridden.

| point              | when                                  | a feature may                      |
|--------------------|---------------------------------------|------------------------------------|
| `start`, `resume`  | a run begins, or continues            | set up per-run state               |
| `stored`           | before a run continues                | give its stored context, transcript|
| `tools`, `system`  | a request is built                    | add tools, add to the system prompt|
| `before_request`   | before each call, after measuring     | compact; stop the run (`Stop`)     |
| `after_reply`      | a reply came                          | take it (join it to a paused turn) |
| `before_compaction`| before a compaction shrinks           | give texts to bring back after it  |
| `after_compaction` | after it shrank, before it is live    | give texts to bring back after it  |
| `on_result`        | a tool returned, before the context   | put a stand-in in its place        |
| `after_tools`      | a round of tool results is ready      | add text blocks to it              |
| `after_round`      | the round's results are in            | stop the run (`Stop`): a stop rule |
| `on_message`, `on_event`, `on_compacted` | as they happen | listen (the store writes them) |

Per-run state lives on the `Run`, never on a feature: an agent plays many runs.

Left out: removing a feature from a running agent, and ordering features by priority
(the list's order is the order).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .history import Message
from .models.base import Reply

if TYPE_CHECKING:
    from .events import Event
    from .run import Run
    from .strategies import Compaction


@dataclass(frozen=True)
class Stop:
    """Why a run must stop: one line to show, the `Failed` event's reason, and (for a bug
    in a strategy) the traceback that becomes `run.error`."""

    message: str
    reason: str = "stuck"
    error: str | None = None


class Feature:
    """A part of the agent that attaches at the loop's hook points (see the table above)."""

    def start(self, run: Run) -> None:
        """A run begins, before its task message is added."""

    def stored(self, run: Run) -> tuple[list[Message], list[Message]] | None:
        """The context and transcript the run was stored with (None: not stored here)."""
        return None

    def resume(self, run: Run) -> None:
        """A run continues (`Agent.resume`), from its stored context when there is one."""

    def tools(self, run: Run) -> list[Callable[..., Any]]:
        """Tools to offer the model, after the user's."""
        return []

    def system(self, run: Run) -> str:
        """Text to add to the system prompt ("" adds nothing)."""
        return ""

    def before_request(self, run: Run, schemas: list[dict[str, Any]], overhead: int
                       ) -> Stop | None:
        """Act before the model is called (`overhead`: the system prompt's and tools'
        tokens); a `Stop` ends the run."""
        return None

    def after_reply(self, run: Run, reply: Reply, sent: int) -> bool:
        """A reply to a request counted `sent` tokens came; True when this feature took its
        message into the context itself, so the loop must not add it."""
        return False

    def before_compaction(self, run: Run) -> list[str]:
        """Texts to bring back after the coming compaction, read before it."""
        return []

    def after_compaction(self, run: Run, result: Compaction) -> list[str]:
        """Texts to bring back after `result`, before it becomes the live context."""
        return []

    def on_result(self, run: Run, call: dict[str, Any], result: dict[str, Any]
                  ) -> dict[str, Any]:
        """The `tool_result` block of `call` as the context gets it: `result`, or a
        stand-in for it (a preview, a note that it is unchanged)."""
        return result

    def after_tools(self, run: Run, results: list[dict[str, Any]],
                    schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Blocks to add after a round of tool results."""
        return []

    def after_round(self, run: Run) -> Stop | None:
        """A round of calls and results is in the context; a `Stop` ends the run."""
        return None

    def on_message(self, run: Run, message: Message) -> None:
        """A message was added (the reply as the model sent it, even when joined)."""

    def on_event(self, run: Run, event: Event) -> None:
        """An event was emitted."""

    def on_compacted(self, run: Run) -> None:
        """A compaction became the live context."""
