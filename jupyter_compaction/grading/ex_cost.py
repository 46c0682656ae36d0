"""ex5c (lesson 5): `summary_cost`, the dollars of a run's summary calls (C8).

Whether the agent's own model (reading a cached prefix) or a cheap auxiliary model
should write the summaries is a question of prices, so the learner prices the calls'
`Usage`s. The expected answer is `pricing.dollars()`: plain input, cache writes, cache
reads and output, each at its own price per million tokens, with a cache price that is
not given taken as 1.25x (write) or 0.1x (read) the input price. Answers are compared
to a relative 1e-9, so the order of the sums does not matter but rounding does. The
teeth: per million (not per token, not per thousand), cache reads at a tenth, cache
writes at 1.25x, given cache prices win over the multipliers, `total_input` is not all
plain input, output priced on its own, several calls add up, and no calls cost 0.

Left out: choosing between the designs (the lesson's table does that with these prices).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..models.base import Usage
from ..pricing import dollars
from .base import Case, Exercise, Space, Test, call, numbered, same_number, short

HIDDEN_CASES = 8
TOLERANCE = 1e-9  # relative: the order of the sums may differ, rounding may not
LARGE = {"input": 3.0, "output": 15.0}  # a Sonnet-class model, dollars per million tokens
SMALL = {"input": 1.0, "output": 5.0, "cache_write": 1.25, "cache_read": 0.1}


def same_as_library(usages: list[Usage], prices: dict[str, float]) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        want = dollars(usages, prices)  # before the learner's code runs
        got = fn([Usage(**u.to_dict()) for u in usages], dict(prices))
        if same_number(got, want, rel_tol=TOLERANCE, abs_tol=1e-15):
            return None
        return (f"{call('summary_cost', usages=usages, prices=prices)} returned {short(got)},"
                f" expected {want!r}")
    return test


def calls(*counts: tuple[int, int, int, int]) -> list[Usage]:
    """Usages from (input, cache write, cache read, output) token counts."""
    return [Usage(input_tokens=i, cache_creation_input_tokens=w, cache_read_input_tokens=r,
                  output_tokens=o) for i, w, r, o in counts]


CASES = (
    Case("input and output, per million tokens",
         "1,000 input and 200 output tokens at $3 and $15 per million cost (1000 * 3 + 200 *"
         " 15) / 1,000,000 = $0.006: divide by a million, not a thousand",
         same_as_library(calls((1000, 0, 0, 200)), LARGE)),
    Case("cache reads cost a tenth of the input price",
         "a cache_read_input_tokens token costs 0.1 * prices['input'] when prices has no"
         " 'cache_read': 10,000 reads at $3 input cost $0.003",
         same_as_library(calls((0, 0, 10_000, 0)), LARGE)),
    Case("cache writes cost 1.25 times the input price",
         "a cache_creation_input_tokens token costs 1.25 * prices['input'] when prices has"
         " no 'cache_write': 4,000 writes at $3 input cost $0.015",
         same_as_library(calls((0, 4000, 0, 0)), LARGE)),
    Case("given cache prices win",
         "when prices has 'cache_write' or 'cache_read', use them as they are: here reads"
         " are $0.5 per million, not 0.1 * $3",
         same_as_library(calls((100, 2000, 8000, 50)),
                         {**LARGE, "cache_write": 3.0, "cache_read": 0.5})),
    Case("every kind of token in one call",
         "price input_tokens, cache writes, cache reads and output_tokens each at its own"
         " rate (Usage.total_input is all three inputs together: not all at the input price)",
         same_as_library(calls((1200, 300, 5000, 400)), SMALL)),
    Case("several calls add up", "sum the cost of every call in the list",
         same_as_library(calls((900, 0, 6000, 210), (1100, 0, 6000, 190), (50, 6000, 0, 205)),
                         LARGE)),
    Case("no calls cost nothing", "an empty list of usages costs 0.0",
         same_as_library([], LARGE)),
)


def random_prices(rng: random.Random) -> dict[str, float]:
    base = rng.choice((0.25, 0.8, 1.0, 3.0, 5.0, 15.0))
    prices = {"input": base, "output": base * rng.choice((4, 5))}
    if rng.random() < 0.4:
        prices["cache_read"] = round(base * rng.choice((0.1, 0.25, 0.5)), 4)
    if rng.random() < 0.4:
        prices["cache_write"] = round(base * rng.choice((1.25, 2.0)), 4)
    return prices


def hidden_case(n: int, rng: random.Random) -> Case:
    usages = calls(*((rng.choice((0, rng.randint(1, 5000))), rng.choice((0, rng.randint(1, 9000))),
                      rng.choice((0, rng.randint(1, 90_000))), rng.randint(0, 1500))
                     for _ in range(rng.randint(0, 5))))
    prices = random_prices(rng)
    return Case(f"hidden case {n}", f"{len(usages)} random calls at prices {prices}",
                same_as_library(usages, prices))


def cost_inputs():
    """Calls with zero or more of each kind of token; prices that are int or float, free
    (0 or 0.0), with or without given cache prices."""
    from hypothesis import strategies as st

    tokens = st.one_of(st.just(0), st.integers(0, 200_000))
    price = st.one_of(st.sampled_from([0, 0.0, 1, 3, 0.25, 3.0, 15.0]),
                      st.floats(0, 100, allow_nan=False, allow_infinity=False))
    prices = st.fixed_dictionaries({"input": price, "output": price}, optional={
        "cache_read": price, "cache_write": price})
    return st.tuples(st.lists(st.tuples(tokens, tokens, tokens, tokens), max_size=4), prices)


def from_counts(counts: list[tuple[int, int, int, int]], prices: dict[str, float]) -> Test:
    return same_as_library(calls(*counts), prices)


SPACE = Space(from_counts, cost_inputs, edges=(
    ([], {"input": 0, "output": 0}), ([(1000, 0, 0, 200)], {"input": 0.0, "output": 15.0}),
    ([(0, 4000, 10_000, 0)], {"input": 3.0, "output": 15.0, "cache_read": 0.0,
                              "cache_write": 0.0}),
    ([(0, 4000, 10_000, 0)], {"input": 3, "output": 15, "cache_read": 0, "cache_write": 0}),
    ([(1000, 0, 0, 0)], {"input": 3, "output": 0}),
    ([(0, 0, 1, 0), (0, 1, 0, 0)], {"input": 0.0, "output": 5.0, "cache_read": 0.3})))


EXERCISE = Exercise(
    id="ex5c", lesson=5, function="summary_cost",
    signature="summary_cost(usages, prices)",
    contract="Return the dollars the calls cost: for each Usage, input_tokens at "
             "prices['input'], cache_creation_input_tokens at prices['cache_write'] (else "
             "1.25 * input), cache_read_input_tokens at prices['cache_read'] (else 0.1 * "
             "input) and output_tokens at prices['output'], all per million tokens.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("dollars", "rates"),
    space=SPACE,
)
