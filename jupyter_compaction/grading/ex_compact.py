"""ex5b (lesson 5): `compact_history`, whole-history compaction (C9).

The expected history is what `strategies.CompactAll` builds when its summarizer answers
with the given summary, from the same helpers: one user message holding the task's own
blocks (an older summary in it dropped, `summaries.without_summaries`) followed by the new
summary as a user-role summary block (`summaries.summary_block(summary, "user")`). An
empty summary, or a history with nothing after the task, changes nothing. The strategy's
last check, that a result no smaller than its input is refused (`strategies.base.shrunk`),
is every strategy's and not this exercise's: generated histories are often shorter than
the summary, and the exercise does not ask for it. The teeth: the role and prefix of the summary,
an older summary in the task, a task of several blocks, an empty summary, nothing to
compact, mutation of the input, and a result that must pass `validate()`.

Left out: asking a model for the summary (the summary is given) and head or tail
protection (lesson 4's layer does that).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from ..history import Message, blocks
from ..summaries import summary_block, without_summaries
from .base import Case, Exercise, Space, Test, numbered
from .generated import history_builders, seeded_history
from .histories import (
    history_problem,
    random_history,
    random_id,
    reading_history,
    text,
    user,
)

HIDDEN_CASES = 8
SUMMARY = "## Goal\nSummarize every file.\n## Progress\n- read s01.py to s03.py: handlers 1-3"


def expected(messages: list[Message], summary: str) -> list[Message]:
    if len(messages) < 2 or not summary.strip():
        return list(messages)
    task = blocks(without_summaries(messages[0]))
    return [{"role": "user", "content": [*task, summary_block(summary, "user")]}]


def same_as_library(build: Callable[[], list[Message]], summary: str) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        given = build()
        got = fn(given, summary)
        return history_problem(given, build(), got, expected(build(), summary))
    return test


def with_old_summary(turns: int = 3) -> list[Message]:
    """`turns` turns whose task message carries an earlier user-role summary."""
    messages = reading_history(turns)
    messages[0] = user(text("Summarize every file."), summary_block("read s01.py", "user"))
    return messages


def two_block_task() -> list[Message]:
    return [user(text("Read every file."), text("Report the handler names.")),
            *reading_history(2)[1:]]


CASES = (
    Case("one user message: the task, then the summary",
         "return [{'role': 'user', 'content': [<the task's blocks>, summary_block(summary,"
         " 'user')]}]: the task first, then the summary, in one user message",
         same_as_library(lambda: reading_history(4), SUMMARY)),
    Case("the summary is a user-role summary block",
         "use summary_block(summary, 'user'): a user message needs the user-role prefix",
         same_as_library(lambda: reading_history(2), "  progress: ORD-1042 checked  ")),
    Case("an older summary in the task is replaced",
         "drop the task message's older summary blocks (is_summary(block['text'])): the new"
         " summary already holds what they said",
         same_as_library(with_old_summary, SUMMARY)),
    Case("a task of several blocks", "keep every block of the task message, in order",
         same_as_library(two_block_task, SUMMARY)),
    Case("an empty summary changes nothing",
         "a summary that is empty (or only spaces) means the summarizer failed: return the"
         " history unchanged, as a list",
         same_as_library(lambda: reading_history(3), "   ")),
    Case("nothing after the task",
         "with only the task there is nothing to compact: return the history unchanged",
         same_as_library(lambda: reading_history(0), SUMMARY)),
)


def hidden_case(n: int, rng: random.Random) -> Case:
    history = random_history(rng)
    if rng.random() < 0.3:
        history[0] = user(text(f"Investigate {random_id(rng)}."),
                          summary_block(f"checked {random_id(rng)}", "user"))
    elif rng.random() < 0.3:
        history[0] = user(text(f"Investigate {random_id(rng)}."), text("Be thorough."))
    summary = rng.choice(("", " ", f"## Progress\n- {random_id(rng)} found  ", SUMMARY))
    if rng.random() < 0.1:
        history = history[:1]
    return Case(f"hidden case {n}", f"a random history of {len(history)} messages, summary="
                f"{summary[:20]!r}", same_as_library(lambda: copy.deepcopy(history), summary))


def compact_inputs():
    """Random histories (the task alone, too) and summaries that are empty, blank or padded."""
    from hypothesis import strategies as st

    summary = st.sampled_from(("", " ", SUMMARY, "  ## Progress\n- found ORD-1042  \n"))
    return st.tuples(st.one_of(history_builders(), st.just(lambda: reading_history(0))),
                     summary)


SPACE = Space(same_as_library, compact_inputs, edges=(
    (lambda: reading_history(0), SUMMARY), (seeded_history(0), ""), (seeded_history(1), " "),
    (lambda: reading_history(1), SUMMARY)))


EXERCISE = Exercise(
    id="ex5b", lesson=5, function="compact_history",
    signature="compact_history(messages, summary)",
    contract="Return [one user message: the task's blocks without older summaries, then "
             "summary_block(summary, 'user')]; the history unchanged when the summary is "
             "empty or blank (only whitespace) or nothing follows the task; never mutate the"
             " input.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("CompactAll",),
    space=SPACE,
)
