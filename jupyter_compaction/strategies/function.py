"""A plain function as a compaction strategy: the learner's code in the agent's loop.

`FunctionStrategy(function)` wraps a function `function(messages, goal, counter)` that
returns the new list of messages (or a `Compaction`) into a `Strategy`, so that an agent,
`%%agent --strategy NAME` or `%compact --strategy NAME` can run it. A function that also
takes a parameter named `summarize` gets the agent's summarizer there (a callable
prompt -> summary), as a summarizing strategy does (`configure()` fills the slot).

What the adapter adds around the call, step by step:

1. check the shape once, when it is made (`check_shape`): the function must accept the
   three arguments positionally; anything else is a one-line `TypeError`;
2. pass a deep copy of the messages, so a function that edits them in place (a common
   first attempt) cannot change the agent's transcript, which shares them;
3. turn what it returns into a `Compaction`: a `Compaction` as it is, a list of
   messages checked as a history (`validate`) and counted; the input is kept when the
   result is no smaller (`shrunk`);
4. attribute every failure to the function: an exception it raises (but
   `CompressionStuck`, which a strategy raises to say it is stuck, and what the
   summarizer raised, a failed summary call the agent answers by trimming), or a result
   that is not a valid history, becomes a `FunctionFailed` whose message names the function and
   whose `details` hold the traceback of the function's own frames only. The agent ends
   the run with that traceback in `run.error` (`rules.strategy_bug`) and keeps the
   transcript.

Left out: async functions, and knobs (the function's own defaults are its knobs; bind
others with `functools.partial` or a small wrapper function).
"""

from __future__ import annotations

import copy
import inspect
import re
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..history import InvalidHistory, Message, blocks, validate
from ..tokens import TokenCounter
from .base import (
    Compaction,
    CompressionStuck,
    Summarizer,
    measure,
    require_summarizer,
    shrunk,
)

SUMMARIZE = "summarize"  # the parameter that receives the agent's summarizer
SHAPE = "(messages, goal, counter) -> messages"


class FunctionFailed(RuntimeError):
    """The wrapped function raised, or returned something that is not a history:
    `details` is the traceback of the function's own frames (or the reason)."""

    def __init__(self, name: str, message: str, details: str):
        self.function, self.details = name, details
        super().__init__(f"your function {name}() {message}")


def failed_function(line: str | None) -> str | None:
    """The name of the function a `FunctionFailed` message (a run's error line) blames."""
    found = re.match(r"your function (\w+)\(\)", line or "")
    return found[1] if found else None


def function_name(function: Callable[..., Any]) -> str:
    return getattr(function, "__name__", None) or type(function).__name__


def check_shape(function: Any, name: str | None = None) -> bool:
    """Whether `function` takes the strategy's arguments, `(messages, goal, counter)`;
    a one-line `TypeError` says what it takes instead. Returns whether it also takes
    `summarize`."""
    label = name or (function_name(function) if callable(function) else repr(function))
    if not callable(function):
        raise TypeError(f"{label} is not a function; a strategy function is {SHAPE}")
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin without a signature: try it as it is
        return False
    wants = SUMMARIZE in signature.parameters
    try:
        signature.bind(None, None, None, **({SUMMARIZE: None} if wants else {}))
    except TypeError:
        raise TypeError(f"{label}{signature} does not have a strategy's shape: it must take "
                        f"{SHAPE}") from None
    return wants


def own_frames(error: BaseException) -> str:
    """`error`'s traceback without its first frame (the adapter's call)."""
    tb = error.__traceback__
    return "".join(traceback.format_exception(type(error), error, tb.tb_next if tb else None))


def cleared_ids(before: Sequence[Message], after: Sequence[Message]) -> list[str]:
    """The ids of the tool results whose content changed from `before` to `after`."""
    old = {b["tool_use_id"]: b.get("content") for m in before for b in blocks(m)
           if b.get("type") == "tool_result"}
    return [b["tool_use_id"] for m in after for b in blocks(m)
            if b.get("type") == "tool_result" and b["tool_use_id"] in old
            and b.get("content") != old[b["tool_use_id"]]]


@dataclass(frozen=True)
class FunctionStrategy:
    """A function `(messages, goal, counter) -> messages` as a `Strategy` named after it."""

    function: Callable[..., Any]
    name: str = ""
    summarizer: Summarizer | None = None  # passed as `summarize=` when the function takes it
    takes_summarize: bool = field(init=False, default=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.name or function_name(self.function))
        object.__setattr__(self, "takes_summarize", check_shape(self.function, self.name))  # 1.

    def __call__(self, messages: Sequence[Message], *, goal: int,
                 counter: TokenCounter) -> Compaction:
        before = measure(messages, counter)
        passed: list[BaseException] = []  # the summarizer's own failures, the agent's to handle
        extra = {SUMMARIZE: self._summarize(passed)} if self.takes_summarize else {}
        try:
            out = self.function(copy.deepcopy(list(messages)), goal, counter, **extra)  # 2.
        except CompressionStuck:  # the strategy's own word that it is stuck
            raise
        except Exception as exc:  # 4. the function's own error, with its own frames
            if any(exc is failure for failure in passed):
                raise  # a failed summary call: the agent trims instead
            raise FunctionFailed(self.name, f"raised {type(exc).__name__}: {exc}",
                                 own_frames(exc)) from exc
        if isinstance(out, Compaction):  # 3.
            return out
        out = self._history(out)
        return shrunk(self.name, messages, before, out, counter,
                      cleared=cleared_ids(messages, out),
                      dropped=max(0, len(messages) - len(out)))

    def _summarize(self, failures: list[BaseException]) -> Summarizer:
        """The summarizer, noting in `failures` what it raises (none bound: a one-line
        `ValueError` says how to bind one)."""
        summarizer = require_summarizer(self)

        def summarize(prompt: str) -> str:
            try:
                return summarizer(prompt)
            except Exception as exc:
                failures.append(exc)
                raise
        return summarize

    def _history(self, out: Any) -> list[Message]:
        """`out` if it is a valid history, else a `FunctionFailed` saying why not."""
        if not isinstance(out, list):
            raise FunctionFailed(self.name, f"returned {type(out).__name__}, not a list of "
                                 "messages", f"a strategy function is {SHAPE}")
        try:
            validate(out)
        except InvalidHistory as exc:
            raise FunctionFailed(self.name, f"returned an invalid history: {exc}",
                                 str(exc)) from exc
        return out
