"""ex4c (lesson 4): `place_summary`, put the summary where it belongs, in its role (C7).

Given the boundaries of the middle and a summary, the learner builds the new history.
The expected history is what `strategies.SummarizeMiddle` returns for the same
boundaries when its summarizer answers with the given summary: the head and the tail
without older summary blocks (`summaries.without_summaries`), and the new summary block
(`summary_block(summary, role)`) right after the head: for "assistant" the first block of
the first tail message, for "user" the last block of the head's last message, so no
message is added and roles keep alternating. An empty middle or an empty summary changes
nothing. The teeth: each role's message and position, the role's prefix, a plain-string
message that must become a block list, older summaries in the head or the tail, the
middle really removed, an empty middle, an empty summary, mutation of the input, and a
result that must pass `validate()`.

Left out: finding the boundaries (ex4) and writing the summary (ex4b); every case's
summary is shorter than the middle it replaces (the library keeps a history that a long
summary would not shrink, which is not this exercise's point).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..history import Message, cut_points
from ..settings import SUMMARY_ROLES
from ..strategies import SummarizeMiddle
from ..summaries import summary_block
from ..tokens import TokenCounter
from .base import Case, Exercise, Space, Test, numbered
from .ex_compact import with_old_summary
from .histories import (
    assistant,
    history_problem,
    random_history,
    random_id,
    reading_history,
    text,
    user,
)

ANY_BUDGET = 10**9  # the boundaries are given, so the budget plays no part
HIDDEN_CASES = 8
SUMMARY = "## Goal\nSummarize every file.\n## Progress\n- read s02.py, s03.py: handlers 2-3"


@dataclass(frozen=True)
class GivenBoundaries(SummarizeMiddle):
    """`SummarizeMiddle` with the middle's boundaries given instead of measured."""

    head_end: int = 1
    tail_start: int = 1

    def boundaries(self, messages, goal, counter):  # noqa: ARG002 (the library's signature)
        return self.head_end, self.tail_start


class MessageCounter(TokenCounter):
    """Counts a history as its number of messages, so a placement that drops a middle is
    always "smaller": the strategy's refusal of a result no smaller than its input (every
    strategy's rule, `strategies.base.shrunk`) is not part of this exercise, and generated
    short middles would hit it."""

    def count(self, messages, *args, **kwargs) -> int:  # noqa: ARG002 (the library's signature)
        return len(messages)


def expected(messages: list[Message], head_end: int, tail_start: int, summary: str,
             role: str) -> list[Message]:
    layer = GivenBoundaries(summarizer=lambda prompt: summary, role=role, head_end=head_end,
                            tail_start=tail_start)
    return list(layer(messages, goal=ANY_BUDGET, counter=MessageCounter()).messages)


def same_as_library(build: Callable[[], list[Message]], head_end: int, tail_start: int,
                    summary: str, role: str) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        given = build()
        got = fn(given, head_end, tail_start, summary, role)
        return history_problem(given, build(), got,
                               expected(build(), head_end, tail_start, summary, role))
    return test


def tail_summary() -> list[Message]:
    """Six turns where the first tail message (index 9) opens with an earlier summary."""
    messages = reading_history(6)
    messages[9] = {**messages[9], "content": [summary_block("read s01.py"),
                                              *messages[9]["content"]]}
    return messages


def string_messages() -> list[Message]:
    """A head and a tail whose messages are plain strings."""
    return [user("Summarize every file."), assistant("Which folder?"), user("src/, please."),
            *reading_history(4)[1:], assistant("All read; writing the report now."),
            user("Go on.")]


