"""ex5 (lesson 5): `is_stuck`, the rule that stops a compaction loop that frees nothing.

The expected answer comes from `strategies.check_stuck()` (it raises `CompressionStuck`
exactly when a compaction is stuck): still over `budget` *and* shrunk by less than
`STUCK_RATIO` (10 %) of `tokens_before`. The teeth: exactly 10 % (not stuck: `<`, not
`<=`), exactly at the budget (not over), a tiny shrink under budget (fine), growth, a
ratio that integer division gets wrong, and zero tokens before (no division by zero).

Left out: what the agent does when stuck (lesson 5 shows the `CompressionStuck` message).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..strategies import Compaction, CompressionStuck, check_stuck
from ..strategies.base import STUCK_RATIO
from .base import Case, Exercise, Space, Test, call, compare, numbered


def expected(before: int, after: int, budget: int) -> bool:
    try:
        check_stuck(Compaction("check", [], before, after), budget)
    except CompressionStuck:
        return True
    return False


def same_as_library(before: int, after: int, budget: int) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        return compare(fn(before, after, budget), expected(before, after, budget),
                       call("is_stuck", tokens_before=before, tokens_after=after, budget=budget)
                       + " returned")
    return test


PERCENT = f"{STUCK_RATIO:.0%}"
HIDDEN_CASES = 12


def hidden_case(n: int, rng: random.Random) -> Case:
    """Token counts on and around the two edges: the budget and a shrink of STUCK_RATIO."""
    before = rng.choice((0, rng.randint(1, 50), rng.randint(100, 200_000)))
    threshold = before - round(STUCK_RATIO * before)
    after = max(0, rng.choice((threshold, threshold + 1, threshold - 1, before,
                               before + rng.randint(1, 500), rng.randint(0, before + 10))))
    budget = max(0, rng.choice((after, after - 1, after + 1, rng.randint(0, after + 10))))
    return Case(f"hidden case {n}", f"is_stuck({before}, {after}, {budget})",
                same_as_library(before, after, budget))


CASES = (
    Case("over budget, shrank 5 %",
         f"over the budget and shrunk by less than {PERCENT}: stuck (return True)",
         same_as_library(10_000, 9_500, 8_000)),
    Case("over budget, shrank 50 %",
         f"a shrink of at least {PERCENT} is progress, even if still over budget",
         same_as_library(10_000, 5_000, 4_000)),
    Case("exactly 10 %",
         f"exactly {PERCENT} is enough: stuck means *less* than {PERCENT} (use <, not <=)",
         same_as_library(10_000, 9_000, 8_000)),
    Case("under budget with a tiny shrink",
         "a result within the budget is never stuck, however little it shrank",
         same_as_library(10_000, 9_990, 10_000)),
    Case("exactly at the budget",
         "after == budget fits: only a result *over* the budget can be stuck (>, not >=)",
         same_as_library(9_000, 8_900, 8_900)),
    Case("the context grew",
         "a compaction that made the context bigger and left it over budget is stuck",
         same_as_library(5_000, 5_200, 4_000)),
    Case("10 % of an odd number",
         f"compare with {PERCENT} of tokens_before exactly (STUCK_RATIO * before);"
         " integer division rounds the threshold down",
         same_as_library(1_001, 901, 500)),
    Case("zero tokens before",
         "tokens_before can be 0: compare shrink with STUCK_RATIO * before instead of"
         " dividing by it",
         same_as_library(0, 10, 5)),
    Case("zero everywhere",
         "nothing before, nothing after, a zero budget: fits, not stuck (and no division)",
         same_as_library(0, 0, 0)),
)

def stuck_inputs():
    """Token counts from 0 up, the after count near the before count and the budget."""
    from hypothesis import strategies as st

    count = st.one_of(st.integers(0, 20), st.integers(0, 300_000))
    return st.tuples(count, count, count)


SPACE = Space(same_as_library, stuck_inputs, edges=(
    (0, 0, 0), (0, 0, 1), (1, 1, 0), (1000, 1000, 1000), (1000, 1001, 1000),
    (1000, 900, 899), (1000, 901, 899), (10, 9, 8), (10, 10, 9)))


EXERCISE = Exercise(
    id="ex5", lesson=5, function="is_stuck",
    signature="is_stuck(tokens_before, tokens_after, budget)",
    contract=f"Return True when tokens_after is still over budget and the context shrank by "
             f"less than {PERCENT} of tokens_before (strategies.base.STUCK_RATIO).",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("check_stuck", "CompressionStuck"),
    space=SPACE,
)
