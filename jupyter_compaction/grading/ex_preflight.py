"""ex5d (lesson 5): `preflight`, what the agent does before a call it has not sent (C10).

A resumed history, handed to an agent with a smaller budget, must be checked before the
first call. The learner returns the agent's decision for the request it is about to send:
`("send", None)` when the whole request is within `trigger * budget`; `("compact", goal)`
when it is over, where `goal` is what the messages may keep, `int(target * budget)` less
the system prompt and tool definitions (never below 0); `("stuck", None)` when the system
prompt and tools alone fill the budget, so no compaction of the messages can help.

The expected decision is read from the library's own `Agent`: it resumes the history
with a strategy that records the goal it is asked for (and then stops the run) and a
model that refuses every call, so the run's events say whether it compacted, stopped as
stuck, or went on to call the model. The teeth: the system prompt and tools count
against the trigger, exactly at the trigger (send), the goal less the system prompt and
tools, `int()` of a fractional target, a goal that would be negative, a budget the
system prompt and tools fill exactly (stuck), the trigger and target arguments, and a
counter that is not tiktoken.

Left out: running the compaction (lessons 2 to 5) and the API's own refusal when a
request is too long (the agent compacts harder and retries once; `agent.py`).
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..agent import Agent, Run
from ..events import Failed
from ..history import Message
from ..settings import DEFAULTS
from ..strategies import CompressionStuck
from ..tokens import TokenCounter
from ..tools import Toolbox
from .base import Case, Exercise, Shown, Space, Test, call, numbered, short
from .counters import FixedCounter
from .generated import history_builders
from .histories import counter, handed, random_history, reading_history

TRIGGER, TARGET = DEFAULTS.trigger, DEFAULTS.target
HIDDEN_CASES = 8
SYSTEM = "You are a careful coding agent. Read files before you answer. " * 20


def read_file(path: str) -> str:
    """Read a UTF-8 text file of the workspace and return its text, with the line endings
    turned into newlines; a file over the size limit is refused with a short message."""
    return path


def grep(pattern: str, path: str = ".") -> str:
    """Search the files under a folder of the workspace for a regular expression and
    return the matching lines, each with its file name and line number."""
    return pattern


def write_file(path: str, text: str) -> str:
    """Write a UTF-8 text file in the workspace, creating its folders when needed."""
    return path


TOOL_FUNCTIONS = (read_file, grep, write_file)
TOOLS = Toolbox(TOOL_FUNCTIONS).schemas


@dataclass
class GoalRecorder:
    """A strategy that only records the goal the agent asks for, then stops the run."""

    goals: list[int] = field(default_factory=list)
    name: str = "record"

    def __call__(self, messages, *, goal: int, counter: TokenCounter):
        self.goals.append(goal)
        raise CompressionStuck(self.name, 0, 0, goal)


class Unsent:
    """A model that refuses every call: the agent reaching it means it would send."""

    name = "unsent"

    def create(self, **request: Any) -> Any:
        raise RuntimeError("the grader's model is never called")


def expected(tokens: TokenCounter, messages: list[Message], system: str, with_tools: bool,
             budget: int, trigger: float, target: float) -> tuple[str, int | None]:
    recorder = GoalRecorder()
    agent = Agent(Unsent(), tools=TOOL_FUNCTIONS if with_tools else (), system=system,
                  budget=budget, trigger=trigger, target=target, strategy=recorder,
                  task_state=False, counter=tokens)
    run = agent.resume(Run(task="preflight", messages=list(messages),
                           transcript=list(messages)), max_turns=1)
    if recorder.goals:
        return "compact", recorder.goals[0]
    if any(e.reason == "stuck" for e in run.of(Failed)):
        return "stuck", None
    return "send", None


def decision_problem(got: Any, want: tuple[str, int | None]) -> str | None:
    if (isinstance(got, tuple) and len(got) == 2 and got[0] == want[0]
            and got[1] == want[1] and type(got[1]) is type(want[1])):
        return None
    return f"returned {short(got)}, expected {want!r}"


def same_as_agent(messages: list[Message], system: str, with_tools: bool,
                  budget: Callable[[int, int], int], trigger: float = TRIGGER,
                  target: float = TARGET, tokens: Callable[[], TokenCounter] = counter) -> Test:
    """`budget(request, overhead)` picks the budget from the request's own size and that of
    its system prompt and tools, so the edges are exact."""
    def test(fn: Callable[..., Any]) -> str | None:
        tools = TOOLS if with_tools else None
        overhead = tokens().count([], system, tools)
        limit = budget(tokens().count(messages, system, tools), overhead)
        want = expected(tokens(), messages, system, with_tools, limit, trigger, target)
        got = fn(handed(tokens, messages, system, tools), copy.deepcopy(messages), system,
                 copy.deepcopy(tools), limit, trigger, target)  # copies: TOOLS stays as is
        problem = decision_problem(got, want)
        return problem and (call("preflight", counter=Shown("counter"), messages=messages,
                                 system=system, tools=tools, budget=limit, trigger=trigger,
                                 target=target) + f" {problem}")
    return test


def at_trigger(request: int, trigger: float) -> int:
    """A budget whose trigger line is `request` tokens: exactly, where one exists, else
    the budget whose line rounds down to it."""
    near = range(math.floor(request / trigger) - 2, math.ceil(request / trigger) + 3)
    return next((b for b in near if trigger * b == request),
                next(b for b in near if int(trigger * b) == request))


def fractional(request: int, trigger: float, target: float) -> int:
    """A budget the request is over, where `target * budget` ends in .6 or more, so
    round() and int() disagree."""
    return next(b for b in range(int(request / trigger) - 1, 0, -1)
                if (target * b) % 1 >= 0.6)


HISTORY = reading_history(6)
CASES = (
    Case("a request that fits is sent", "within trigger * budget: return ('send', None)",
         same_as_agent(HISTORY, SYSTEM, True, lambda request, overhead: request * 2)),
    Case("over the trigger: compact first",
         "over trigger * budget: return ('compact', goal), goal = int(target * budget) minus"
         " the tokens of the system prompt and tools (counter.count([], system, tools))",
         same_as_agent(HISTORY, SYSTEM, True, lambda request, overhead: int(request / 0.9))),
    Case("the system prompt and tools count against the trigger",
         "measure the whole request, counter.count(messages, system, tools): here the"
         " messages alone fit, the request does not",
         same_as_agent(HISTORY, SYSTEM, True, lambda request, overhead: int(
             (request - overhead // 2) / TRIGGER))),
    Case("exactly at the trigger is sent",
         "a request of exactly trigger * budget tokens still fits: compare with >, not >=",
         same_as_agent(HISTORY, SYSTEM, False, lambda request, overhead: at_trigger(
             request, TRIGGER), tokens=FixedCounter)),
    Case("the goal is a whole number of tokens",
         "goal = int(target * budget) - overhead: int() drops the fraction (not round())",
         same_as_agent(HISTORY, SYSTEM, True, lambda request, overhead: fractional(
             request, TRIGGER, 0.45), target=0.45)),
    Case("the goal is never below 0",
         "when the system prompt and tools take more than target * budget, the messages may"
         " keep 0 tokens: max(0, ...)",
         same_as_agent(HISTORY, SYSTEM, True, lambda request, overhead: overhead + 1)),
    Case("system prompt and tools fill the budget: stuck",
         "when counter.count([], system, tools) >= budget no compaction of the messages can"
         " help: return ('stuck', None)",
         same_as_agent(HISTORY, SYSTEM, True, lambda request, overhead: overhead)),
    Case("uses the trigger and target arguments",
         "compare with the trigger you are given and aim at the target you are given",
         same_as_agent(HISTORY, SYSTEM, True, lambda request, overhead: int(request / 0.6),
                       trigger=0.5, target=0.3)),
    Case("uses the counter it is given",
         "count with the counter you are given (here every message costs the same)",
         same_as_agent(reading_history(3), "", False, lambda request, overhead: int(
             request / 0.9), tokens=FixedCounter)),
)


def hidden_case(n: int, rng: random.Random) -> Case:
    history = random_history(rng, turns=rng.randint(1, 8))
    if history[-1]["role"] == "assistant":
        history = history[:-1]  # the request about to be sent ends with the user
    system = rng.choice(("", SYSTEM, SYSTEM[: rng.randint(10, 600)]))
    with_tools = rng.random() < 0.7
    trigger = rng.choice((0.6, TRIGGER, 0.9, 1.0))
    target = rng.choice((0.3, 0.45, TARGET))
    tokens = FixedCounter if rng.random() < 0.2 else counter
    kind = rng.choice(("fits", "over", "edge", "overhead"))
    nudge = rng.choice((-1, 0, 1))
    scale = rng.uniform(1.05, 2) if kind == "fits" else rng.uniform(0.5, 0.97)

    def budget(request: int, overhead: int) -> int:
        if kind in ("fits", "over"):
            return max(1, int(request / trigger * scale))
        if kind == "edge":
            return max(1, at_trigger(request, trigger) + nudge)
        return max(1, overhead + nudge)

    return Case(f"hidden case {n}", f"a random request of {len(history)} messages, trigger="
                f"{trigger}, target={target}",
                same_as_agent(history, system, with_tools, budget, trigger, target, tokens))



def preflight_inputs():
    """Random requests ending with the user, with or without a system prompt and tools;
    fractional triggers and targets; budgets on the trigger line (plus or minus one), at
    the system prompt and tools' own size, or where `target * budget` is fractional."""
    from hypothesis import strategies as st

    return st.tuples(history_builders(), st.sampled_from(("", SYSTEM)), st.booleans(),
                     st.sampled_from((0.6, 0.75, TRIGGER, 0.9, 1.0)),
                     st.sampled_from((0.3, 1 / 3, 0.45, TARGET)),
                     st.sampled_from(("edge", "overhead", "fractional")), st.integers(-1, 1),
                     st.booleans())


