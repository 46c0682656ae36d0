"""Compaction strategies, one module each, and the registry of their names.

`STRATEGIES` maps the names the magics and widgets use to default instances; the
summarizing ones get their summarizer from the agent (`configure()`). `FunctionStrategy`
turns a plain function `(messages, goal, counter) -> messages` into a strategy.
"""

from .base import (
    Compaction,
    CompressionStuck,
    NoCompaction,
    Strategy,
    Summarizer,
    check_counter,
    check_stuck,
    configure,
)
from .clear import PLACEHOLDER, ClearToolResults
from .compact import CompactAll
from .function import FunctionFailed, FunctionStrategy
from .progressive import Progressive
from .server_summarize import ServerSummarize
from .summarize import SummarizeMiddle
from .trim import TrimTurns

STRATEGIES = {
    "off": NoCompaction(),
    "clear": ClearToolResults(),
    "trim": TrimTurns(),
    "summarize": SummarizeMiddle(),
    "compact": CompactAll(),
    "progressive": Progressive(),
    "server-summarize": ServerSummarize(),
}


def get(name: str) -> Strategy:
    """The default strategy called `name`; a one-line error lists the valid names."""
    try:
        return STRATEGIES[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown strategy {name!r}; choose one of: {', '.join(STRATEGIES)}"
        ) from None


__all__ = [
    "PLACEHOLDER", "STRATEGIES", "ClearToolResults", "CompactAll", "Compaction",
    "CompressionStuck", "FunctionFailed", "FunctionStrategy", "NoCompaction", "Progressive",
    "ServerSummarize", "Strategy", "SummarizeMiddle", "Summarizer", "TrimTurns",
    "check_counter", "check_stuck", "configure", "get",
]
