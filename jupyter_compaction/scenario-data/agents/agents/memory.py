"""Short-term memory for a chat agent: a window of recent turns plus pinned messages.

The first user message (the task) is pinned and always sent. After it, only the newest
turns that fit in ``max_chars`` are kept; older turns are dropped whole, never cut in
half, so a tool call is never separated from its result.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]


def message_chars(message: Message) -> int:
    content = message.get("content", "")
    if isinstance(content, str):
        return len(content)
    total = 0
    for block in content:
        for key in ("text", "content", "input"):
            if key in block:
                total += len(str(block[key]))
    return total


@dataclass
class Turn:
    """One user message and everything the assistant did in reply."""

    messages: list[Message] = field(default_factory=list)

    @property
    def chars(self) -> int:
        return sum(message_chars(m) for m in self.messages)


class ConversationMemory:
    """Keeps the pinned head and as many recent whole turns as fit the budget."""

    def __init__(self, max_chars: int = 60_000) -> None:
        self.max_chars = max_chars
        self.pinned: list[Message] = []
        self.turns: deque[Turn] = deque()
        self.dropped_turns = 0

    def add(self, message: Message) -> None:
        if not self.pinned and message["role"] == "user":
            self.pinned.append(message)
            return
        starts_turn = message["role"] == "user" and not _is_tool_result(message)
        if starts_turn or not self.turns:
            self.turns.append(Turn())
        self.turns[-1].messages.append(message)
        self._shrink()

    def _shrink(self) -> None:
        budget = self.max_chars - sum(message_chars(m) for m in self.pinned)
        while len(self.turns) > 1 and sum(t.chars for t in self.turns) > budget:
            self.turns.popleft()
            self.dropped_turns += 1

    def messages(self) -> list[Message]:
        """What to send: pinned messages, a note about dropped turns, then recent turns."""
        out = list(self.pinned)
        if self.dropped_turns:
            note = f"[{self.dropped_turns} earlier turns were dropped to save space]"
            out.append({"role": "assistant", "content": note})
        for turn in self.turns:
            out.extend(turn.messages)
        return out

    def __iter__(self) -> Iterator[Message]:
        return iter(self.messages())

    def __len__(self) -> int:
        return len(self.pinned) + sum(len(t.messages) for t in self.turns)

    def stats(self) -> dict[str, int]:
        return {
            "pinned": len(self.pinned),
            "turns": len(self.turns),
            "dropped_turns": self.dropped_turns,
            "chars": sum(t.chars for t in self.turns),
        }


def _is_tool_result(message: Message) -> bool:
    content = message.get("content")
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)
