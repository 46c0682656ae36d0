"""Server-side compaction (`compact_20260112`) as the Messages API documents it, emulated.

With the edit in a request's `context_management`, the API works in three steps:

1. it ignores every block before the newest `compaction` block of the history (the
   client sends the whole history back, summary included; the API reads from the
   summary on);
2. when the input that is left reaches the edit's `trigger` (at least 50,000 input
   tokens; 150,000 when not given), it asks the same model for a summary of it (with the
   edit's `instructions` in place of its own prompt) and returns that summary as a
   `{"type": "compaction", "content": ...}` block at the start of the reply;
3. it answers from the compacted context, unless `pause_after_compaction` is set: then
   the reply holds the compaction block alone and stops with `stop_reason`
   "compaction", so the client may add content before it carries on.

The summary is a sampling step of its own and billed as such: `usage.iterations` lists
one entry per step (`"compaction"`, then `"message"`), and the top-level counts are the
reply's step alone.

`serve(body, respond, count)` does this on a request body, for any `respond` (request ->
answer) and `count` (request -> input tokens): the local Messages API in the tests uses
it, and `ServerCompactingModel` wraps any `Model` with it, so a lesson sees the API's
behaviour offline. How the summarized context is shown to the model is our guess: the
summary as a user message, followed by what came after the compaction block; the API does
not document its internal form. The summary prompt's wording is ours too (the API's own
is not published), and so is the top-level usage of a paused reply (zero input).

Left out: compaction inside a server-tool loop (more than one summary per request) and
the `context_management` report of applied edits.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .api_context import COMPACT
from .history import COMPACTION, Message, blocks
from .hooks import Feature
from .models.base import Model, Reply, Usage
from .summaries import render_transcript
from .vocab import PAUSED_AFTER_COMPACTION

if TYPE_CHECKING:
    from .run import Run

DEFAULT_TRIGGER = 150_000  # the API's trigger when the edit names none
PAUSED = PAUSED_AFTER_COMPACTION  # the stop reason of a reply paused after compacting
SUMMARY_MAX_TOKENS = 16_000  # the summary step's output cap (ours: the API states none)
SUMMARY_PROMPT = (
    "Summarize the conversation below so that you can continue the task from the summary "
    "alone: the goal, what was done, every identifier, file name and number found, and "
    "what is left to do."
)

Answer = dict[str, Any]  # {"content": [...], "stop_reason"?: str, "usage"?: {...}}


def compact_edit_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """The request's `compact_20260112` edit, if it has one."""
    edits = (body.get("context_management") or {}).get("edits") or []
    return next((e for e in edits if isinstance(e, dict) and e.get("type") == COMPACT), None)


def from_compaction(messages: list[Message]) -> tuple[list[Message], int]:
    """What the API reads of `messages`: from the newest compaction block on (its summary
    as a user message), and how many messages it ignored before it."""
    for n in range(len(messages) - 1, -1, -1):
        content = blocks(messages[n])
        at = next((k for k in range(len(content) - 1, -1, -1)
                   if content[k].get("type") == COMPACTION), None)
        if messages[n]["role"] != "assistant" or at is None:
            continue
        summary = {"role": "user", "content": [{"type": "text", "text": content[at]["content"]}]}
        rest = content[at + 1:]
        after = [{"role": "assistant", "content": rest}] if rest else []
        return [summary, *after, *messages[n + 1:]], n
    return list(messages), 0


def _summary_request(body: dict[str, Any], messages: list[Message], instructions: str | None,
                     resumed: bool) -> dict[str, Any]:
    """The summary step's request; a context that starts from an earlier summary
    (`resumed`) hands that summary over as the previous one, to be updated."""
    first = "\n".join(b["text"] for b in blocks(messages[0]) if b.get("type") == "text")
    opening = (f"<previous-summary>\n{first}\n</previous-summary>" if resumed
               else f"<task>\n{first}\n</task>")
    turns = render_transcript(messages[1:] if resumed else messages)
    prompt = (f"{instructions or SUMMARY_PROMPT}\n\n{opening}\n\n"
              f"<turns>\n{turns}\n</turns>")
    return {"model": body.get("model"), "max_tokens": SUMMARY_MAX_TOKENS,
            "messages": [{"role": "user", "content": prompt}]}


