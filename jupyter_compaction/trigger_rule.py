"""A function as the agent's trigger: a learner's `needs_compaction` (lesson 1) in the loop.

`TriggerRule(function)` wraps `function(counter, messages, system, tools, budget, trigger)`,
which returns True when the request should be compacted, so that the compactor
(`compactor.py`) asks it before each request in place of its own test (the request over
`trigger * budget`, read in the API's count through the usage anchor). The setting is
`trigger_rule` (`runner.play("agents", trigger_rule=needs_compaction)`).

What the adapter adds around the call, step by step:

1. check the shape once, when it is made: the function must accept the six arguments
   positionally; anything else is a one-line `TypeError`;
2. pass a deep copy of the messages, so a function that edits them cannot change the
   agent's transcript;
3. accept only `True` or `False` as its answer;
4. attribute every failure to the function: an exception it raises, or another answer,
   becomes a `FunctionFailed` with the function's own frames, which ends the run with
   that traceback in `run.error` and the transcript kept (`rules.strategy_bug`).

Left out: the usage anchor (the function counts with the counter it is given, locally),
and how far to compact (the settings' `target` still decides that).
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .history import Message
from .strategies.function import FunctionFailed, function_name, own_frames
from .tokens import TokenCounter

SHAPE = "(counter, messages, system, tools, budget, trigger) -> bool"


@dataclass(frozen=True)
class TriggerRule:
    """A function `SHAPE` asked, before each request, whether to compact."""

    function: Callable[..., Any]
    name: str = field(default="")

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", self.name or function_name(self.function))
        self._check_shape()  # 1.

    def _check_shape(self) -> None:
        if not callable(self.function):
            raise TypeError(f"{self.name} is not a function; a trigger rule is {SHAPE}")
        try:
            inspect.signature(self.function).bind(*[None] * 6)
        except TypeError:
            raise TypeError(f"{self.name}{inspect.signature(self.function)} does not take a "
                            f"trigger rule's arguments: it must take {SHAPE}") from None
        except ValueError:  # a builtin without a signature: try it as it is
            pass

    def __call__(self, counter: TokenCounter, messages: Sequence[Message], system: str | None,
                 tools: list[dict[str, Any]], budget: int, trigger: float) -> bool:
        try:
            answer = self.function(counter, copy.deepcopy(list(messages)), system,  # 2.
                                   copy.deepcopy(tools), budget, trigger)
        except Exception as exc:  # 4. the function's own error, with its own frames
            raise FunctionFailed(self.name, f"raised {type(exc).__name__}: {exc}",
                                 own_frames(exc)) from exc
        if not isinstance(answer, bool):  # 3.
            raise FunctionFailed(self.name, f"returned {type(answer).__name__}, not True or "
                                 "False", f"a trigger rule is {SHAPE}")
        return answer
