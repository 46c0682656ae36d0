"""Small builders for the histories the exercise cases feed to a learner's function.

Every case builds a fresh history (a learner's function may mutate what it is given),
so these are functions, not constants. They write valid Anthropic-format messages:
`user("task")`, `assistant(text("..."), use("t1", "a.py"))`,
`user(result("t1", "output"))`.

`random_history(rng)` builds the varied histories of the hidden cases: parallel calls,
string and list-form results, errors, tools whose input is not a path, long outputs with
the identifier at the very end, text-only answers followed by a plain-string follow-up.

Left out: histories that break `history.validate` (the exercises take valid ones).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from ..history import Block, InvalidHistory, Message, validate
from ..tokens import TokenCounter
from .base import Advice
from .differences import first_difference

READ_TOOL = "read_file"
PREFIXES = ("ORD", "VD", "GW", "INC", "LIC", "TKT")
FILLER = "lorem ipsum dolor sit amet " * 40  # ~1,100 characters before a late identifier


@functools.cache
def counter() -> TokenCounter:
    """One shared exact counter for every case (its per-message cache makes reruns cheap)."""
    return TokenCounter()


def handed(tokens: Callable[[], TokenCounter], messages: list[Message],
           system: str | None = None, tools: list[dict] | None = None) -> TokenCounter:
    """The counter a case hands the learner's function: a new one of `tokens()`'s kind
    that has counted the request (messages, system prompt, tools) and nothing else. It
    counts exactly as `tokens()` does; a sandboxed worker receives those counts with it
    (`codec`), so counting that request there builds no tiktoken encoder."""
    kind = tokens()
    fresh = type(kind)(kind.encoding_name)
    fresh.count(messages, system, tools)
    return fresh


def text(value: str) -> Block:
    return {"type": "text", "text": value}


def use(tid: str, path: str, name: str = READ_TOOL) -> Block:
    return {"type": "tool_use", "id": tid, "name": name, "input": {"path": path}}


def result(tid: str, content: str | list[Block], **extra: Any) -> Block:
    return {"type": "tool_result", "tool_use_id": tid, "content": content, **extra}


def user(*content: Block | str) -> Message:
    if len(content) == 1 and isinstance(content[0], str):
        return {"role": "user", "content": content[0]}
    return {"role": "user", "content": list(content)}


def assistant(*content: Block | str) -> Message:
    if len(content) == 1 and isinstance(content[0], str):
        return {"role": "assistant", "content": content[0]}
    return {"role": "assistant", "content": list(content)}


def file_turn(tid: str, path: str, body: str) -> list[Message]:
    """One assistant call to read `path` and the user message with its result."""
    return [assistant(text(f"Reading {path}."), use(tid, path)), user(result(tid, body))]


def reading_history(turns: int, words: int = 30, task: str = "Summarize every file.") -> list[
        Message]:
    """The task, then `turns` single-call turns reading s01.py, s02.py, ..."""
    messages = [user(task)]
    for n in range(1, turns + 1):
        body = f"s{n:02d}.py defines handler_{n}: " + " ".join(f"line{n}_{i}" for i in
                                                                  range(words))
        messages += file_turn(f"toolu_{n:02d}", f"src/s{n:02d}.py", body)
    return messages


def random_id(rng: random.Random) -> str:
    return f"{rng.choice(PREFIXES)}-{rng.randint(1000, 99999)}"


def random_call(rng: random.Random, tid: str) -> tuple[Block, str]:
    """A tool call with a path, a query or a command as input, and a matching output."""
    ident = random_id(rng)
    kind = rng.choice(("path", "query", "command"))
    if kind == "path":
        block = use(tid, f"data/{ident.lower()}.json")
    elif kind == "query":
        block = {"type": "tool_use", "id": tid, "name": "lookup", "input": {"query": ident}}
    else:
        block = {"type": "tool_use", "id": tid, "name": "run",
                 "input": {"command": f"grep -c {ident} app.log", "timeout_s": 30}}
    found = random_id(rng)
    body = (FILLER + f"last line: {found}") if rng.random() < 0.3 else f"{ident} -> {found}"
    return block, body


def random_result(rng: random.Random, tid: str, body: str) -> Block:
    if rng.random() < 0.3:
        half = len(body) // 2
        content: str | list[Block] = [text(body[:half]), text(body[half:])]
    else:
        content = body
    return result(tid, content, is_error=True) if rng.random() < 0.15 else result(tid, content)


def random_history(rng: random.Random, turns: int | None = None) -> list[Message]:
    """A valid history: a task, then `turns` (random if None) varied turns."""
    messages: list[Message] = [user(f"Investigate {random_id(rng)} and report.")]
    count = rng.randint(1, 6) if turns is None else turns
    serial = 0
    for _ in range(count):
        if rng.random() < 0.15:  # a text-only answer and a plain-string follow-up
            messages += [assistant(f"So far {random_id(rng)} looks fine."),
                         user(f"Now check {random_id(rng)} too.")]
            continue
        calls, bodies = [], []
        for _ in range(rng.choice((1, 1, 2, 3))):
            serial += 1
            block, body = random_call(rng, f"toolu_{serial:03d}")
            calls.append(block)
            bodies.append(body)
        lead = [text(f"Checking {random_id(rng)}.")] if rng.random() < 0.6 else []
        results = [random_result(rng, b["id"], body) for b, body in zip(calls, bodies,
                                                                         strict=True)]
        tail = [text("(the user adds: keep going)")] if rng.random() < 0.15 else []
        messages += [assistant(*lead, *calls), user(*results, *tail)]
    if rng.random() < 0.3:
        messages.append(assistant(f"Done: {random_id(rng)} is the cause."))
    return messages


def history_problem(given: list[Message], original: list[Message], got: Any,
                    want: list[Message]) -> str | Advice | None:
    """What is wrong with a learner's new history, or None: the input `given` no longer
    equals `original`, `got` differs from the library's `want`, or `validate()` rejects it."""
    changed = first_difference(given, original, what="messages")
    if changed:  # this rule leads, not the case's hint about another mistake
        return Advice("do not change the list you are given: build a new list and leave the"
                      f" messages as they are [the input changed: {changed}]")
    found = first_difference(got, want, original)
    if found:
        return found
    try:
        validate(got)
    except InvalidHistory as exc:
        return f"validate() says: {exc}"
    return None
