"""Hand-made models for tests of the loop's edges, written once here.

`Scripted([reply, error, reply])` answers each call with the next reply and raises an
exception placed in the script. `Relay(inner)` passes each request on to a real model
(the simulated one, usually). Both keep every request they were sent (`requests`) and
run `before(call_number, request)` first where given (a test's way to change the world
mid-run, or to fail one call: `fail_at`). `Endless` calls a tool every turn, forever,
with a fresh input; `Looping` repeats a few calls round and round.
`Accepting` is the Claude adapter keeping what the SDK handed back.
Left out: anything computed from the request (the simulated model does that).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from jupyter_compaction.models.anthropic import AnthropicModel
from jupyter_compaction.models.base import Reply, Usage

Before = Callable[[int, dict[str, Any]], None]  # (call number from 1, the request)


class _Keeping:
    """Keeps each request and runs `before` on it; subclasses answer it."""

    def __init__(self, before: Before | None = None):
        self.before = before
        self.requests: list[dict[str, Any]] = []

    @property
    def calls(self) -> int:
        return len(self.requests)

    def create(self, **request: Any) -> Reply:
        self.requests.append(request)
        if self.before:
            self.before(self.calls, request)
        return self.answer(request)

    def answer(self, request: dict[str, Any]) -> Reply:
        raise NotImplementedError


class Scripted(_Keeping):
    """Replies (or exceptions to raise) in order, one per call."""

    name = "scripted"

    def __init__(self, replies: Iterable[Reply | BaseException], before: Before | None = None):
        super().__init__(before)
        self.replies = list(replies)

    def answer(self, request: dict[str, Any]) -> Reply:
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply


class Relay(_Keeping):
    """`inner`'s replies, each request kept on the way."""

    name = "relay"

    def __init__(self, inner: Any, before: Before | None = None):
        super().__init__(before)
        self.inner = inner

    def answer(self, request: dict[str, Any]) -> Reply:
        return self.inner.create(**request)


def fail_at(call: int, error: BaseException) -> Before:
    """A `before` that raises `error` at call number `call` (from 1), once."""

    def before(number: int, request: dict[str, Any]) -> None:
        if number == call:
            raise error

    return before


class Endless:
    """Calls `echo` every turn with a fresh input ("more 1", "more 2", ...), forever. A
    summary request (no tools offered) gets `summary`, or, with `summary=None`, a tool call
    (a failed summary)."""

    name = "endless"

    def __init__(self, summary: str | None = "## Progress\nkept calling echo"):
        self.n, self.summary = 0, summary

    def create(self, *, system, messages, tools, max_tokens, cache=False) -> Reply:
        if not tools:
            if self.summary is None:
                return Reply([{"type": "tool_use", "id": "toolu_s", "name": "echo",
                               "input": {}}], "tool_use", Usage(10, 5))
            return Reply([{"type": "text", "text": self.summary}], usage=Usage(10, 5))
        self.n += 1
        return Reply([{"type": "text", "text": f"Call {self.n}."},
                      {"type": "tool_use", "id": f"toolu_{self.n}", "name": "echo",
                       "input": {"text": f"more {self.n}"}}], "tool_use", Usage(10, 5))


class Looping:
    """Calls the tools of `calls` (`(name, input)` pairs) in turn, round and round, forever."""

    name = "looping"

    def __init__(self, calls: Iterable[tuple[str, dict[str, Any]]]):
        self.calls, self.n = list(calls), 0

    def create(self, **request: Any) -> Reply:
        self.n += 1
        name, args = self.calls[(self.n - 1) % len(self.calls)]
        use = {"type": "tool_use", "id": f"toolu_{self.n}", "name": name, "input": args}
        return Reply([use], "tool_use", Usage(input_tokens=100, output_tokens=10), self.name)


class Accepting(AnthropicModel):
    """The Claude model, keeping each request with a copy of the reply the SDK handed back:
    what the client accepted (`accepted`), for tests that fault the API under it."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.accepted: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []

    def create(self, **request: Any) -> Reply:
        reply = super().create(**request)
        # the request's message list as it was sent (the agent's own list grows on)
        sent = {**request, "messages": list(request.get("messages") or [])}
        self.accepted.append((sent, copy.deepcopy(reply.content)))
        return reply

    def replies(self, skip: Callable[[dict[str, Any]], bool]) -> list[list[dict[str, Any]]]:
        """The accepted replies' contents in order, less those to requests `skip` picks
        (the summary calls, say)."""
        return [content for request, content in self.accepted if not skip(request)]
