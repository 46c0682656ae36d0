"""Who writes the summary: a cheap auxiliary call, or the agent's own model.

A strategy only needs `summarizer(prompt) -> str`. The agent builds one of two kinds:
- `"aux"`: a separate, minimal request: a short system prompt of its own, no tools, and
  the whole summary prompt (instructions plus a transcript of the turns). Pass a cheaper
  `Model` to use a smaller model.
- `"same"` (seed 002): the summary request is appended, as a text block, to the last user
  message of the agent's live history and sent with the agent's *same* system prompt and
  tool definitions, prompt caching on. The request is a prefix the previous call already
  sent (system, tools, the conversation so far) plus a few new tokens, so that prefix is
  read from the cache. It carries only the instructions: the sections, the previous
  summary and which messages to cover (`summary_prompt(..., cover=...)`), never a second
  copy of the transcript. It is skipped (no call, no summary) while the last assistant
  turn has a tool call without its result; and if the model answers with a tool call
  instead of text, the summary is empty. Either way the strategy leaves the history alone
  and the agent tries again next turn.
Every call's usage goes to the list the agent passes (`Run.summary_usage`), so runs
report what summaries cost. A summary call that raises is re-raised as `SummaryFailed`
by the agent's wrapper, the one failure a compaction answers by trimming instead; any
other exception out of a strategy is a bug in it and ends the run (status "failed").

Left out: chunked prompts whose turn had to be cut to fit (`summary_call.py`, a text cut
short) cannot be located in the history, so the "same" summarizer refuses them; a history the model
already refused as too long is longer still with the request appended, so that call
fails too (the agent trims instead in both cases); and the compaction's record keeps the
self-contained prompt, which the appended request stands for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .history import Message, blocks, tool_result_ids, tool_use_ids
from .models.base import Model, Usage
from .summaries import built_from, summary_prompt

SUMMARIZER_SYSTEM = "You write faithful, structured summaries of an agent's work."
SUMMARY_MAX_TOKENS = 1024


class SummaryFailed(Exception):
    """A summary call failed (its cause is `__cause__`) or may not be made now."""

    @property
    def reason(self) -> BaseException:
        """What to report: the summary call's own exception, else this one."""
        return self.__cause__ or self


def make_summarizer(spec: str | Model | Callable[[str], str], *, model: Model, system: str,
                    tools: list[dict[str, Any]], usage: list[Usage],
                    history: Callable[[], Sequence[Message]] | None = None
                    ) -> Callable[[str], str]:
    """The `summarizer(prompt) -> str` for `spec`: "aux", "same", a Model or a callable.

    `model`, `system` and `tools` are the agent's own (used by "same", and `model` by
    "aux"); `history()` returns the agent's live messages ("same" appends to them); each
    summary call's usage is appended to `usage`.
    """
    if spec == "same":
        if history is None:
            raise ValueError("the 'same' summarizer needs history=, the agent's live messages")
        return lambda prompt: _ask_in_history(model, usage, system=system, tools=tools,
                                              history=list(history()), prompt=prompt)
    if spec == "aux" or isinstance(spec, Model):
        writer = model if spec == "aux" else spec
        return lambda prompt: _ask(writer, usage, system=SUMMARIZER_SYSTEM, tools=[],
                                   messages=[{"role": "user", "content": prompt}], cache=False)
    if callable(spec):
        return spec
    raise ValueError(f"summarizer must be 'aux', 'same', a Model or a callable, not {spec!r}")


def _ask(model: Model, usage: list[Usage], *, system: str, tools: list[dict[str, Any]],
         messages: list[Message], cache: bool) -> str:
    """The reply's text ("" when it calls a tool instead); its usage goes to `usage`."""
    reply = model.create(system=system, tools=tools, max_tokens=SUMMARY_MAX_TOKENS, cache=cache,
                         messages=messages)
    usage.append(reply.usage)
    return "" if reply.tool_uses else reply.text


def _ask_in_history(model: Model, usage: list[Usage], *, system: str,
                    tools: list[dict[str, Any]], history: list[Message], prompt: str) -> str:
    if open_tool_call(history):
        return ""
    return _ask(model, usage, system=system, tools=tools, cache=True,
                messages=with_request(history, instructions(prompt, history)))


def open_tool_call(history: Sequence[Message]) -> bool:
    """Whether the last assistant message has a tool call with no result after it."""
    for n in range(len(history) - 1, -1, -1):
        if history[n]["role"] == "assistant":
            answered = set(tool_result_ids(history[n + 1])) if n + 1 < len(history) else set()
            return not set(tool_use_ids(history[n])) <= answered
    return False


def instructions(prompt: str, history: Sequence[Message]) -> str:
    """What to append for `prompt`: for a prompt `summaries.build_prompt` built, its
    instructions with the messages it covers named by number; any other text is appended
    as it is."""
    made = built_from(prompt)
    if made is None:
        return prompt
    start = _find(history, made.middle)
    if start is None:
        raise ValueError("the turns to summarize are not in the agent's history as they are "
                         "(a turn was cut to fit); use the 'aux' summarizer for such turns")
    return summary_prompt(made.middle, made.previous, made.goal, made.focus,
                          cover=(start + 1, start + len(made.middle))).text


def _find(history: Sequence[Message], part: Sequence[Message]) -> int | None:
    """The index where `part` sits in `history` as a run of the same messages, or None.

    "The same" is by `_shape`: a layer that ran before the summarizing one (clearing, in
    `Progressive`) may have replaced tool results or inputs in `part`; the history holds
    them as the model was sent them, and that is what it summarizes."""
    shapes = [_shape(m) for m in part]
    for start in range(len(history) - len(part) + 1):
        if all(_shape(m) == s for m, s in zip(history[start:], shapes, strict=False)):
            return start
    return None


def _shape(message: Message) -> tuple:
    """A message's role, texts and tool-call ids: what clearing leaves as it was."""
    return message["role"], tuple(
        (b.get("type"), b.get("text") or b.get("id") or b.get("tool_use_id"))
        for b in blocks(message))


def with_request(history: Sequence[Message], request: str) -> list[Message]:
    """`history` with `request` as a text block at the end of its last user message (a new
    user message when the history ends with the assistant's text)."""
    ask = {"type": "text", "text": request}
    if history and history[-1]["role"] == "user":
        return [*history[:-1], {**history[-1], "content": [*blocks(history[-1]), ask]}]
    return [*history, {"role": "user", "content": [ask]}]
