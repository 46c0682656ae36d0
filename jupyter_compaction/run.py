"""One run's record: its live context, its transcript, its events, and its per-run state.

`Run.messages` is the live context, which compactions rewrite; `Run.transcript` is every
message ever sent or received, which nothing rewrites. Everything a run needs to be
continued lives here, not on the agent: the tally of its context's tokens, the usage
anchor, the summarizer's back-off, the loop guard, the compaction circuit breaker, the
results deduplication compares (`dedup.py`), a compaction the model asked for, and
instructions due to be restated.
An agent can therefore make any number of runs, one after the other, and none of them
sees another's state.

`RunRecord` is the record alone (what lesson 8 measures); `Run` adds the per-run state.

Left out: how a run is played (`agent.py`) and how it is stored (`recorder.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .backoff import SummaryBackoff
from .events import Event, Failed, ToolCalled, TurnStarted
from .history import Message, blocks, call_key
from .loop_guard import CompactionBreaker, LoopGuard
from .models.base import Usage
from .strategies import Compaction
from .summaries import is_summary
from .task_state import TaskState
from .tokens import Tally, TokenCounter
from .usage_anchor import UsageAnchor


def part_of(message: Message) -> str:
    """Which stack of the token chart a message belongs to."""
    kinds = [b.get("type") for b in blocks(message)]
    if any(b.get("type") == "text" and is_summary(b["text"]) for b in blocks(message)):
        return "summary"
    return "tool_results" if "tool_result" in kinds else "messages"


@dataclass
class RunRecord:
    """What one run did: its context, transcript, events, usage and answer, and the
    numbers read from them; `transcript` is never compacted."""

    task: str
    messages: list[Message] = field(default_factory=list)
    transcript: list[Message] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    usage: list[Usage] = field(default_factory=list)
    summary_usage: list[Usage] = field(default_factory=list)
    compactions: list[Compaction] = field(default_factory=list)
    answer: str | None = None
    status: str = "running"  # "finished", "unsupported", "failed" or "max_turns"
    error: str | None = None  # one line, or a strategy bug's traceback (see `error_line`)
    session_id: str | None = None
    turn: int = 0
    system: str = ""
    task_state: TaskState | None = None
    scenario: str | None = None
    outcome: str | None = None  # against the truth of its workspace: "correct", "wrong (...)"
    question: str | None = None  # the declared question the task was understood as, restated

    def of(self, kind: type[Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def peak_context(self) -> int:
        return max((e.tokens for e in self.of(TurnStarted)), default=0)

    @property
    def tokens_sent(self) -> int:
        """Input tokens of every call, summary calls and the API's compaction steps
        (`usage.iterations`) included."""
        return sum(u.billed_input for u in self.usage + self.summary_usage)

    @property
    def repeats(self) -> int:
        """Tool calls repeated with the same input: re-reads and repeated lookups."""
        return sum(e.repeat for e in self.of(ToolCalled))

    @property
    def error_line(self) -> str | None:
        """Why the run failed, on one line (`error` may hold a traceback)."""
        failed = self.of(Failed)
        return failed[-1].error if failed else self.error

    @property
    def summary(self) -> str | None:
        return next((c.summary for c in reversed(self.compactions) if c.summary), None)

    def __repr__(self) -> str:
        graded = f", {self.outcome}" if self.outcome else ""
        asked = f"; Question: {self.question}" if self.question else ""
        return (f"<Run {self.status}{graded}: {self.turn} turns, peak {self.peak_context} "
                f"tokens, {len(self.compactions)} compactions, {self.repeats} repeats{asked}>")


@dataclass(repr=False)  # shown as its record
class Run(RunRecord):
    """A run as the agent plays it: the record, and the per-run state the features keep
    while it plays (each taught in its own lesson)."""

    calls_seen: set[tuple[str, str]] = field(default_factory=set, repr=False)
    tally: Tally | None = field(default=None, repr=False)  # running token count of messages
    anchor: UsageAnchor = field(default_factory=UsageAnchor, repr=False)  # reported/local
    backoff: SummaryBackoff = field(default_factory=SummaryBackoff, repr=False)
    loop_guard: LoopGuard = field(default_factory=LoopGuard, repr=False)  # see loop_guard.py
    results_seen: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)  # the
    # newest result of each call, for deduplicating unchanged re-reads (dedup.py)
    breaker: CompactionBreaker = field(default_factory=CompactionBreaker, repr=False)
    restate_due: bool = field(default=False, repr=False)  # instructions to send (restate.py)
    asked: str | None = field(default=None, repr=False)  # the focus of a compaction the
    # model asked for with the `compact` tool (asked_compaction.py), run before its next turn

    def reopen(self) -> None:
        """Ready the run to continue: its tally is rebuilt from the (restored) context on
        the next turn, and the calls it made are read from its transcript."""
        self.tally = None
        self.calls_seen = {call_key(b["name"], b["input"]) for m in self.transcript[:-1]
                           for b in blocks(m) if b.get("type") == "tool_use"}

    def add(self, message: Message) -> None:
        """Add `message` to the live context, its running count and the transcript."""
        self.messages.append(message)
        if self.tally is not None:
            self.tally.append(message)
        self.transcript.append(message)

    def tokens(self, counter: TokenCounter) -> Tally:
        """The running count of the live context's tokens (rebuilt when it was dropped)."""
        if self.tally is None:
            self.tally = Tally(counter, self.messages, part=part_of)
        return self.tally