def _step(kind: str, answer: Answer, input_tokens: int) -> dict[str, Any]:
    usage = answer.get("usage") or {}
    return {"type": kind, "input_tokens": input_tokens,
            "output_tokens": int(usage.get("output_tokens") or 0)}


def serve(body: dict[str, Any], respond: Callable[[dict[str, Any]], Answer],
          count: Callable[[dict[str, Any]], int]) -> tuple[dict[str, Any], Answer, list[dict]]:
    """(the request as the model answers it, the answer, the usage iterations) for `body`
    with server-side compaction; the iterations are empty when nothing was compacted."""
    view, ignored = from_compaction(body["messages"])
    seen = {**body, "messages": view}
    edit = compact_edit_of(body)
    trigger = (edit or {}).get("trigger", {}).get("value", DEFAULT_TRIGGER)
    if edit is None or count(seen) < trigger:
        return seen, respond(seen), []
    asked = _summary_request(body, view, edit.get("instructions"), resumed=ignored > 0)
    summary_answer = respond(asked)
    summary = "".join(b.get("text", "") for b in summary_answer.get("content") or []
                      if b.get("type") == "text")
    block = {"type": COMPACTION, "content": summary}
    steps = [_step("compaction", summary_answer, count(seen))]
    if edit.get("pause_after_compaction"):
        return seen, {"content": [block], "stop_reason": PAUSED,
                      "usage": {"output_tokens": steps[0]["output_tokens"]}}, steps
    compacted = {**body, "messages": [{"role": "user", "content": [
        {"type": "text", "text": summary}]}]}
    answer = respond(compacted)
    steps.append(_step("message", answer, count(compacted)))
    return compacted, {**answer, "content": [block, *copy.deepcopy(answer["content"])]}, steps


class ServerCompactingModel:
    """A `Model` that behaves as the API does with `compact_20260112` among `edits`: it
    drops what comes before a compaction block and compacts past the trigger (`serve`)."""

    def __init__(self, model: Model, edits: list[dict[str, Any]], counter: Any = None):
        from .tokens import TokenCounter

        self.model, self.edits = model, list(edits)
        self.counter = counter or TokenCounter()
        self.name = f"{getattr(model, 'name', 'model')}+server-compaction"

    def create(self, *, system: str, messages: list[Message], tools: list[dict[str, Any]],
               max_tokens: int, cache: bool | None = None) -> Reply:
        body = {"system": system, "messages": messages, "tools": tools,
                "max_tokens": max_tokens, "context_management": {"edits": self.edits}}
        replies: list[Reply] = []

        def respond(request: dict[str, Any]) -> Answer:
            reply = self.model.create(system=request.get("system", ""),
                                      messages=request["messages"],
                                      tools=request.get("tools", []),
                                      max_tokens=request["max_tokens"], cache=cache)
            replies.append(reply)
            return {"content": reply.content, "stop_reason": reply.stop_reason,
                    "usage": reply.usage.to_dict()}

        def count(request: dict[str, Any]) -> int:
            return self.counter.count(request["messages"], request.get("system", ""),
                                      request.get("tools", []))

        _, answer, steps = serve(body, respond, count)
        last = replies[-1]
        paused = answer.get("stop_reason") == PAUSED
        usage = Usage(output_tokens=steps[0]["output_tokens"]) if paused else Usage(
            **{k: v for k, v in last.usage.to_dict().items() if k != "iterations"})
        usage.iterations = steps
        return Reply(answer["content"], answer.get("stop_reason") or last.stop_reason, usage,
                     last.model)


class JoinPaused(Feature):
    """After the API paused a reply once it compacted (a message of `compaction` blocks
    alone, sent back as the turn's start), the next reply continues that turn: it is
    joined to it in the live context and the transcript; the store keeps the wire (the
    pause, then the rest)."""

    def after_reply(self, run: Run, reply: Reply, sent: int) -> bool:
        last = run.messages[-1] if run.messages else None
        if not last or last["role"] != "assistant" or not all(
                b.get("type") == COMPACTION for b in blocks(last)):
            return False
        joined = {"role": "assistant", "content": [*blocks(last), *reply.as_message()["content"]]}
        run.messages[-1] = joined
        if run.transcript and run.transcript[-1] is last:
            run.transcript[-1] = joined
        run.tally = None
        return True
