"""On-demand server compaction: the API writes the summary, we choose what it covers.

The documented on-demand recipe (beta `compact-2026-09-04`; docs pages
build-with-claude/compaction-on-demand and compaction-background), as a strategy:

1. choose the cut: the newest turns are kept verbatim (`SummarizeMiddle`'s tail, sized by
   `tail_tokens`), and the cut falls in front of an assistant message, so every tool call
   before it has its result before it (the API refuses a compaction request that ends on
   an unanswered call);
2. send everything before the cut as a compaction request (top-level `compaction:
   {"type": "summarize", "instructions"?}`), with `api.compact(...)`: an `AnthropicModel`
   asks the real API; without one, `ServerCompactingModel` emulates it offline around the
   agent's summarizer, given this library's summary template as the instructions when
   the strategy has none (the API's own prompt is not published);
3. put the returned block first, as the API requires, then the task again (the first
   user message, verbatim: this library keeps the task in view, and a user turn must come
   between the block and a kept assistant turn), then the kept turns.

The block comes back alone with `stop_reason` "compaction"; its cost is only in
`usage.iterations`, kept in the `Compaction`'s `iterations` for pricing
(`pricing.dollars`). A block with `content: null` is the documented failed compaction:
the history is left as it was and the note says so, so the agent tries again later.

The background variant (docs page build-with-claude/compaction-background) is
`swap_in()`: the compaction request goes out with the history as it stands, the
conversation goes on with the full history meanwhile, and when the block arrives exactly
the messages the request held are replaced by it; every turn added since stays after it.

Left out: running the background variant inside the agent loop, and the tool
definitions when none are given: each tool the history calls is then described by its
name alone (ours; the API needs definitions for a history with tool blocks).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..history import COMPACTION, Message, blocks, opens_with_compaction
from ..summaries import instructions_text, without_summaries
from ..tokens import TokenCounter
from .base import Compaction, Summarizer, measure, require_summarizer, shrunk, unchanged
from .summarize import SummarizeMiddle


@dataclass(frozen=True)
class ServerSummarize:
    summarizer: Summarizer | None = None  # the emulated API's model, when `api` is None
    api: Any = None  # has `compact(system=, messages=, tools=, instructions=) -> Reply`
    instructions: str = ""  # replaces the API's summary prompt (empty: the API's own)
    tail_tokens: int = 2_000
    tools: tuple[dict[str, Any], ...] = ()  # the request's tool definitions
    name: str = "server-summarize"

    def __call__(self, messages: Sequence[Message], *, goal: int,
                 counter: TokenCounter) -> Compaction:
        before = measure(messages, counter)
        cut = self.cut(messages, goal, counter)
        first = 1 if opens_with_compaction(messages) else 0  # the task's message
        if cut <= first + 1:
            return unchanged(self.name, messages, before, "nothing before the kept turns")
        sent = list(messages[:cut])
        offline = instructions_text() if self.api is None else None  # our template
        instructions = self.instructions or offline
        reply = self._api(counter).compact(system="", messages=sent, tools=self._tools(sent),
                                           instructions=instructions)
        block = next((b for b in reply.content if b.get("type") == COMPACTION), None)
        if block is None or block.get("content") is None:
            return unchanged(self.name, messages, before,
                             f"the API's compaction failed (stop reason {reply.stop_reason}, "
                             "content null); history unchanged, retry next turn")
        task = without_summaries(messages[first])
        out = [{"role": "assistant", "content": [block]}, task, *messages[cut:]]
        result = shrunk(self.name, messages, before, out, counter, dropped=cut - 1,
                        summary=block["content"], summary_prompt=instructions)
        result.iterations = list(reply.usage.iterations)
        return result

    def cut(self, messages: Sequence[Message], goal: int, counter: TokenCounter) -> int:
        """Where the kept turns start: in front of an assistant message (no call open)."""
        return SummarizeMiddle(protect_first=1, tail_tokens=self.tail_tokens).boundaries(
            messages, goal, counter)[1]

    def _api(self, counter: TokenCounter) -> Any:
        if self.api is not None:
            return self.api
        from ..server_compaction import ServerCompactingModel, SummarizingModel

        return ServerCompactingModel(SummarizingModel(require_summarizer(self), counter),
                                     counter=counter)

    def _tools(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        if self.tools:
            return list(self.tools)
        names = dict.fromkeys(b["name"] for m in messages for b in blocks(m)
                              if b.get("type") == "tool_use")
        return [{"name": n, "description": f"the agent's {n} tool",
                 "input_schema": {"type": "object"}} for n in names]


def swap_in(history: Sequence[Message], sent: int, reply: Any) -> list[Message]:
    """`history` with its first `sent` messages (what the compaction request held)
    replaced by the reply's `compaction` block, or unchanged when no summary came back
    (another stop reason, or `content: null`): then the full history stays."""
    block = next((b for b in reply.content if b.get("type") == COMPACTION), None)
    if reply.stop_reason != "compaction" or block is None or block.get("content") is None:
        return list(history)
    return [{"role": "assistant", "content": [block]}, *history[sent:]]
