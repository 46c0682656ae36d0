"""Server-side compaction as the Messages API documents it, emulated: at a threshold
(`compact_20260112`) and on demand (the top-level `compaction` parameter).

At a threshold, with the edit in a request's `context_management`, the API works in
three steps:

1. it ignores every block before the newest `compaction` block of the history (the
   client sends the whole history back, summary included; the API reads from the
   summary on); a block whose `content` is null (a compaction that failed) is a no-op;
2. when the input that is left reaches the edit's `trigger` (at least 50,000 input
   tokens; 150,000 when not given), it asks the same model for a summary of it (with the
   edit's `instructions` in place of its own prompt) and returns that summary as a
   `compaction` block at the start of the reply;
3. it answers from the compacted context, unless `pause_after_compaction` is set: then
   the reply holds the compaction block alone and stops with `stop_reason`
   "compaction", so the client may add content before it carries on.

On demand (beta `compact-2026-09-04`), a request with `"compaction": {"type":
"summarize", "instructions"?: ...}` is answered by one `compaction` block alone, with
`stop_reason` "compaction"; the caller puts it first in `messages`, in place of the
messages it summarized. Its cost is only in `usage.iterations` (the SDK's
`BetaIterationsUsage`: a compaction step's tokens are not in the top-level counts).

Every block carries a `signature` over its `content`, `encrypted_content` and
`tool_changes`, to be sent back verbatim; a block that comes back changed is refused
with the SDK's error codes (`refusal()`), as are a misplaced block, two blocks with
content in an on-demand history, a compaction request with nothing to summarize or
ending on an unanswered tool call, and `compaction` combined with `context_management`.
A summary step that answers with no text (it tried to call a tool) gives `content: null`,
the documented result of a failed compaction.

The summary is a sampling step of its own and billed as such: `usage.iterations` lists
one entry per step (`"compaction"`, then `"message"`).

`serve(body, respond, count)` does this on a request body, for any `respond` (request ->
answer) and `count` (request -> input tokens): the local Messages API in the tests uses
it, and `ServerCompactingModel` wraps any `Model` with it, so a lesson sees the API's
behaviour offline. What is ours, not the API's (none of it is published): how the
summarized context is shown to the model (the summary as a user message, followed by
what came after the block), the summary prompt's wording, the signature scheme (an HMAC
with a local key), what `encrypted_content` holds (the number of messages summarized),
`tool_changes` always `[]` (no tool ever changes here), and the top-level usage of a
paused reply (zero input).

Left out: compaction inside a server-tool loop (more than one summary per request), the
`context_management` report of applied edits, and the `compaction_too_many_tool_references`
and `compaction_unavailable` errors.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
from collections.abc import Callable
from typing import Any

from .history import COMPACTION, Message, blocks
from .models.base import Model, Reply, Usage
from .summaries import render_transcript
from .vocab import COMPACT, PAUSED_AFTER_COMPACTION, SUMMARIZE

DEFAULT_TRIGGER = 150_000  # the API's trigger when the edit names none
PAUSED = PAUSED_AFTER_COMPACTION  # the stop reason of a reply paused after compacting
SUMMARY_MAX_TOKENS = 16_000  # the summary step's output cap (ours: the API states none)
SUMMARY_PROMPT = (
    "Summarize the conversation below so that you can continue the task from the summary "
    "alone: the goal, what was done, every identifier, file name and number found, and "
    "what is left to do."
)
# The SDK's error codes (`anthropic.types.compaction_*_error`), answered as 400s.
SIGNATURE_INVALID = "compaction_signature_invalid"
CONTENT_MISMATCH = "compaction_content_mismatch"
TOOL_CHANGES_MISMATCH = "compaction_tool_changes_mismatch"
MISPLACED = "compaction_block_misplaced"
AMBIGUOUS = "compaction_block_ambiguous"
NOTHING_TO_SUMMARIZE = "compaction_nothing_to_summarize"
INCOMPLETE_TURN = "compaction_incomplete_turn"
_SIGNING_KEY = b"jupyter-compaction emulator"  # ours: the API's scheme is not published

Answer = dict[str, Any]  # {"content": [...], "stop_reason"?: str, "usage"?: {...}}


class CompactionRefused(ValueError):
    """A request the API answers with a 400; `.code` is the SDK's `error_code` (None for
    a plain `invalid_request_error`)."""

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.code = code


# -- the block's signature ------------------------------------------------------------------


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True).encode()).hexdigest()[:24]


def _mac(text: str) -> str:
    return hmac.new(_SIGNING_KEY, text.encode(), hashlib.sha256).hexdigest()[:32]


_SIGNED = {"content": CONTENT_MISMATCH, "tool_changes": TOOL_CHANGES_MISMATCH,
           "encrypted_content": SIGNATURE_INVALID}  # each signed field, and its error


def signed(block: dict[str, Any]) -> dict[str, Any]:
    """`block` with a `signature` recording digests of its signed fields."""
    record = {name: _digest(block.get(name)) for name in _SIGNED}
    text = base64.urlsafe_b64encode(json.dumps(record, sort_keys=True).encode()).decode()
    return {**block, "signature": f"{text}.{_mac(text)}"}


def signature_problem(block: dict[str, Any]) -> tuple[str, str] | None:
    """(error code, message) when `block` did not come back as it was returned."""
    text, _, mac = str(block.get("signature") or "").rpartition(".")
    if not text or not hmac.compare_digest(mac, _mac(text)):
        return SIGNATURE_INVALID, "the compaction block's signature does not verify"
    record = json.loads(base64.urlsafe_b64decode(text.encode()))
    for name, code in _SIGNED.items():
        if record.get(name) != _digest(block.get(name)):
            return code, f"the compaction block's {name} differs from what its signature recorded"
    return None


def new_block(summary: str | None, summarized: int) -> dict[str, Any]:
    """A signed compaction block; `summary` None (or empty) records a failed compaction."""
    opaque = base64.b64encode(json.dumps({"summarized": summarized}).encode()).decode()
    return signed({"type": COMPACTION, "content": summary or None,
                   "encrypted_content": opaque, "tool_changes": []})


# -- what the API refuses -------------------------------------------------------------------


def _compaction_blocks(messages: list[Message]):
    for i, message in enumerate(messages):
        content = message.get("content")
        for k, block in enumerate(content if isinstance(content, list) else []):
            if isinstance(block, dict) and block.get("type") == COMPACTION:
                yield i, k, message, block


def refusal(body: dict[str, Any]) -> CompactionRefused | None:
    """The 400 the API answers for `body`'s compaction blocks and parameter, or None.

    With a threshold edit the blocks open assistant messages anywhere (the responses are
    appended as usual); without one a block must be the conversation's first block, with
    no second one holding content (on demand)."""
    threshold = compact_edit_of(body) is not None
    if "compaction" in body and "context_management" in body:
        return CompactionRefused("compaction: cannot be combined with context_management")
    with_content = 0
    for i, k, message, block in _compaction_blocks(body.get("messages") or []):
        with_content += block.get("content") is not None
        if with_content > 1 and not threshold:
            return CompactionRefused("messages: more than one compaction block with content; "
                                     "send only the newest", AMBIGUOUS)
        if message.get("role") != "assistant" or k or (i and not threshold):
            return CompactionRefused(f"messages.{i}.content.{k}: the compaction block must be "
                                     "the first block of the conversation", MISPLACED)
        problem = signature_problem(block)
        if problem:
            return CompactionRefused(f"messages.{i}.content.{k}: {problem[1]}", problem[0])
    return _request_refusal(body) if "compaction" in body else None


def _request_refusal(body: dict[str, Any]) -> CompactionRefused | None:
    """What is wrong with an on-demand compaction request itself."""
    config = body["compaction"]
    if not isinstance(config, dict) or config.get("type") != SUMMARIZE or set(config) - {
            "type", "instructions"}:
        return CompactionRefused("compaction: expected {'type': 'summarize', 'instructions'?}")
    messages = body.get("messages") or []
    if not any(block.get("type") != COMPACTION or block.get("content") is not None
               for m in messages for block in blocks(m)):
        return CompactionRefused("messages: nothing to summarize", NOTHING_TO_SUMMARIZE)
    last = messages[-1]
    if last["role"] == "assistant" and any(b.get("type") == "tool_use" for b in blocks(last)):
        return CompactionRefused("messages: the last assistant turn has an unanswered "
                                 "tool_use", INCOMPLETE_TURN)
    return None


# -- the emulation --------------------------------------------------------------------------


def compact_edit_of(body: dict[str, Any]) -> dict[str, Any] | None:
    """The request's `compact_20260112` edit, if it has one."""
    edits = (body.get("context_management") or {}).get("edits") or []
    return next((e for e in edits if isinstance(e, dict) and e.get("type") == COMPACT), None)


