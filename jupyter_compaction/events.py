"""The events an agent run emits, as it happens: the only way out of the loop.

Data flows one way. The loop creates these small records and hands each one to every
listener (`on_event`); the live chart, the terminal demo, the session store and the
benchmarks are all just listeners. None of them reaches into the loop.

Left out: timing information (runs are deterministic; wall-clock time would make lesson
outputs differ between runs).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from .models.base import Usage


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = "event"
    turn: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


@dataclass(frozen=True)
class TurnStarted(Event):
    """A turn is about to call the model; `tokens` is the request size (after compaction),
    counted locally; `anchored` is what the trigger read: the same size in the API's
    own count, as far as the reports so far tell."""

    kind: ClassVar[str] = "turn_started"
    tokens: int
    budget: int
    trigger_at: int
    parts: dict[str, int] = field(default_factory=dict)  # system, messages, tool_results, summary
    target_at: int = 0  # the request size compaction aims for (0: not known)
    anchored: int = 0  # `tokens` scaled by the run's reported/local ratio (0: not known)
    reported_before: int = 0  # the API's count of the last request it reported (0: none
    # yet); over `trigger_at` with no compaction since, it compacts (`usage_anchor.py`)


@dataclass(frozen=True)
class Compacted(Event):
    """The live context was rewritten. `tokens_before`/`tokens_after` count the *messages*
    only; the system prompt and tools (in `TurnStarted.tokens`) are not compacted."""

    kind: ClassVar[str] = "compacted"
    strategy: str
    tokens_before: int
    tokens_after: int
    cleared: int = 0
    dropped: int = 0
    dropped_facts: tuple[str, ...] = ()
    summary_prompt: str | None = None
    summary: str | None = None
    note: str = ""
    summary_usage: Usage | None = None
    # each step of a pipeline (`progressive`: clear, summarize, trim) that ran, in order:
    # its kind and the message tokens before and after it
    steps: tuple[tuple[str, int, int], ...] = ()


@dataclass(frozen=True)
class ModelReplied(Event):
    kind: ClassVar[str] = "model_replied"
    usage: Usage
    stop_reason: str
    text: str = ""
    tool_calls: int = 0


@dataclass(frozen=True)
class ToolCalled(Event):
    kind: ClassVar[str] = "tool_called"
    name: str
    input: dict[str, Any]
    id: str
    repeat: bool = False  # the same call (name and input) was made earlier in this run
    # (a `compact` call never is: asking for a compaction again is a new request)


@dataclass(frozen=True)
class ToolReturned(Event):
    kind: ClassVar[str] = "tool_returned"
    name: str
    id: str
    is_error: bool
    tokens: int
    truncated: bool = False


@dataclass(frozen=True)
class Finished(Event):
    kind: ClassVar[str] = "finished"
    answer: str
    reason: str = "end_turn"  # or "max_turns"


@dataclass(frozen=True)
class Failed(Event):
    kind: ClassVar[str] = "failed"
    error: str  # one line, safe to show
    reason: str = "model"  # "model", "stuck", "strategy" (a bug in it) or "interrupted"
