"""ex1 (lesson 1): `needs_compaction`, measure the whole request before sending it (C1).

The expected answer is the agent's own trigger test: the request as `TokenCounter.count`
measures it (system prompt, tool definitions and messages) is over `trigger * budget`.
The teeth: a system prompt or tool definitions that alone push the request over, exactly
at the trigger (not over: `>`, not `>=`), over the trigger but under the budget
(compaction starts *before* the window is full), the trigger argument, a counter that is
not tiktoken, and no system prompt or tools at all.

Left out: what to do when compaction is needed (lessons 2 to 5).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from ..history import Message
from ..settings import DEFAULTS
from ..tokens import TokenCounter
from .base import Case, Exercise, Shown, Space, Test, call, compare, numbered
from .counters import FIXED_TOKENS, FixedCounter
from .generated import history_builders
from .histories import counter, handed, random_history, reading_history

TRIGGER = DEFAULTS.trigger
HIDDEN_CASES = 8
SYSTEM = "You are a careful coding agent. Read files before you answer. " * 20
TOOLS = [{"name": name, "description": f"{name.replace('_', ' ')} in the workspace. " * 8,
          "input_schema": {"type": "object", "properties": {"path": {"type": "string"}},
                           "required": ["path"]}}
         for name in ("read_file", "list_dir", "grep", "write_file")]


def expected(tokens: TokenCounter, messages: list[Message], system: str | None,
             tools: list[dict] | None, budget: int, trigger: float) -> bool:
    return tokens.count(messages, system, tools) > trigger * budget


def same_as_agent(messages: list[Message], system: str | None, tools: list[dict] | None,
                  budget: Callable[[int], int], trigger: float = TRIGGER,
                  tokens: Callable[[], TokenCounter] = counter) -> Test:
    """`budget` turns the request's own size into the budget, so edges are exact."""
    def test(fn: Callable[..., Any]) -> str | None:
        limit = budget(tokens().count(messages, system, tools))
        want = expected(tokens(), messages, system, tools, limit, trigger)  # before the call
        got = fn(handed(tokens, messages, system, tools), copy.deepcopy(messages), system,
                 copy.deepcopy(tools), limit, trigger)
        shown = call("needs_compaction", counter=Shown("counter"), messages=messages,
                     system=system, tools=tools, budget=limit, trigger=trigger)
        return compare(got, want, f"{shown} returned")
    return test


def messages_only(build: Callable[[], list[Message]], system: str | None,
                  tools: list[dict] | None) -> Callable[[int], int]:
    """A budget the messages alone fit under the trigger, the whole request does not."""
    def budget(total: int) -> int:
        alone = counter().count(build())
        return int((alone + total) / 2 / TRIGGER)
    return budget


SMALL = reading_history(2)
CASES = (
    Case("a small request fits", "well under trigger * budget: return False",
         same_as_agent(SMALL, SYSTEM, TOOLS, lambda total: 100_000)),
    Case("over the trigger, under the budget",
         "compaction starts at trigger * budget (80 % by default), before the window is full",
         same_as_agent(SMALL, SYSTEM, TOOLS, lambda total: int(total / 0.9))),
    Case("the system prompt counts",
         "measure the whole request: counter.count(messages, system, tools), not the messages"
         " alone",
         same_as_agent(SMALL, SYSTEM, None, messages_only(lambda: SMALL, SYSTEM, None))),
    Case("the tool definitions count",
         "the tool definitions are sent with every request: count them too",
         same_as_agent(SMALL, None, TOOLS, messages_only(lambda: SMALL, None, TOOLS))),
    Case("exactly at the trigger",
         "a request of exactly trigger * budget tokens still fits: compare with >, not >=",
         same_as_agent(reading_history(1), SYSTEM, TOOLS, lambda total: total * 5 // 4,
                       tokens=FixedCounter)),
    Case("uses the trigger argument",
         "compare with the trigger you are given, not with 0.8",
         same_as_agent(SMALL, SYSTEM, TOOLS, lambda total: int(total / 0.6), trigger=0.5)),
    Case("uses the counter it is given",
         f"count with the counter you are given (here every message costs {FIXED_TOKENS})",
         same_as_agent(reading_history(3), None, None, lambda total: 800, tokens=FixedCounter)),
    Case("no system prompt and no tools",
         "system and tools may be None: count the messages alone",
         same_as_agent(SMALL, None, None, lambda total: total)),
)


def hidden_case(n: int, rng: random.Random) -> Case:
    history = random_history(rng)
    system = rng.choice((None, "", SYSTEM, SYSTEM[: rng.randint(10, 400)]))
    tools = rng.choice((None, [], TOOLS, TOOLS[:2]))
    trigger = rng.choice((0.5, TRIGGER, 0.9, 1.0))
    tokens = FixedCounter if rng.random() < 0.3 else counter
    nudge = rng.choice((-1, 0, 1, 0.7, 1.3))
    if isinstance(nudge, float):
        budget = lambda total: max(1, int(total / trigger * nudge))  # noqa: E731
    else:
        budget = lambda total: max(1, round(total / trigger) + nudge)  # noqa: E731
    return Case(f"hidden case {n}", f"a random request of {len(history)} messages, trigger="
                f"{trigger}", same_as_agent(history, system, tools, budget, trigger, tokens))


def trigger_inputs():
    """Random requests with or without a system prompt and tools, fractional triggers, and
    budgets that put the trigger line on, just under or just over the request's size."""
    from hypothesis import strategies as st

    trigger = st.sampled_from((0.5, TRIGGER, 0.75, 0.85, 0.9, 1.0, 1 / 3))
    return st.tuples(history_builders(), st.sampled_from((None, "", SYSTEM)),
                     st.sampled_from((None, [], TOOLS)), trigger, st.integers(-2, 2),
                     st.booleans())


def at_line(build: Callable[[], list[Message]], system: str | None, tools: list[dict] | None,
            trigger: float, nudge: int, fixed: bool) -> Test:
    def budget(total: int) -> int:
        return max(1, int(total / trigger) + nudge)
    return same_as_agent(build(), system, tools, budget, trigger,
                         FixedCounter if fixed else counter)


SPACE = Space(at_line, trigger_inputs, edges=tuple(
    (lambda: reading_history(2), SYSTEM, TOOLS, trigger, nudge, fixed)
    for trigger in (TRIGGER, 1 / 3) for nudge in (-1, 0, 1) for fixed in (False, True)))


EXERCISE = Exercise(
    id="ex1", lesson=1, function="needs_compaction",
    signature="needs_compaction(counter, messages, system, tools, budget, trigger=0.8)",
    contract="Return True when the whole request (system prompt, tool definitions and "
             "messages, as counter.count(messages, system, tools) measures it) is over "
             "trigger * budget.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("Agent", "Tally"),
    space=SPACE,
)
