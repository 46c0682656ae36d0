"""Instructions restated after a compaction, as a mid-conversation `system` message.

A compaction that summarizes a turn summarizes away the instructions stated in it: the
Messages API's documentation says so of system messages inside the summarized range,
and "my instructions were forgotten after compaction" is the most frequent complaint in
coding agents' issue trackers. The documented remedy is to send them again, as a
`{"role": "system"}` message after the next user turn. `Restate` does that with the
settings' `standing_instructions`:

1. at the start, they follow the task as a system message (the turn the task opens owns
   it, `history.turns`);
2. a compaction makes them due again: one of ours (`Feature.on_compacted`: the
   compactor's restore step has run), or the API's own (a reply carrying a `compaction`
   block, paused or not);
3. before the next request whose history ends with a user message (a system message may
   only follow one), they are appended, counted and recorded, unless an identical system
   message is still in view (after the newest compaction block with content, which is
   where the API starts reading); with `restate` off, only step 1 happens.

Left out: choosing which of several instructions to restate (all of `standing_instructions` is
one message), `clear_at` (the message stays until a compaction removes it), and the
reply that continues a paused compaction: no user message comes between the pause and
it, so when that reply is the answer, it is written without the instructions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .history import COMPACTION, SYSTEM, Message
from .hooks import Feature, Stop
from .models.base import Reply
from .server_compaction import newest_summary

if TYPE_CHECKING:
    from .run import Run


def in_view(messages: list[Message]) -> list[Message]:
    """The messages the API reads: from the one holding the newest compaction block with
    content on (`server_compaction.newest_summary`)."""
    newest = newest_summary(messages)
    return messages[newest[0]:] if newest else messages


class Restate(Feature):
    """States `text` after the task and (with `again`) after each compaction; `features`
    (the agent's) hear each message it adds, so the session store keeps it."""

    def __init__(self, text: str, again: bool, features: list[Feature]):
        self.text, self.again, self.features = text, again, features

    def start(self, run: Run) -> None:
        run.restate_due = True  # 1. after the task

    def on_compacted(self, run: Run) -> None:
        run.restate_due = run.restate_due or self.again  # 2. our own compaction

    def after_reply(self, run: Run, reply: Reply, sent: int) -> bool:
        if self.again and any(b.get("type") == COMPACTION for b in reply.content):
            run.restate_due = True  # 2. the API's compaction
        return False

    def before_request(self, run: Run, schemas: list[dict[str, Any]], overhead: int
                       ) -> Stop | None:
        if not run.restate_due or not run.messages or run.messages[-1]["role"] != "user":
            return None  # 3. only right after a user message
        run.restate_due = False
        message = {"role": SYSTEM, "content": self.text}
        if message in in_view(run.messages):
            return None
        run.add(message)
        for feature in self.features:
            feature.on_message(run, message)
        return None
