"""Small builders for the histories the exercise cases feed to a learner's function.

Every case builds a fresh history (a learner's function may mutate what it is given),
so these are functions, not constants. They write valid Anthropic-format messages:
`user("task")`, `assistant(text("..."), use("t1", "a.py"))`,
`user(result("t1", "output"))`.

Left out: random histories (the tests use hypothesis for those).
"""

from __future__ import annotations

import functools
from typing import Any

from ..history import Block, Message
from ..tokens import TokenCounter

READ_TOOL = "read_file"


@functools.cache
def counter() -> TokenCounter:
    """One shared exact counter for every case (its per-message cache makes reruns cheap)."""
    return TokenCounter()


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
