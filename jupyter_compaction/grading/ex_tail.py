"""ex4 (lesson 4): `tail_start`, the protected tail sized by a token budget.

The expected index is what `SummarizeMiddle.boundaries()` computes for a head of one
message (`protect_first=1`) and a tail budget of `tail_tokens` (the budget passed is
twice that, since the tail may take at most half of it): the largest tail that starts at
an assistant message and fits, but at least the newest turn, and never before index 1.
Budgets are computed from the case's own token counts, so the boundary cases sit exactly
on a message edge. The teeth: a tail that would start at a user message, a tail that fits
exactly (`<=`, not `<`), a newest turn over budget, a final text-only answer (the newest
turn is one message, not a pair), a history with only the task, and a counter that is not
tiktoken (use the counter you are given).

Left out: the head boundary (`protect_first`), which lesson 4 explains but does not grade.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from ..history import Message, cut_points
from ..strategies import SummarizeMiddle
from ..tokens import TokenCounter
from .base import Advice, Case, Exercise, Shown, Space, Test, call, compare, numbered
from .counters import FIXED_TOKENS, FixedCounter
from .generated import history_builders, seeded_history
from .histories import (
    assistant,
    counter,
    handed,
    random_history,
    reading_history,
    result,
    text,
    use,
    user,
)

HIDDEN_CASES = 8


def expected(messages: list[Message], tokens: TokenCounter, tail_tokens: int) -> int:
    layer = SummarizeMiddle(protect_first=1, tail_tokens=tail_tokens)
    return layer.boundaries(messages, 2 * tail_tokens, tokens)[1]


def tail_of(messages: list[Message], start: int) -> int:
    return counter().count(messages[start:])


def same_as_library(build: Callable[[], list[Message]],
                    budget: Callable[[list[Message]], int],
                    tokens: Callable[[], TokenCounter] = counter) -> Test:
    def test(fn: Callable[..., Any]) -> str | Advice | None:
        messages, tail_tokens = build(), budget(build())
        got = fn(build(), handed(tokens, messages), tail_tokens)
        problem = compare(got, expected(build(), tokens(), tail_tokens),
                          call("tail_start", messages=messages, counter=Shown("counter"),
                               tail_tokens=tail_tokens) + " returned")
        if problem and type(got) is int and 0 < got < len(messages) and (
                messages[got]["role"] == "user"):  # this mistake leads, whatever the case
            return Advice("a tail must start at an assistant message: one that starts at a"
                          f" user message orphans its tool results [{problem}]")
        return problem
    return test


def big() -> list[Message]:
    return reading_history(5, words=120)


def parallel() -> list[Message]:
    bodies = {f"t{n}": f"config {n}: " + " ".join(f"key{n}_{i}=v{i}" for i in range(150))
              for n in (2, 3, 4)}
    return [user("Compare every config."),
            assistant(use("t1", "README.md")), user(result("t1", "Configs live in conf/.")),
            assistant(text("Reading the three configs."),
                      *(use(tid, f"conf/{tid}.ini") for tid in bodies)),
            user(*(result(tid, body) for tid, body in bodies.items())),
            assistant(use("t5", "app.log")), user(result("t5", "ERROR ORD-1042 timeout")),
            assistant("conf/t3.ini sets the timeout that fails ORD-1042.")]


def with_answer() -> list[Message]:
    return [*big(), assistant("Every file defines one handler; s03.py is the router.")]


def exact_two_turns(messages: list[Message]) -> int:
    return tail_of(messages, cut_points(messages)[-2])


def up_to_a_user_message(messages: list[Message]) -> int:
    """Room for everything after the third-newest turn's assistant message, not for it."""
    return tail_of(messages, cut_points(messages)[-3] + 1)


def hidden_case(n: int, rng: random.Random) -> Case:
    """A random history, and a tail budget on, just under or just over a turn's edge."""
    history = random_history(rng, rng.randint(2, 6))
    tokens = FixedCounter if rng.random() < 0.3 else counter
    edges = cut_points(history) or [1]
    edge = tokens().count(history[rng.choice(edges):])
    tail_tokens = max(1, edge + rng.choice((-1, 0, 0, 1, 7)))
    return Case(f"hidden case {n}", f"a random history of {len(history)} messages, "
                f"tail_tokens={tail_tokens}",
                same_as_library(lambda: copy.deepcopy(history), lambda m: tail_tokens, tokens))


CASES = (
    Case("a budget smaller than the newest turn",
         "the newest turn (the last assistant message onward) always stays, even when it"
         " alone is over the budget",
         same_as_library(big, lambda m: 10)),
    Case("a budget larger than everything",
         "when everything fits, the tail starts right after the task: return 1, never 0",
         same_as_library(big, lambda m: 10**6)),
    Case("the tail starts at an assistant message",
         "grow the tail a whole turn at a time, from one assistant message to the one"
         " before, counting each candidate as counter.count(messages[start:]); keep the"
         " longest that fits tail_tokens",
         same_as_library(big, up_to_a_user_message)),
    Case("a tail that fits exactly",
         "a tail of exactly tail_tokens tokens fits (use <=, not <)",
         same_as_library(big, exact_two_turns)),
    Case("only the task and one turn",
         "with a single turn the middle is empty: the tail starts at 1",
         same_as_library(lambda: big()[:3], lambda m: 10)),
    Case("only the task",
         "no assistant message yet: the tail is empty, return len(messages), which is 1",
         same_as_library(lambda: big()[:1], lambda m: 100)),
    Case("parallel calls",
         "count the whole turn, the assistant message and the user message with all its"
         " results, before moving the start back",
         same_as_library(parallel, lambda m: tail_of(m, 5) + tail_of(m, 3) // 2)),
    Case("a final text-only answer",
         "when the last message is an assistant text answer, the newest turn is that one"
         " message (do not assume turns come in pairs from the end)",
         same_as_library(with_answer, lambda m: tail_of(m, len(m) - 1) + 5)),
    Case("uses the counter it is given",
         "count with counter.count(messages[start:]) using the counter you are given, not a"
         " new TokenCounter or a characters/4 estimate",
         same_as_library(lambda: reading_history(5, words=5),
                         lambda m: 3 * FIXED_TOKENS + FIXED_TOKENS // 2, FixedCounter)),
)

def tail_inputs():
    """Random histories, either counter, and tail budgets from 0 to past everything."""
    from hypothesis import strategies as st

    return st.tuples(history_builders(), st.integers(0, 3_000), st.booleans())


def with_budget(build: Callable[[], list[Message]], tail_tokens: int, fixed: bool) -> Test:
    return same_as_library(build, lambda messages: tail_tokens,
                           FixedCounter if fixed else counter)


SPACE = Space(with_budget, tail_inputs, edges=tuple(
    (seeded_history(seed), tail, fixed) for seed in (0, 1) for tail in (0, 1, 10**6)
    for fixed in (False, True)))


EXERCISE = Exercise(
    id="ex4", lesson=4, function="tail_start",
    signature="tail_start(messages, counter, tail_tokens)",
    contract="Return the start index of the largest tail that begins at an assistant message "
             "and whose counter.count(messages[start:]) fits in tail_tokens, but always keep at "
             "least the newest turn (the last assistant message onward); never less than 1.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("SummarizeMiddle", "boundaries"),
    space=SPACE,
)