def newest_summary(messages: list[Message]) -> tuple[int, int] | None:
    """(message, block) of the newest compaction block with content; null ones are no-ops."""
    found = [(i, k) for i, k, _, block in _compaction_blocks(messages)
             if block.get("content") is not None]
    return found[-1] if found else None


def from_compaction(messages: list[Message]) -> tuple[list[Message], int]:
    """What the API reads of `messages`: from the newest compaction block on (its summary
    as a user message), and how many messages it ignored before it."""
    newest = newest_summary(messages)
    if newest is None:
        return list(messages), 0
    n, at = newest
    content = blocks(messages[n])
    summary = {"role": "user", "content": [{"type": "text", "text": content[at]["content"]}]}
    rest = [b for b in content[at + 1:] if b.get("type") != COMPACTION]
    after = [{"role": "assistant", "content": rest}] if rest else []
    return [summary, *after, *messages[n + 1:]], n


def _summary_request(body: dict[str, Any], messages: list[Message], instructions: str | None,
                     resumed: bool) -> dict[str, Any]:
    """The summary step's request; a context that starts from an earlier summary
    (`resumed`) hands that summary over as the previous one, to be updated."""
    first = "\n".join(b["text"] for b in blocks(messages[0]) if b.get("type") == "text")
    opening = (f"<previous-summary>\n{first}\n</previous-summary>" if resumed
               else f"<task>\n{first}\n</task>")
    turns = render_transcript(messages[1:] if resumed else messages)
    prompt = (f"{(instructions or '').strip() or SUMMARY_PROMPT}\n\n{opening}\n\n"
              f"<turns>\n{turns}\n</turns>")
    return {"model": body.get("model"), "max_tokens": SUMMARY_MAX_TOKENS,
            "messages": [{"role": "user", "content": prompt}]}


