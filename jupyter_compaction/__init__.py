"""jupyter-compaction: learn how an LLM agent stays under its context budget.

The core (messages, tokens, strategies, task state, the agent loop and the models) is
plain Python; the Jupyter layer in `jupyter_compaction.jupyter` is loaded only by
`%load_ext jupyter_compaction`.
"""

from .evaluation import SummaryEval, dropped_facts, eval_summary
from .history import InvalidHistory, from_openai, to_openai, turns, validate
from .strategies import (
    STRATEGIES,
    ClearToolResults,
    CompactAll,
    Compaction,
    CompressionStuck,
    NoCompaction,
    Progressive,
    SummarizeMiddle,
    TrimTurns,
)
from .task_state import TaskState, Todo
from .tokens import TokenCounter, estimate_tokens

__version__ = "0.1.0"


def load_ipython_extension(ipython) -> None:
    """`%load_ext jupyter_compaction`: register the magics (imports the Jupyter layer)."""
    from .jupyter import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython) -> None:
    from .jupyter import unload_ipython_extension as unload

    unload(ipython)


__all__ = [
    "STRATEGIES", "ClearToolResults", "CompactAll", "Compaction", "CompressionStuck",
    "InvalidHistory", "NoCompaction", "Progressive", "SummarizeMiddle", "SummaryEval",
    "TaskState", "Todo", "TokenCounter", "TrimTurns", "dropped_facts", "estimate_tokens",
    "eval_summary", "from_openai", "to_openai", "turns", "validate",
]
