"""ex9 (lesson 9): `log_overhead`, the tokens a session log does not hold.

A real session's reported input tokens include the system prompt and the tool
definitions, which the log never records, so a local count of the logged messages is
always short of them. Every gap `reported - local` is that fixed overhead plus a drift
that only adds tokens, so the smallest gap over the calls that report a figure estimates
it. Lesson 9 takes the first call's gap (there the messages are tiny and the counts
cannot drift apart much), which is the smallest on every shipped session; the smallest
gap is the same estimate without assuming the first call is the one (and a test keeps
that claim true). The expected answer is computed from the same `ReplayTurn` records the
learner gets. The teeth: calls without a reported figure (None,
not 0), no reported figure at all (0, no `min()` of nothing), a gap below zero (a local
count above the reported one: never an overhead below 0), the smallest gap rather than
the first or the mean, and the real shipped session.

Left out: the tokenizer drift that makes later gaps grow, which the lesson shows.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import cache
from typing import Any

from ..replay import ReplayTurn
from .base import Case, Exercise, Space, Test, call, compare, fields, numbered

HIDDEN_CASES = 8


def expected(turns: list[ReplayTurn]) -> int:
    gaps = [t.reported - t.local for t in turns if t.reported is not None]
    return max(min(gaps), 0) if gaps else 0


def turns(*pairs: tuple[int, int | None]) -> Callable[[], list[ReplayTurn]]:
    """Calls with these `(local, reported)` figures."""
    return lambda: [ReplayTurn(n, 0, 2 * n - 1, local, reported, local)
                    for n, (local, reported) in enumerate(pairs, 1)]


@cache
def _real() -> tuple[ReplayTurn, ...]:
    from .. import sessions
    from ..replay import replay

    path = next(p for p in sessions.shipped() if p.name == "tool_heavy.jsonl")
    return tuple(replay(sessions.load(path), "off").turns)


def same_as_expected(build: Callable[[], list[ReplayTurn]]) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        given = fields([(t.local, t.reported) for t in build()], "local", "reported")
        return compare(fn(list(build())), expected(list(build())),
                       call("log_overhead", turns=given) + " returned")
    return test


CASES = (
    Case("three reported calls",
         "the overhead is the smallest reported - local over the calls",
         same_as_expected(turns((40, 26_450), (1_300, 28_000), (2_300, 29_400)))),
    Case("the smallest gap is not the first",
         "the overhead is the smallest gap: here a later call's gap is smaller than the"
         " first call's (in lesson 9 the first call's is the smallest, so there both agree)",
         same_as_expected(turns((500, 30_000), (900, 26_000), (4_000, 33_000)))),
    Case("calls without a reported figure",
         "skip calls whose reported figure is None (no usage logged); they are not 0",
         same_as_expected(turns((40, None), (1_300, 28_000), (2_300, None)))),
    Case("nothing reported",
         "when no call reports a figure, return 0 (min() of nothing raises)",
         same_as_expected(turns((40, None), (90, None)))),
    Case("no calls at all",
         "an empty list of calls: return 0",
         same_as_expected(turns())),
    Case("a local count above the reported one",
         "a negative gap means the tokenizers disagree, not a negative overhead: never"
         " return less than 0",
         same_as_expected(turns((5_000, 4_000), (6_000, 5_500)))),
    Case("the real tool_heavy session",
         "run on the turns of replay(sessions.load(...), 'off')",
         same_as_expected(_real)),
)

def hidden_case(n: int, rng: random.Random) -> Case:
    """A random log: growing local counts, a random overhead and drift, some calls unlogged."""
    overhead, local, pairs = rng.randint(-500, 30_000), rng.randint(0, 400), []
    for _ in range(rng.randint(0, 12)):
        local += rng.randint(0, 9_000)
        logged = rng.random() < 0.7
        pairs.append((local, local + overhead + rng.randint(-300, 3_000) if logged else None))
    return Case(f"hidden case {n}", f"{len(pairs)} calls, "
                f"{sum(r is not None for _, r in pairs)} of them reported",
                same_as_expected(turns(*pairs)))


def replay_inputs():
    """(local, reported) pairs: reported None, 0, below local (a negative gap) or above."""
    from hypothesis import strategies as st

    local = st.integers(0, 60_000)
    reported = st.one_of(st.none(), st.just(0), st.integers(0, 90_000))
    return st.tuples(st.lists(st.tuples(local, reported), max_size=8))


def from_pairs(pairs: list[tuple[int, int | None]]) -> Test:
    return same_as_expected(turns(*pairs))


SPACE = Space(from_pairs, replay_inputs, edges=(
    ([],), ([(0, None)],), ([(100, 0)],), ([(0, 0)],), ([(500, 400), (10, 900)],),
    ([(10, 900), (500, 400)],), ([(40, None), (90, 0), (100, 300)],)))


EXERCISE = Exercise(
    id="ex9", lesson=9, function="log_overhead",
    signature="log_overhead(turns)",
    contract="Return the smallest reported - local over the calls (ReplayTurn) whose reported "
             "figure is not None, never below 0, and 0 when no call reports a figure.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    space=SPACE,
)
