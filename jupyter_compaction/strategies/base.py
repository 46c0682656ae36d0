"""What every strategy returns, the stuck rule, and the do-nothing strategy.

A strategy is any callable object with a `name` (usually a small frozen dataclass
whose fields are its knobs; the `Strategy` protocol); it may also have a `summarizer`,
a summary `role`, a summary `focus` and `layers` of other strategies, which
`configure()` fills in. Calling it as `strategy(messages, goal=..., counter=...)`
returns a `Compaction`: a *new* list of messages plus a record of what was done.
`goal` is the tokens the messages must fit (inside an agent: the target less the system
prompt and tools), not the agent's whole budget. Every strategy checks its input first
(`measure()`: a valid history, a counter that counts). The input is never mutated;
unchanged messages are shared between input and output, which is safe because messages
are treated as values (see `tokens.py`). That is what lets a lesson run two strategies on the same
history side by side, and what lets the agent keep every original in its transcript.

Left out: the decision *when* to compact (the agent's trigger) and who summarizes (the
agent passes its summarizer and summary role to `configure()`).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..history import Message, validate
from ..tokens import TokenCounter

STUCK_RATIO = 0.10  # a compaction must shrink the context by at least 10 % ...
# ... unless it already fits its budget.
COUNTER_METHODS = ("count", "count_message", "count_text")  # what a counter must have

Summarizer = Callable[[str], str]


class CompressionStuck(RuntimeError):
    """A compaction left the context over budget and freed less than `STUCK_RATIO`."""

    def __init__(self, kind: str, before: int, after: int, budget: int):
        self.kind, self.before, self.after, self.budget = kind, before, after, budget
        super().__init__(
            f"compaction '{kind}' is stuck: {before} -> {after} tokens, still over the budget "
            f"of {budget}; raise the budget or pick a stronger strategy"
        )


@dataclass
class Compaction:
    """The outcome of one strategy call."""

    kind: str
    messages: list[Message]
    tokens_before: int
    tokens_after: int
    cleared: list[str] = field(default_factory=list)  # tool_use ids whose results were cleared
    dropped: int = 0  # input messages removed or folded into a summary
    summary_prompt: str | None = None
    summary: str | None = None
    note: str = ""  # why nothing happened, or what happened instead
    layers: list[Compaction] = field(default_factory=list)  # what each layer did (progressive)
    iterations: list[dict] = field(default_factory=list)  # a server summary's usage steps

    @property
    def saved(self) -> int:
        return self.tokens_before - self.tokens_after

    @property
    def changed(self) -> bool:
        return self.saved != 0 or self.dropped > 0 or bool(self.cleared)


def unchanged(kind: str, messages: Sequence[Message], tokens: int, note: str) -> Compaction:
    return Compaction(kind, list(messages), tokens, tokens, note=note)


def shrunk(kind: str, messages, before: int, out: list[Message], counter: TokenCounter,
           **record) -> Compaction:
    """The compaction to `out`, unless `out` is no smaller (a summary longer than what it
    replaces): then the input is kept and the note says why."""
    after = counter.count(out)
    if after >= before:
        return unchanged(kind, messages, before,
                         f"result ({after} tokens) is not smaller than the input ({before});"
                         " history unchanged")
    return Compaction(kind, out, before, after, **record)


def check_stuck(compaction: Compaction, budget: int) -> Compaction:
    """Raise `CompressionStuck` if the result is over `budget` and shrank by < 10 %."""
    before, after = compaction.tokens_before, compaction.tokens_after
    if after > budget and before - after < STUCK_RATIO * before:
        raise CompressionStuck(compaction.kind, before, after, budget)
    return compaction


class Strategy(Protocol):
    """What the agent, the magics and the lessons call: `strategy(messages, goal=...,
    counter=...)` returns a `Compaction`."""

    name: str

    def __call__(self, messages: Sequence[Message], *, goal: int,
                 counter: TokenCounter) -> Compaction: ...


def check_counter(counter: Any) -> TokenCounter:
    """`counter` if it counts like a `TokenCounter`, else a one-line `TypeError`."""
    missing = [name for name in COUNTER_METHODS if not callable(getattr(counter, name, None))]
    if missing:
        raise TypeError(f"counter must be a TokenCounter (or have count(), count_message() "
                        f"and count_text()); {type(counter).__name__} has no "
                        f"{', '.join(m + '()' for m in missing)}")
    return counter


def configure(strategy: Strategy, *, summarizer: Summarizer | None = None,
              role: str | None = None, focus: str | None = None) -> Strategy:
    """A copy of `strategy` and of its layers, with `summarizer` where a strategy has an
    empty `summarizer` slot, `role` where it has a `role` and `focus` where it has a
    `focus`; the original is unchanged.

    It reads only the protocol's optional attributes (`summarizer`, `role`, `focus`,
    `layers`), so it works for a dataclass and for a plain class alike; an object with
    none of them is returned as it is.
    """
    changes: dict[str, object] = {}
    if summarizer is not None and getattr(strategy, "summarizer", False) is None:
        changes["summarizer"] = summarizer
    for name, value in (("role", role), ("focus", focus)):
        if value is not None and hasattr(strategy, name):
            changes[name] = value
    if hasattr(strategy, "layers"):
        layers = tuple(configure(layer, summarizer=summarizer, role=role, focus=focus)
                       for layer in strategy.layers)
        if any(new is not old for new, old in zip(layers, strategy.layers, strict=True)):
            changes["layers"] = layers
    return _replaced(strategy, changes) if changes else strategy


def _replaced(strategy: Strategy, changes: dict[str, object]) -> Strategy:
    if dataclasses.is_dataclass(strategy):
        return dataclasses.replace(strategy, **changes)
    copied = copy.copy(strategy)
    for name, value in changes.items():
        object.__setattr__(copied, name, value)
    return copied


def require_summarizer(strategy: Any) -> Summarizer:
    if strategy.summarizer is None:
        raise ValueError(
            f"{type(strategy).__name__} needs a summarizer: pass summarizer=<callable str->str>"
            " or run it inside an Agent, which binds one"
        )
    return strategy.summarizer


def measure(messages: Sequence[Message], counter: TokenCounter) -> int:
    """Check the input (a valid history, a counter that counts) and count it: the first
    line of every strategy."""
    check_counter(counter)
    validate(messages)
    return counter.count(messages)


@dataclass(frozen=True)
class NoCompaction:
    """`off`: never compact. The baseline that shows the context growing past the budget.
    The agent recognises it by its type: it never calls it."""

    name: str = "off"

    def __call__(self, messages: Sequence[Message], *, goal: int,
                 counter: TokenCounter) -> Compaction:
        return unchanged(self.name, messages, measure(messages, counter), "compaction is off")
