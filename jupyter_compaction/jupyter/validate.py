"""Checking what a user types in a magic beyond the settings: every bad value is one
`UsageError` line.

The settings' own options (`--budget`, `--strategy`, ...) are declared and checked by
`Settings` (`settings.py`); this module adds what only a notebook has: `CONTEXT_BUDGET`
in the user's namespace, a `--strategy` that names a function of the notebook
(`strategy_function`, wrapped by `FunctionStrategy`), a `--trigger-rule` that names one
(`trigger_function`, wrapped by `TriggerRule`), the scenario, the API key a Claude
model needs, and the names of variables. IPython shows a `UsageError` as its message
alone, without a traceback, so each check raises exactly `IPython.core.error.UsageError`
(never a subclass) with one line that says what is wrong and what to type instead.

A magic line is split into words as IPython splits it (`words()`): quotes group words,
and a word wrapped in one kind of quote loses them, as in a shell, so a text value such
as `--standing-instructions 'End every answer with "-- bot".'` arrives without its outer
quotes; an apostrophe inside a word (`don't`) stays, and so does a backslash.

Left out: coercing near-misses ("20k", "20,000", 2.5e4); a budget is a whole number; a
quote escaped with a backslash inside quotes of the same kind (use the other kind).
"""

from __future__ import annotations

import keyword
import numbers
import os
from collections.abc import Mapping
from typing import Any

from IPython.core.error import UsageError
from IPython.utils.process import arg_split

from .. import scenarios
from ..redact import strip_control
from ..settings import CLAUDE_PREFIX, DEFAULTS, MAX_BUDGET, WHOLE_NUMBER, shown
from ..strategies import STRATEGIES, FunctionStrategy
from ..strategies.function import SHAPE
from ..trigger_rule import SHAPE as TRIGGER_SHAPE
from ..trigger_rule import TriggerRule

BUDGET_VAR = "CONTEXT_BUDGET"
BUDGET_HINT = (f"{BUDGET_VAR} must be a positive whole number of tokens, at most "
               f"{MAX_BUDGET:_} tokens, e.g. {BUDGET_VAR} = 20_000")
KEY_ENV = "ANTHROPIC_API_KEY"
QUOTES = "'\""


def whole_number(value: Any) -> int | None:
    """`value` as an int in 1..MAX_BUDGET (ints, or strings like "8000" / "20_000"),
    else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Integral):
        number = int(value)
    elif isinstance(value, str) and WHOLE_NUMBER.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        return None
    return number if 0 < number <= MAX_BUDGET else None


def namespace_budget(namespace: Mapping[str, Any]) -> int:
    """`CONTEXT_BUDGET` from the user's namespace (an int), or the default."""
    if BUDGET_VAR not in namespace:
        return DEFAULTS.budget
    value = namespace[BUDGET_VAR]
    if not isinstance(value, numbers.Integral) or whole_number(value) is None:
        raise UsageError(f"{BUDGET_HINT}; it is {shown(value)}")
    return int(value)


def strategy_function(name: str | None, namespace: Mapping[str, Any]
                      ) -> FunctionStrategy | None:
    """The notebook's function `name` as a strategy; None when `name` is None or a
    built-in strategy's name (those come first)."""
    if name is None or name in STRATEGIES:
        return None
    if name not in namespace:
        raise UsageError(f"unknown strategy {shown(name)}: --strategy must be one of "
                         f"{', '.join(STRATEGIES)}, or the name of a function {SHAPE} "
                         "defined in the notebook")
    try:
        return FunctionStrategy(namespace[name], name=name)
    except TypeError as err:  # not a function, or not the strategy's shape
        raise UsageError(f"--strategy {name}: {one_line(str(err))}") from None


def trigger_function(name: str | None, namespace: Mapping[str, Any]) -> TriggerRule | None:
    """The notebook's function `name` as the trigger rule; None when `name` is None."""
    if name is None:
        return None
    if name not in namespace:
        raise UsageError(f"unknown trigger rule {shown(name)}: --trigger-rule must be the "
                         f"name of a function {TRIGGER_SHAPE} defined in the notebook")
    try:
        return TriggerRule(namespace[name], name=name)
    except TypeError as err:  # not a function, or not the trigger rule's shape
        raise UsageError(f"--trigger-rule {name}: {one_line(str(err))}") from None


def scenario(name: str | None) -> str:
    """A known scenario name (the first one when `name` is None)."""
    known = scenarios.names()
    if name is None:
        return known[0]
    if name not in known:
        raise UsageError(f"unknown scenario {shown(name)}; use --scenario with one of: "
                         f"{', '.join(known)}")
    return name


def api_key(model: Any) -> None:
    """A Claude model needs an API key in the environment; say so before the run."""
    if (isinstance(model, str) and model.startswith(CLAUDE_PREFIX)
            and not os.environ.get(KEY_ENV, "").strip()):
        raise UsageError(f"Set {KEY_ENV} to use {model}, or use --model simulated")


def variable_name(name: str, option: str = "--out") -> str:
    if not name.isidentifier() or keyword.iskeyword(name):
        raise UsageError(f"{option} needs a Python variable name such as run_a; "
                         f"got {shown(name)}")
    return name


def one_line(message: str) -> str:
    """Collapse a message (e.g. from argparse, echoing what was typed) onto one line,
    without control characters."""
    return " ".join(strip_control(str(message)).split())


def words(line: str) -> list[str]:
    """A magic line's words, as IPython's own argument parsing splits them, each word
    wrapped in one kind of quote without them; an unclosed quote is a `ValueError`."""
    return [w[1:-1] if len(w) > 1 and w[0] == w[-1] and w[0] in QUOTES else w
            for w in arg_split(line, strict=True)]