CASES = (
    Case("assistant role: first block of the first tail message",
         "role='assistant': return head + tail with summary_block(summary, 'assistant')"
         " put in front of the first tail message's blocks: messages[tail_start] is an"
         " assistant message, so no message is added",
         same_as_library(lambda: reading_history(6), 1, 9, SUMMARY, "assistant")),
    Case("user role: last block of the head's last message",
         "role='user': append summary_block(summary, 'user') to the blocks of the head's last"
         " message (messages[head_end - 1], a user message), so roles keep alternating",
         same_as_library(lambda: reading_history(6), 3, 9, f"  {SUMMARY}\n", "user")),
    Case("the middle is gone",
         "drop messages[head_end:tail_start]: the summary stands in for them",
         same_as_library(lambda: reading_history(8), 3, 13, SUMMARY, "assistant")),
    Case("an older summary in the tail is replaced",
         "remove older summary blocks (is_summary(block['text'])) from the head and the tail:"
         " the new summary already holds what they said",
         same_as_library(tail_summary, 1, 9, SUMMARY, "assistant")),
    Case("an older summary in the head is replaced",
         "the head's last message loses its older user-role summary before the new one goes in",
         same_as_library(lambda: with_old_summary(6), 1, 9, SUMMARY, "user")),
    Case("plain-string messages become block lists",
         "a message whose content is a string becomes [{'type': 'text', 'text': ...}]"
         " before the summary block joins it (history.blocks(message) does that)",
         same_as_library(string_messages, 3, 11, SUMMARY, "user")),
    Case("an empty middle changes nothing",
         "head_end == tail_start: there is nothing to summarize, return the history unchanged"
         " (as a list)", same_as_library(lambda: reading_history(4), 5, 5, SUMMARY, "assistant")),
    Case("an empty summary changes nothing",
         "a summary that is empty or only spaces means the summarizer failed: return the"
         " history unchanged", same_as_library(lambda: reading_history(6), 1, 9, "  ", "user")),
)


def long_history(rng: random.Random) -> list[Message]:
    """A random history long enough that a short summary replaces more than it adds."""
    messages = random_history(rng, turns=rng.randint(5, 9))
    if rng.random() < 0.3:
        messages[0] = user(text(f"Investigate {random_id(rng)}."),
                           summary_block(f"checked {random_id(rng)}", "user"))
    return messages


def hidden_case(n: int, rng: random.Random) -> Case:
    while True:
        history = long_history(rng)
        cuts = cut_points(history)
        head_end, tail_start = sorted(rng.sample(cuts[:-1], 2)) if len(cuts) > 2 else (1, 1)
        if rng.random() < 0.3 and tail_start < len(history):  # an earlier summary in the tail
            history[tail_start] = {**history[tail_start], "content": [
                summary_block(f"found {random_id(rng)}"),
                *copy.deepcopy(history[tail_start]["content"] if isinstance(
                    history[tail_start]["content"], list) else [text(history[tail_start][
                        "content"])])]}
        role = rng.choice(SUMMARY_ROLES)
        summary = rng.choice((f" ## Progress\n- {random_id(rng)} found\n", SUMMARY, " "))
        changed = expected(history, head_end, tail_start, summary, role) != history
        if changed or head_end == tail_start or not summary.strip():
            break
    return Case(f"hidden case {n}", f"a random history of {len(history)} messages, head_end="
                f"{head_end}, tail_start={tail_start}, role={role!r}",
                same_as_library(lambda: copy.deepcopy(history), head_end, tail_start, summary,
                                role))



def place_inputs():
    """Random long histories (some with an earlier summary in the task), a head end and a
    tail start on two of their cut points (equal ones too), either role, and summaries
    that are padded, plain or blank."""
    from hypothesis import strategies as st

    return st.tuples(st.integers(0, 2**32), st.integers(0, 20), st.integers(0, 20),
                     st.sampled_from(SUMMARY_ROLES),
                     st.sampled_from((SUMMARY, " ## Progress\n- found ORD-1042\n", " ", "")))


def on_cuts(seed: int, first: int, second: int, role: str, summary: str) -> Test:
    history = long_history(random.Random(seed))
    cuts = cut_points(history)[:-1] or [1]
    head_end, tail_start = sorted((cuts[first % len(cuts)], cuts[second % len(cuts)]))
    return same_as_library(lambda: copy.deepcopy(history), head_end, tail_start, summary, role)


SPACE = Space(on_cuts, place_inputs, edges=tuple(
    (0, first, second, role, summary) for first, second in ((0, 1), (1, 1), (0, 3))
    for role in SUMMARY_ROLES for summary in (SUMMARY, " ")))


EXERCISE = Exercise(
    id="ex4c", lesson=4, function="place_summary",
    signature="place_summary(messages, head_end, tail_start, summary, role)",
    contract="Return messages[:head_end] + messages[tail_start:] with older summary blocks "
             "removed and summary_block(summary, role) placed right after the head: as the "
             "first block of the first tail message for 'assistant', as the last block of the "
             "head's last message for 'user'; the history unchanged when the middle or the "
             "summary is empty; never mutate the input.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("SummarizeMiddle", "without_summaries"),
    space=SPACE,
)