def drawn(build: Callable[[], list[Message]], system: str, with_tools: bool, trigger: float,
          target: float, kind: str, nudge: int, fixed: bool) -> Test:
    messages = build()
    if messages[-1]["role"] == "assistant":
        messages = messages[:-1]  # the request about to be sent ends with the user

    def budget(request: int, overhead: int) -> int:
        if kind == "edge":
            return max(1, at_trigger(request, trigger) + nudge)
        if kind == "overhead":
            return max(1, overhead + nudge)
        if (target * 10) % 5:  # a target * budget that can end in .6 or more
            return fractional(request, trigger, target)
        return max(1, at_trigger(request, trigger) + nudge)
    return same_as_agent(messages, system, with_tools, budget, trigger, target,
                         FixedCounter if fixed else counter)


SPACE = Space(drawn, preflight_inputs, edges=tuple(
    (lambda: reading_history(2), SYSTEM, True, trigger, target, kind, 0, False)
    for trigger, target in ((TRIGGER, TARGET), (0.75, 1 / 3))
    for kind in ("edge", "overhead", "fractional")))


EXERCISE = Exercise(
    id="ex5d", lesson=5, function="preflight",
    signature="preflight(counter, messages, system, tools, budget, trigger=0.8, target=0.5)",
    contract="Before sending, measure the whole request (counter.count(messages, system, "
             "tools)). Return ('stuck', None) when the system prompt and tools alone take the "
             "budget or more; ('send', None) when the request is within trigger * budget; "
             "else ('compact', max(0, int(target * budget) - tokens of system and tools)).",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("Agent",),
    space=SPACE,
)