def _step(kind: str, answer: Answer, input_tokens: int) -> dict[str, Any]:
    usage = answer.get("usage") or {}
    return {"type": kind, "input_tokens": input_tokens,
            "output_tokens": int(usage.get("output_tokens") or 0)}


def _summarized(body: dict[str, Any], respond: Callable[[dict[str, Any]], Answer],
                count: Callable[[dict[str, Any]], int], instructions: str | None
                ) -> tuple[dict[str, Any], dict[str, Any], list[Message]]:
    """(the new block, the summary step's usage, the context it summarized) for `body`."""
    view, _ = from_compaction(body["messages"])
    resumed = newest_summary(body["messages"]) is not None
    answer = respond(_summary_request(body, view, instructions, resumed))
    summary = "".join(b.get("text", "") for b in answer.get("content") or []
                      if b.get("type") == "text")  # none when it tried to call a tool
    step = _step("compaction", answer, count({**body, "messages": view}))
    return new_block(summary, len(body["messages"])), step, view


def serve(body: dict[str, Any], respond: Callable[[dict[str, Any]], Answer],
          count: Callable[[dict[str, Any]], int]) -> tuple[dict[str, Any], Answer, list[dict]]:
    """(the request as the model answers it, the answer, the usage iterations) for `body`
    with server-side compaction; the iterations are empty when nothing was compacted.
    Raises `CompactionRefused` for what the API refuses."""
    refused = refusal(body)
    if refused:
        raise refused
    if "compaction" in body:  # on demand: the block alone, its cost only in iterations
        block, step, seen = _summarized(body, respond, count, body["compaction"].get(
            "instructions"))
        return {**body, "messages": seen}, {"content": [block], "stop_reason": PAUSED,
                                            "usage": {"output_tokens": 0}}, [step]
    view, _ = from_compaction(body["messages"])
    seen = {**body, "messages": view}
    edit = compact_edit_of(body)
    trigger = (edit or {}).get("trigger", {}).get("value", DEFAULT_TRIGGER)
    if edit is None or count(seen) < trigger:
        return seen, respond(seen), []
    block, step, _ = _summarized(body, respond, count, edit.get("instructions"))
    if edit.get("pause_after_compaction"):
        return seen, {"content": [block], "stop_reason": PAUSED,
                      "usage": {"output_tokens": step["output_tokens"]}}, [step]
    if block["content"] is None:  # a failed compaction: answer from the whole context
        answer = respond(seen)
        return seen, {**answer, "content": [block, *copy.deepcopy(answer["content"])]}, [
            step, _step("message", answer, count(seen))]
    compacted = {**body, "messages": [{"role": "user", "content": [
        {"type": "text", "text": block["content"]}]}]}
    answer = respond(compacted)
    return compacted, {**answer, "content": [block, *copy.deepcopy(answer["content"])]}, [
        step, _step("message", answer, count(compacted))]


