"""Checking the knobs a user types: every bad value becomes one `UsageError` line.

IPython shows a `UsageError` as its message alone, without a traceback, so each check
here raises exactly `IPython.core.error.UsageError` (never a subclass) with one line that
says what is wrong and what to type instead.

Left out: coercing near-misses ("20k", "20,000", 2.5e4); a budget is a whole number.
"""

from __future__ import annotations

import keyword
import numbers
import os
import re
from collections.abc import Mapping
from typing import Any

from IPython.core.error import UsageError

from .. import scenarios
from ..redact import strip_control
from ..settings import DEFAULTS, MAX_BUDGET
from ..strategies import STRATEGIES

BUDGET_VAR = "CONTEXT_BUDGET"
BUDGET_HINT = (f"{BUDGET_VAR} must be a positive whole number of tokens, at most "
               f"{MAX_BUDGET:_} tokens, e.g. {BUDGET_VAR} = 20_000")
WHOLE_NUMBER = re.compile(r"\+?\d+(?:_\d+)*")
SIMULATED = "simulated"
CLAUDE_PREFIX = "claude"
KEY_ENV = "ANTHROPIC_API_KEY"
SUMMARY_ROLES = ("assistant", "user")
SUMMARIZERS = ("same", "aux")
SHOWN_CHARS = 40  # how much of a bad value an error message repeats


def shown(value: Any) -> str:
    """A bad value, quoted and short, for an error message (always one line)."""
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


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


def positive(value: Any, option: str, example: str) -> int:
    number = whole_number(value)
    if number is None:
        raise UsageError(f"{option} must be a positive whole number, e.g. {option} {example}; "
                         f"got {shown(value)}")
    return number


def budget_option(value: str | None, namespace: Mapping[str, Any]) -> int:
    """`--budget` if given, else `CONTEXT_BUDGET` from the namespace, else the default."""
    if value is not None:
        number = whole_number(value)
        if number is None:
            raise UsageError(f"--budget must be a positive whole number of tokens, at most "
                             f"{MAX_BUDGET:_} tokens, e.g. --budget 20000; got {shown(value)}")
        return number
    return namespace_budget(namespace)


def namespace_budget(namespace: Mapping[str, Any]) -> int:
    """`CONTEXT_BUDGET` from the user's namespace (an int), or the default."""
    if BUDGET_VAR not in namespace:
        return DEFAULTS.budget
    value = namespace[BUDGET_VAR]
    if not isinstance(value, numbers.Integral) or whole_number(value) is None:
        raise UsageError(f"{BUDGET_HINT}; it is {shown(value)}")
    return int(value)


def strategy(name: str) -> str:
    if name not in STRATEGIES:
        raise UsageError(f"unknown strategy {shown(name)}; use --strategy with one of: "
                         f"{', '.join(STRATEGIES)}")
    return name


def scenario(name: str | None) -> str:
    """A known scenario name (the first one when `name` is None)."""
    known = scenarios.names()
    if name is None:
        return known[0]
    if name not in known:
        raise UsageError(f"unknown scenario {shown(name)}; use --scenario with one of: "
                         f"{', '.join(known)}")
    return name


def model(name: str) -> str:
    """'simulated', or a Claude model id when an API key is set."""
    if name == SIMULATED:
        return name
    if not name.startswith(CLAUDE_PREFIX):
        raise UsageError(f"unknown model {shown(name)}; use --model simulated or a Claude "
                         "model id such as --model claude-haiku-4-5")
    if not os.environ.get(KEY_ENV, "").strip():
        raise UsageError(f"Set {KEY_ENV} to use {name}, or use --model simulated")
    return name


def choice(value: str, option: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise UsageError(f"{option} must be one of: {', '.join(allowed)}; got {shown(value)}")
    return value


def variable_name(name: str, option: str = "--out") -> str:
    if not name.isidentifier() or keyword.iskeyword(name):
        raise UsageError(f"{option} needs a Python variable name such as run_a; "
                         f"got {shown(name)}")
    return name


def one_line(message: str) -> str:
    """Collapse a message (e.g. from argparse, echoing what was typed) onto one line,
    without control characters."""
    return " ".join(strip_control(str(message)).split())
