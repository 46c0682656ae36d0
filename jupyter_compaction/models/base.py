"""What every model looks like to the agent: one `create()` call, Anthropic-shaped replies.

A model takes a request (system prompt, messages, tool schemas, an output cap) and
returns a `Reply` whose content blocks, `stop_reason` and `usage` have the shapes of the
Anthropic Messages API. The agent loop, the summarizers and the benchmarks only ever see
this protocol, so the simulated model and the real Claude model are interchangeable.

Left out: streaming, images, thinking blocks and stop sequences; none of them change
what compaction has to do.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass
class Usage:
    """Token usage of one call, field for field as the Anthropic SDK reports it."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    # With server-side compaction the API bills each sampling step on its own: these are
    # the steps ({"type": "compaction" or "message", "input_tokens": ...}); the fields
    # above are the "message" step's alone. Empty when the call had one step.
    iterations: list[dict[str, Any]] = field(default_factory=list)

    @property
    def total_input(self) -> int:
        """Every input token the call carried, cached or not."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    @property
    def billed_input(self) -> int:
        """The input tokens of every step the call was billed for: with `iterations`, their
        sum (a server compaction's summary step included), else `total_input`."""
        if not self.iterations:
            return self.total_input
        return sum(int(step.get(key) or 0) for step in self.iterations for key in (
            "input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if not self.iterations:
            del out["iterations"]
        return out


@dataclass
class Reply:
    """A model's answer: Anthropic content blocks (plain dicts) plus why it stopped."""

    content: list[dict[str, Any]]
    stop_reason: str = "end_turn"
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    @property
    def text(self) -> str:
        """All text blocks joined; empty when the reply only calls tools."""
        return "".join(b["text"] for b in self.content if b.get("type") == "text")

    @property
    def tool_uses(self) -> list[dict[str, Any]]:
        return [b for b in self.content if b.get("type") == "tool_use"]

    def as_message(self) -> dict[str, Any]:
        """The reply as an assistant message for the history."""
        return {"role": "assistant", "content": [dict(b) for b in self.content]}


@runtime_checkable
class Model(Protocol):
    """Anything that can answer a Messages-API request."""

    name: str

    def create(
        self,
        *,
        system: str,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        max_tokens: int,
        cache: bool | None = None,
    ) -> Reply:
        """Answer one request. `cache=True` asks for the stable prefix to be cached,
        `False` for no caching, None (the default) for the model's own setting."""
        ...