class ServerCompactingModel:
    """A `Model` that behaves as the API does with `compact_20260112` among `edits`: it
    drops what comes before a compaction block and compacts past the trigger (`serve`);
    `compact()` answers an on-demand compaction request. With no `edits` it only reads
    histories that open with an on-demand block. `CompactionRefused` is its 400."""

    def __init__(self, model: Model, edits: list[dict[str, Any]] = (), counter: Any = None):
        from .tokens import TokenCounter

        self.model, self.edits = model, list(edits)
        self.counter = counter or TokenCounter()
        self.name = f"{getattr(model, 'name', 'model')}+server-compaction"

    def create(self, *, system: str, messages: list[Message], tools: list[dict[str, Any]],
               max_tokens: int, cache: bool | None = None) -> Reply:
        body = {"system": system, "messages": messages, "tools": tools,
                "max_tokens": max_tokens}
        if self.edits:
            body["context_management"] = {"edits": self.edits}
        return self._serve(body, cache)

    def compact(self, *, system: str, messages: list[Message], tools: list[dict[str, Any]],
                instructions: str | None = None, cache: bool | None = None) -> Reply:
        """The on-demand compaction of `messages`: a reply holding one `compaction` block
        (content null when the summary failed), stop reason "compaction", its cost in
        `usage.iterations` alone."""
        config = {"type": SUMMARIZE, **({"instructions": instructions} if instructions else {})}
        return self._serve({"system": system, "messages": messages, "tools": tools,
                            "max_tokens": SUMMARY_MAX_TOKENS, "compaction": config}, cache)

    def _serve(self, body: dict[str, Any], cache: bool | None) -> Reply:
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
        if answer.get("stop_reason") == PAUSED:  # the block alone: only its output is billed
            out = 0 if "compaction" in body else steps[0]["output_tokens"]
            usage = Usage(output_tokens=out)
        else:
            usage = Usage(**{k: v for k, v in last.usage.to_dict().items() if k != "iterations"})
        usage.iterations = steps
        return Reply(answer["content"], answer.get("stop_reason") or last.stop_reason, usage,
                     last.model)


class SummarizingModel:
    """A `Model` whose every answer is `summarizer(last user text)`: the model behind the
    emulated API when all there is offline is a strategy's summarizer. Its usage is counted
    with `counter` (input: the request's messages; output: the summary)."""

    name = "summarizer"

    def __init__(self, summarizer: Callable[[str], str], counter: Any):
        self.summarizer, self.counter = summarizer, counter

    def create(self, *, system: str, messages: list[Message], tools: list[dict[str, Any]],
               max_tokens: int, cache: bool | None = None) -> Reply:
        prompt = "\n".join(b.get("text", "") for b in blocks(messages[-1]))
        text = self.summarizer(prompt) or ""
        usage = Usage(input_tokens=self.counter.count(messages, system, tools),
                      output_tokens=self.counter.count_text(text))
        return Reply([{"type": "text", "text": text}] if text else [], "end_turn", usage,
                     self.name)
