"""`ReplayTurn`: one model call of a replayed session, as `replay.py` reports it.

A module of its own, holding nothing else, so that a sandboxed grading worker can rebuild
the turns an exercise passes (`grading/codec.py`) without importing the replay and its
strategies. `replay.py` re-exports it.

Left out: how the numbers are computed (`replay.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ReplayTurn:
    """One model call of the session."""

    turn: int
    segment: int
    messages: int  # messages the session sent with this call
    local: int  # their local token count
    reported: int | None  # input tokens the API reported (system prompt and tools included)
    replayed: int  # local tokens of the strategy's context at this call, after compaction
    session_compacted: bool = False  # the session's own compaction happened right before
    parts: dict[str, int] = field(default_factory=dict)  # `replayed` by chart part
