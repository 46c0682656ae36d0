"""ex3b (lesson 3): `drop_oldest_turns`, trimming whole turns (C4).

The expected history comes from `history.turns()`: the task stays, then the `drop`
oldest whole turns (an assistant message with the user message that answers it) go,
verbatim, with no summary; the newest turn always stays. The teeth: a turn is a pair
only when it has one (a text answer followed by a plain follow-up is a turn too; the
final answer may stand alone), parallel results in one message, dropping more turns
than there are (the newest stays), `drop <= 0`, mutation of the input, and a result
that must still pass `validate()`.

Left out: choosing how many turns to drop from a token budget (`TrimTurns` does that).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from ..history import Message, turns
from .base import Case, Exercise, Space, Test, numbered
from .ex_cut import follow_up, parallel
from .generated import history_builders, seeded_history
from .histories import history_problem, random_history, reading_history

HIDDEN_CASES = 8


def expected(messages: list[Message], drop: int) -> list[Message]:
    spans = turns(messages)
    droppable = spans[1:-1]  # never the task, never the newest turn
    count = min(max(drop, 0), len(droppable))
    if count == 0:
        return list(messages)
    return [*messages[:droppable[0][0]], *messages[droppable[count - 1][1]:]]


def same_as_library(build: Callable[[], list[Message]], drop: int) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        given = build()
        got = fn(given, drop)
        return history_problem(given, build(), got, expected(build(), drop))
    return test


def answered() -> list[Message]:
    return [*reading_history(3), {"role": "assistant", "content": "All three read."}]


CASES = (
    Case("drops the oldest turn",
         "keep messages[0] (the task), drop the oldest assistant message *and* the results"
         " that answer it",
         same_as_library(lambda: reading_history(4), 1)),
    Case("drops two turns",
         "drop whole turns, oldest first: two turns are four messages here",
         same_as_library(lambda: reading_history(4), 2)),
    Case("drop=0 changes nothing", "with nothing to drop, return the history as it is",
         same_as_library(lambda: reading_history(3), 0)),
    Case("the newest turn always stays",
         "never drop the newest turn, even when asked to drop more turns than there are",
         same_as_library(lambda: reading_history(3), 10)),
    Case("parallel calls answered in one message",
         "a turn is one assistant message and the one user message after it, however many"
         " results that message holds",
         same_as_library(parallel, 1)),
    Case("a plain follow-up message",
         "group by role, not by tool_result blocks: a text answer and the user's plain"
         " follow-up are a turn too",
         same_as_library(follow_up, 1)),
    Case("a final answer stands alone",
         "the last turn may be a single assistant message: do not assume pairs from the end",
         same_as_library(answered, 2)),
    Case("a negative drop", "drop <= 0 drops nothing (and must not slice from the end)",
         same_as_library(lambda: reading_history(3), -1)),
)


def hidden_case(n: int, rng: random.Random) -> Case:
    history = random_history(rng)
    drop = rng.randint(-1, len(turns(history)))
    return Case(f"hidden case {n}", f"a random history of {len(history)} messages, drop={drop}",
                same_as_library(lambda: copy.deepcopy(history), drop))


def trim_inputs():
    """Random histories, and drops from below zero to more turns than there are."""
    from hypothesis import strategies as st

    return st.tuples(history_builders(), st.integers(-2, 12))


SPACE = Space(same_as_library, trim_inputs, edges=tuple(
    (seeded_history(seed), drop) for seed in (0, 1) for drop in (0, -1, 1, 99)))


EXERCISE = Exercise(
    id="ex3b", lesson=3, function="drop_oldest_turns",
    signature="drop_oldest_turns(messages, drop)",
    contract="Return a new history without the `drop` oldest whole turns after the task "
             "(an assistant message with the user message that answers it); keep the task "
             "and always the newest turn; never mutate the input.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("TrimTurns", "turns"),
    space=SPACE,
)
