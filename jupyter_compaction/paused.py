"""A reply the API paused after compacting, and the reply that continues it, as one turn.

With `pause_after_compaction`, the Messages API answers a request that reached its
compaction trigger with the `compaction` block alone (`stop_reason` "compaction",
`server_compaction.py`); the client sends the request again, and the next reply carries
on from the summary. `JoinPaused` joins the two in the live context and the transcript,
so the history keeps one assistant message per turn; the session store keeps what went
over the wire (the pause, then the rest).

Content may be added between the pause and the next request, as the documentation
allows: with standing instructions due again, `restate.py` adds a user turn after the
block and restates them after it (a system message may only follow a user message), so
the reply that continues is written with them; that reply is then a turn of its own.

Left out: adding anything else there (the documented "preserve recent messages" recipe:
the summary here covers every message before the block).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .history import COMPACTION, Message, blocks
from .hooks import Feature

if TYPE_CHECKING:
    from .models.base import Reply
    from .run import Run


def is_paused(message: Message | None) -> bool:
    """Whether `message` is a reply the API paused after compacting: an assistant message
    of `compaction` blocks alone."""
    content = blocks(message) if message else []
    return bool(content) and message["role"] == "assistant" and all(
        b.get("type") == COMPACTION for b in content)


class JoinPaused(Feature):
    """After the API paused a reply once it compacted (a message of `compaction` blocks
    alone, sent back as the turn's start), the next reply continues that turn: it is
    joined to it in the live context and the transcript; the store keeps the wire (the
    pause, then the rest)."""

    def after_reply(self, run: Run, reply: Reply, sent: int) -> bool:
        last = run.messages[-1] if run.messages else None
        if not is_paused(last):
            return False
        joined = {"role": "assistant", "content": [*blocks(last), *reply.as_message()["content"]]}
        run.messages[-1] = joined
        if run.transcript and run.transcript[-1] is last:
            run.transcript[-1] = joined
        run.tally = None
        return True
