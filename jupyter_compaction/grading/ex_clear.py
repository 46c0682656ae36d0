"""ex2 (lesson 2): `clear_old_results`, layer 1 of compaction, checked against the library.

Every case compares the learner's output with what `strategies.ClearToolResults` (same
`keep_last`, same placeholder) returns for the same history, so the expected values are
computed, not written down. The teeth: parallel results in one message, `keep_last=0`
(`results[:-0]` is empty), list-form content, `is_error`, mutation of the input, and
results that already hold the placeholder (they do not count among the last
`keep_last`, as in `ClearToolResults`).

Left out: `exclude_tools` and `clear_at_least`, the library's extra knobs (the expected
values are computed with `clear_at_least` disabled, so a short output is cleared too).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

from ..history import InvalidHistory, Message, validate
from ..strategies import PLACEHOLDER, ClearToolResults
from .base import Case, Exercise, Space, Test, numbered
from .differences import first_difference
from .generated import history_builders, seeded_history
from .histories import assistant, counter, random_history, reading_history, result, text, use, user

HIDDEN_CASES = 10
PLACEHOLDERS = (PLACEHOLDER, "[cleared]", "<old output removed>")

ANY_BUDGET = 10**9  # ClearToolResults ignores the budget
ALWAYS = -(10**9)  # clear_at_least: clear even when the placeholder is longer than the output


def expected(messages: list[Message], keep_last: int = 3,
             placeholder: str = PLACEHOLDER) -> list[Message]:
    strategy = ClearToolResults(keep_last=keep_last, placeholder=placeholder,
                                clear_at_least=ALWAYS)
    return strategy(messages, goal=ANY_BUDGET, counter=counter()).messages


def same_as_library(build: Callable[[], list[Message]], **kwargs: Any) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        got = fn(build(), **kwargs)
        return first_difference(got, expected(build(), **kwargs), build())
    return test


def parallel() -> list[Message]:
    return [user("Read the three configs, then the log."),
            assistant(text("Reading all three."), use("t1", "a.yaml"), use("t2", "b.yaml"),
                      use("t3", "c.yaml")),
            user(result("t1", "a: 1 timeout=30"), result("t2", "b: 2 retries=4"),
                 result("t3", "c: 3 port=8080")),
            assistant(use("t4", "app.log")),
            user(result("t4", "ERROR ORD-1042 timed out after 30 s"))]


def list_content() -> list[Message]:
    messages = reading_history(3)
    messages[2]["content"][0]["content"] = [text("part one: ORD-1042"), text("part two")]
    return messages


def with_error() -> list[Message]:
    messages = reading_history(4)
    messages[4]["content"][0].update(content="FileNotFoundError: src/s02.py", is_error=True)
    return messages


def text_after_results() -> list[Message]:
    messages = reading_history(4)
    for message in messages[2::2]:
        message["content"].append(text("(the user adds: keep going)"))
    return messages


def already_cleared() -> list[Message]:
    messages = reading_history(5)
    messages[8]["content"][0]["content"] = PLACEHOLDER  # the 4th of 5 results
    return messages


def no_results() -> list[Message]:
    return [user("Say hello."), assistant("Hello!")]


def input_unchanged(fn: Callable[..., Any]) -> str | None:
    given = list_content() + [assistant(use("t9", "x.py")), user(result("t9", "x = 1"))]
    before = copy.deepcopy(given)
    fn(given, keep_last=1)
    found = first_difference(given, before, what="messages")
    return f"the input changed: {found}" if found else None


def stays_valid(fn: Callable[..., Any]) -> str | None:
    got = fn(text_after_results(), keep_last=1)
    try:
        validate(got)
    except InvalidHistory as exc:
        return f"validate() says: {exc}"
    return first_difference(got, expected(text_after_results(), keep_last=1),
                            text_after_results())


def hidden_case(n: int, rng: random.Random) -> Case:
    """A random history, keep_last and placeholder; one of the newest results may already
    hold the placeholder (it must not count among the last keep_last)."""
    history = random_history(rng, rng.randint(2, 7))
    keep_last = rng.randint(0, 4)
    placeholder = PLACEHOLDER if rng.random() < 0.3 else rng.choice(PLACEHOLDERS[1:])
    blocks = [b for m in history if not isinstance(m["content"], str) for b in m["content"]
              if b["type"] == "tool_result"]
    if len(blocks) > 1 and rng.random() < 0.7:  # one of the newest already holds it
        newest = max(0, min(len(blocks) - keep_last, len(blocks) - 2))
        blocks[rng.randrange(newest, len(blocks) - 1)]["content"] = placeholder

    def test(fn: Callable[..., Any]) -> str | None:
        given = copy.deepcopy(history)
        got = fn(given, keep_last=keep_last, placeholder=placeholder)
        found = first_difference(given, history, what="messages")
        if found:
            return f"the input changed: {found}"
        return first_difference(got, expected(copy.deepcopy(history), keep_last, placeholder),
                                history)

    return Case(f"hidden case {n}", f"a random history, keep_last={keep_last}, placeholder="
                f"{placeholder!r}", test)


CASES = (
    Case("clears all but the last 3 by default",
         "replace the content of every tool_result except the last keep_last (3 by default)"
         " with the placeholder; keep everything else as it is",
         same_as_library(lambda: reading_history(5))),
    Case("parallel calls in one message",
         "count tool_result *blocks*, not messages: one user message can hold the results"
         " of several parallel calls",
         same_as_library(parallel, keep_last=2)),
    Case("keep_last=0 clears every result",
         "keep_last=0 must clear every result; careful: results[:-0] is an empty list",
         same_as_library(lambda: reading_history(3), keep_last=0)),
    Case("keep_last larger than the number of results",
         "when there are no more results than keep_last, nothing is cleared",
         same_as_library(lambda: reading_history(2), keep_last=5)),
    Case("list-form result content",
         "a tool_result's content can be a list of text blocks: replace the whole content"
         " with the placeholder string",
         same_as_library(list_content, keep_last=1)),
    Case("is_error results keep is_error",
         "copy the block and change only its content ({**block, 'content': placeholder}):"
         " is_error and tool_use_id must stay",
         same_as_library(with_error, keep_last=1)),
    Case("the input is not changed",
         "build new messages and blocks instead of editing the input in place: the"
         " transcript keeps the originals",
         input_unchanged),
    Case("the result passes validate()",
         "keep every message and block, in order, so that validate(result) still passes"
         " (here text follows the results in the user messages)",
         stays_valid),
    Case("already-cleared results are not counted",
         "a result that already holds the placeholder is not one of the last keep_last:"
         " skip it when counting, as ClearToolResults does",
         same_as_library(already_cleared, keep_last=2)),
    Case("uses the placeholder argument",
         "write the placeholder you were given, not the PLACEHOLDER constant",
         same_as_library(lambda: reading_history(3), keep_last=1, placeholder="[cleared]")),
    Case("a history without tool results",
         "a history with no tool results comes back unchanged, as a list",
         same_as_library(no_results)),
)

def clear_inputs():
    """Random histories, keep_last from 0 up, any of the placeholders."""
    from hypothesis import strategies as st

    return st.tuples(history_builders(), st.integers(0, 8), st.sampled_from(PLACEHOLDERS))


def from_inputs(build: Callable[[], list[Message]], keep_last: int, placeholder: str) -> Test:
    return same_as_library(build, keep_last=keep_last, placeholder=placeholder)


SPACE = Space(from_inputs, clear_inputs, edges=tuple(
    (seeded_history(seed), keep, PLACEHOLDER) for seed in (0, 1) for keep in (0, 1, 99)))


EXERCISE = Exercise(
    id="ex2", lesson=2, function="clear_old_results",
    signature="clear_old_results(messages, keep_last=3, placeholder=PLACEHOLDER)",
    contract="Replace the content of every tool_result block except the last `keep_last` "
             "with `placeholder`; keep every message, block, id and role; never mutate the "
             "input.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("ClearToolResults",),
    space=SPACE,
)
