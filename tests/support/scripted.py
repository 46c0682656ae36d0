"""A model that plays fixed replies, for tests of the loop's edges.

`Scripted([reply, error, reply])` answers each call with the next reply, raises an
exception placed in the script, and keeps every request it was sent (`requests`).
Left out: anything computed from the request (the simulated model does that).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from jupyter_compaction.models.base import Reply


class Scripted:
    """Replies (or exceptions to raise) in order, one per call."""

    name = "scripted"

    def __init__(self, replies: Iterable[Reply | BaseException]):
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []

    def create(self, **request: Any) -> Reply:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        return reply
