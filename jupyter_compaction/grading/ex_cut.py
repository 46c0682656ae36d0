"""ex3 (lesson 3): `safe_cut_index`, the first index at or after a cut that is safe to split.

The expected index comes from `history.cut_points()`: the kept part may start only at an
assistant message, because a tool_result must stay right after the call it answers and
the roles after the head must keep alternating. The teeth: a cut on a results message
(move *forward*, not back), a plain-text user message (not a result, still not safe),
parallel results sharing one user message, cuts past either end (a negative cut must not
index from the end), a history that ends on results, and string content (which has no
blocks to index).

Left out: choosing the cut (lessons 4 and 5 do that with a token budget).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from ..history import Message, cut_points
from .base import Case, Exercise, Space, Test, call, compare, numbered
from .generated import history_builders, seeded_history
from .histories import assistant, random_history, reading_history, result, text, use, user

HIDDEN_CASES = 10


def expected(messages: list[Message], cut: int) -> int:
    return next((c for c in cut_points(messages) if c >= max(cut, 1)), len(messages))


def same_as_library(build: Callable[[], list[Message]], cut: int) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        return compare(fn(build(), cut), expected(build(), cut),
                       call("safe_cut_index", messages=build(), cut=cut) + " returned")
    return test


def parallel() -> list[Message]:
    return [user("Compare the three configs."),
            assistant(use("t1", "a.yaml"), use("t2", "b.yaml"), use("t3", "c.yaml")),
            user(result("t1", "a: 1"), result("t2", "b: 2"), result("t3", "c: 3"),
                 text("(also check the log)")),
            assistant(text("Now the log."), use("t4", "app.log")),
            user(result("t4", "ERROR ORD-1042")),
            assistant("The timeout in a.yaml causes ORD-1042 to fail.")]


def follow_up() -> list[Message]:
    """A text answer, then a plain-text user follow-up: the user message is not safe."""
    return [user("Read a.py."),
            assistant(use("t1", "a.py")),
            user(result("t1", "def a(): ...")),
            assistant("a.py defines a()."),
            user("Now read b.py too."),
            assistant(use("t2", "b.py")),
            user(result("t2", "def b(): ..."))]


def text_only() -> list[Message]:
    return [user("Plan the work."), assistant("First I will read the files."),
            user("Go ahead."), assistant("Done planning.")]


def hidden_case(n: int, rng: random.Random) -> Case:
    history = random_history(rng)
    cut = rng.randint(-3, len(history) + 2)
    return Case(f"hidden case {n}", f"a random history of {len(history)} messages, cut={cut}",
                same_as_library(lambda: copy.deepcopy(history), cut))


CASES = (
    Case("cut on an assistant message stays",
         "an assistant message is already a safe place to cut: return the cut unchanged",
         same_as_library(lambda: reading_history(4), 3)),
    Case("cut on a tool_result message moves forward",
         "a cut on a results message would orphan them: move *forward* to the next"
         " assistant message (never back: the caller asked for at least `cut`)",
         same_as_library(lambda: reading_history(4), 4)),
    Case("parallel calls answered in one message",
         "the results of parallel calls (and any text after them) share one user message:"
         " skip the whole message, not one block",
         same_as_library(parallel, 2)),
    Case("a plain-text user message is not safe either",
         "match by position, not by looking for tool_result blocks: the kept part must start"
         " at an assistant message, or two user messages would meet after the head",
         same_as_library(follow_up, 4)),
    Case("cut past the end",
         "when no safe index is left, return len(messages) (do not index past the end)",
         same_as_library(lambda: reading_history(3), 99)),
    Case("the history ends on a tool_result",
         "a cut on the last message, a results message, has nowhere to go: len(messages)",
         same_as_library(lambda: reading_history(3), 6)),
    Case("cut <= 0",
         "message 0 is the task and is never cut: for cut <= 0 return the first safe index"
         " >= 1 (and a negative index would count from the end)",
         same_as_library(lambda: reading_history(3), -2)),
    Case("string content",
         "content can be a plain string: look at the role, not at content[0]",
         same_as_library(text_only, 2)),
)

def cut_inputs():
    """Random histories, and cuts from below zero to past the end."""
    from hypothesis import strategies as st

    return st.tuples(history_builders(), st.integers(-3, 30))


SPACE = Space(same_as_library, cut_inputs, edges=tuple(
    (seeded_history(seed), cut) for seed in (0, 1) for cut in (0, -1, 1, 2, 99)))


EXERCISE = Exercise(
    id="ex3", lesson=3, function="safe_cut_index",
    signature="safe_cut_index(messages, cut)",
    contract="Return the first index >= cut at which the history can be split without "
             "separating a tool_use from its tool_result (messages[i] is an assistant "
             "message), or len(messages) if there is none; for cut <= 0, the first such "
             "index >= 1.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("cut_points", "TrimTurns"),
    space=SPACE,
)
