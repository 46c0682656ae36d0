"""jupyter-compaction: learn how an LLM agent stays under its context budget.

The core (messages, tokens, strategies, task state, the agent loop and the models) is
plain Python; the Jupyter layer in `jupyter_compaction.jupyter` is loaded only by
`%load_ext jupyter_compaction`.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: importing typing costs every sandboxed worker's start
if TYPE_CHECKING:
    from typing import Any

# The names the package offers at its top, and the module each comes from. They are
# imported on first use (PEP 562), so `import jupyter_compaction` (which `%load_ext`, the
# command line and every sandboxed grading worker do first) costs no more than this file.
EXPORTS = {
    "SummaryEval": "evaluation", "dropped_facts": "evaluation", "eval_summary": "evaluation",
    "InvalidHistory": "history", "from_openai": "history", "to_openai": "history",
    "turns": "history", "validate": "history",
    "STRATEGIES": "strategies", "ClearToolResults": "strategies", "CompactAll": "strategies",
    "Compaction": "strategies", "CompressionStuck": "strategies",
    "FunctionStrategy": "strategies",
    "NoCompaction": "strategies", "Progressive": "strategies", "ServerSummarize": "strategies",
    "SummarizeMiddle": "strategies", "TrimTurns": "strategies",
    "TaskState": "task_state", "Todo": "task_state",
    "TokenCounter": "tokens", "estimate_tokens": "tokens",
}

__version__ = "0.1.0"


def load_ipython_extension(ipython) -> None:
    """`%load_ext jupyter_compaction`: register the magics (imports the Jupyter layer)."""
    from .jupyter import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython) -> None:
    from .jupyter import unload_ipython_extension as unload

    unload(ipython)


def __getattr__(name: str) -> Any:
    """A name of `EXPORTS`, imported from its module on first use."""
    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *EXPORTS})


__all__ = sorted(EXPORTS)
