"""Who writes the summary: a cheap auxiliary call, or the agent's own model.

A strategy only needs `summarizer(prompt) -> str`. The agent builds one of two kinds:
- `"aux"`: a separate, minimal request: a short system prompt of its
  own, no tools, just the summary prompt. Pass a cheaper `Model` to use a smaller model.
- `"same"`: the agent's own model with the *same* system prompt and tool
  definitions and prompt caching on, so that long stable prefix is read from the cache.
  If the model answers with a tool call instead of text, the summary is empty and the
  strategy leaves the history alone for this turn.
Every call's usage goes to the list the agent passes (`Run.summary_usage`), so runs
report what summaries cost.

Left out: replaying the agent's message history itself as the cached prefix; the prefix
shared here is the system prompt and the tools.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .models.base import Model, Usage

SUMMARIZER_SYSTEM = "You write faithful, structured summaries of an agent's work."
SUMMARY_MAX_TOKENS = 1024


def make_summarizer(spec: str | Model | Callable[[str], str], *, model: Model, system: str,
                    tools: list[dict[str, Any]], usage: list[Usage]) -> Callable[[str], str]:
    """The `summarizer(prompt) -> str` for `spec`: "aux", "same", a Model or a callable.

    `model`, `system` and `tools` are the agent's own (used by "same", and `model` by
    "aux"); each summary call's usage is appended to `usage`.
    """
    if spec == "same":
        return lambda prompt: _ask(model, usage, system=system, tools=tools, prompt=prompt,
                                   cache=True)
    if spec == "aux" or isinstance(spec, Model):
        writer = model if spec == "aux" else spec
        return lambda prompt: _ask(writer, usage, system=SUMMARIZER_SYSTEM, tools=[],
                                   prompt=prompt, cache=False)
    if callable(spec):
        return spec
    raise ValueError(f"summarizer must be 'aux', 'same', a Model or a callable, not {spec!r}")


def _ask(model: Model, usage: list[Usage], *, system: str, tools: list[dict[str, Any]],
         prompt: str, cache: bool) -> str:
    reply = model.create(system=system, tools=tools, max_tokens=SUMMARY_MAX_TOKENS, cache=cache,
                         messages=[{"role": "user", "content": prompt}])
    usage.append(reply.usage)
    return reply.text
