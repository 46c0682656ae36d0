"""Who writes the summary: a cheap auxiliary call, or the agent's own model.

A strategy only needs `summarizer(prompt) -> str`. The agent builds one of two kinds:
- `"aux"` (seed 000's way): a separate, minimal request: a short system prompt of its
  own, no tools, just the summary prompt. Pass a cheaper `Model` to use a smaller model.
- `"same"` (seed 002's way): the agent's own model with the *same* system prompt and tool
  definitions and prompt caching on, so that long stable prefix is read from the cache.
  If the model answers with a tool call instead of text, the summary is empty and the
  strategy leaves the history alone for this turn.
Every call's usage is added to `Run.summary_usage`, so runs report what summaries cost.

Left out: replaying the agent's message history itself as the cached prefix; the prefix
shared here is the system prompt and the tools.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .models.base import Model

if TYPE_CHECKING:
    from .agent import Agent, Run

SUMMARIZER_SYSTEM = "You write faithful, structured summaries of an agent's work."
SUMMARY_MAX_TOKENS = 1024


def make_summarizer(spec: str | Model | Callable[[str], str], agent: Agent, run: Run
                    ) -> Callable[[str], str]:
    """The `summarizer(prompt) -> str` for `spec`: "aux", "same", a Model or a callable."""
    if spec == "same":
        def same(prompt: str) -> str:
            tools = agent._toolbox(run.task_state).schemas
            return _ask(agent.model, run, system=run.system, tools=tools, prompt=prompt,
                        cache=True)
        return same
    if spec == "aux" or isinstance(spec, Model):
        model = agent.model if spec == "aux" else spec

        def aux(prompt: str) -> str:
            return _ask(model, run, system=SUMMARIZER_SYSTEM, tools=[], prompt=prompt,
                        cache=False)
        return aux
    if callable(spec):
        return spec
    raise ValueError(f"summarizer must be 'aux', 'same', a Model or a callable, not {spec!r}")


def _ask(model: Model, run: Run, *, system: str, tools: list[dict[str, Any]], prompt: str,
         cache: bool) -> str:
    reply = model.create(system=system, tools=tools, max_tokens=SUMMARY_MAX_TOKENS, cache=cache,
                         messages=[{"role": "user", "content": prompt}])
    run.summary_usage.append(reply.usage)
    return reply.text
