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
3. before the next request, they are appended, counted and recorded, unless an identical
   system message is still in view (after the newest compaction block with content,
   which is where the API starts reading). A system message may only follow a user
   message: after a tool round there is one; after a reply the API paused once it
   compacted (`paused.py`), a user turn saying to go on (`GO_ON`) is added first, so the
   reply that continues, which may be the answer, is written with the instructions in
   view. With `restate` off, only step 1 happens.

Left out: choosing which of several instructions to restate (all of `standing_instructions` is
one message), `clear_at` (the message stays until a compaction removes it), and the
API's compaction without a pause: the reply it compacted in is written from the summary
alone, so when that reply is the answer it is written without the instructions (a
pause, `pause_after_compaction`, is what lets them in).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .history import COMPACTION, SYSTEM, Message
from .hooks import Feature, Stop
from .models.base import Reply
from .paused import is_paused
from .server_compaction import newest_summary

GO_ON = "Continue the task."  # the user turn after a paused compaction (ours)

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
        last = run.messages[-1] if run.messages else None
        paused = is_paused(last)
        if not run.restate_due or not last or not (paused or last["role"] == "user"):
            return None  # 3. only where a user message is, or may be added
        run.restate_due = False
        message = {"role": SYSTEM, "content": self.text}
        if message in in_view(run.messages):
            return None
        if paused:  # a user turn after the pause, for the system message to follow
            self._add(run, {"role": "user", "content": GO_ON})
        self._add(run, message)
        return None

    def _add(self, run: Run, message: Message) -> None:
        run.add(message)
        for feature in self.features:
            feature.on_message(run, message)
