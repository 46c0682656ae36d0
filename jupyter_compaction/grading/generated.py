"""Generated hidden cases: hypothesis strategies over an exercise's input space.

An exercise's `space` (a `base.Space`) names the exercise's own test builder (the function
that turns inputs into a `Test` against the reference, e.g. `ex_stuck.same_as_library`),
a strategy for the builder's arguments, and edge inputs tried first (zero, empty, falsy
values, negatives beside positives, fractional thresholds, free prices, int 0 where a
float is specified). `generated_case(space, seed)` is one more hidden case: it tries the
edges, then `EXAMPLES` inputs drawn from the strategy with the run's seed (a new seed, a
new draw), and on the first failure lets hypothesis shrink the input; the learner sees
the builder's own message for the shrunk input (what was given, what was expected).

A case that times out or ends the sandbox stops the search at once (no shrinking: each
try would cost another time limit). hypothesis is imported when a case is built (outside
any time limit), so the exercise modules stay light.

`with_hidden(exercise, seed)` is the exercise with the cases drawn from `seed` after its
public ones: its own hidden cases, then the generated case. The grade draws them from the
release's seed; `check()` from a seed of its own, so practice meets the same generators
without ever seeing the grade's inputs.

Left out: hypothesis's example database (every run draws afresh from its seed).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import random
from collections.abc import Callable
from typing import Any

from ..history import Message
from .base import Case, CaseTimeout, Exercise, Space
from .codec import one_line
from .histories import random_history

EXAMPLES = 20  # drawn inputs per exercise and run, besides the edges
HINT = ("inputs drawn over the whole input space the exercise describes (edge values first);"
        " the message shows the smallest failing input hypothesis found")


def seeded_history(seed: int) -> Callable[[], list[Message]]:
    """A builder of one random history (a fresh copy per call), for generated cases."""
    history = random_history(random.Random(seed))
    return lambda: copy.deepcopy(history)


def history_builders() -> Any:
    """A hypothesis strategy of `seeded_history` builders (shrinks towards seed 0)."""
    from hypothesis import strategies as st

    return st.integers(0, 2**32).map(seeded_history)


class Stop(Exception):
    """The sandbox timed out or ended: no more tries."""


def generated_case(space: Space, seed: str, examples: int = EXAMPLES) -> Case:
    import hypothesis  # noqa: F401 - imported here, outside any case's time limit (an
    # import the limit interrupts leaves hypothesis half-initialized for every later case)

    def test(fn: Callable[..., Any]) -> str | None:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import seed as seeded

        found: list[str] = []
        fatal: list[BaseException] = []

        def try_input(arguments: tuple[Any, ...]) -> None:
            if fatal:
                return
            try:
                problem = space.build(*arguments)(fn)
            except (CaseTimeout, Stop) as exc:
                fatal.append(exc)
                return
            except Exception as exc:  # noqa: BLE001 - the learner's code: a failed input
                if type(exc).__name__ == "SandboxError":
                    fatal.append(exc)
                    return
                problem = one_line(exc)
            if problem:
                found.append(problem)
                raise AssertionError(problem)

        for edge in space.edges:
            if found or fatal:
                break
            with contextlib.suppress(AssertionError):
                try_input(edge)
        if found or fatal:
            return _outcome(found, fatal, "an edge input")
        search = settings(max_examples=examples, database=None, deadline=None,
                          derandomize=False, phases=(Phase.generate, Phase.shrink),
                          suppress_health_check=list(HealthCheck),
                          report_multiple_bugs=False)(
            seeded(seed)(given(space.arguments())(try_input)))
        try:
            search()
        except Exception:  # a failure found (or hypothesis saying it went away on replay)
            if not found:
                raise
        return _outcome(found, fatal, "the smallest failing input found")

    return Case("generated cases", HINT, test)


def _outcome(found: list[str], fatal: list[BaseException], which: str) -> str | None:
    if fatal:
        raise fatal[0]
    return f"{which}: {found[-1]}" if found else None


def with_hidden(exercise: Exercise, seed: int) -> Exercise:
    """`exercise` with its cases drawn from `seed` after the public ones: its own hidden
    cases, then one case of inputs generated over its input space."""
    draw = f"{seed}:{exercise.id}"
    hidden = exercise.hidden(random.Random(draw)) if exercise.hidden else ()
    if exercise.space is not None:
        hidden += (generated_case(exercise.space, draw),)
    return dataclasses.replace(exercise, cases=exercise.cases + hidden)
