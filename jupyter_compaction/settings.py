"""Every knob of a run, each with its one default, checked in one place.

`Settings` is what the agent, the runner, the magics, the lab and the command line read;
each of them overrides only the knobs the user actually set
(`DEFAULTS.with_changes(budget=8_000)`), so a default is written here and nowhere else.
A bad value is refused when the settings are made, with a one-line `ValueError` that says
what is allowed.

Left out: the scenario and the task (they say *what* to run, not *how*), and per-call
options such as `on_event` or a `SessionStore`.
"""

from __future__ import annotations

import dataclasses
import numbers
from dataclasses import dataclass
from typing import Any

MAX_BUDGET = 10**9  # tokens: far above any model's window, and safe to multiply as a float
SUMMARY_ROLES = ("assistant", "user")


@dataclass(frozen=True)
class Settings:
    """How to run an agent: the model, its budget, when and how to compact, how long."""

    model: Any = "simulated"  # "simulated", a Claude model id, or a Model object
    budget: int = 20_000  # tokens the whole request (system, tools, messages) may take
    trigger: float = 0.8  # compact when the request exceeds this share of the budget
    target: float = 0.5  # ... down to this share, so the next turns have room to grow
    strategy: Any = "progressive"  # a name from strategies.STRATEGIES or a strategy object
    task_state: bool = True  # keep a goal and todo list outside the messages
    notes: bool = False  # give the agent a notes file in its workspace
    memory: bool = False  # give the agent the memory tool (a /memories folder in its workspace)
    usage_line: bool = False  # tell the model how full its context is after each tool round
    compact_at: float | None = None  # offer the compact tool; the model calls it past this share
    restore: int = 0  # after a summary, re-attach this many of the newest files read
    summary_role: str | None = None  # role of inserted summaries; None: the strategy's own
    summarizer: Any = "aux"  # "aux", "same", a Model or a callable prompt -> summary
    max_turns: int = 60  # stop after this many model calls
    max_output_tokens: int = 1024  # the most each reply may write

    def __post_init__(self) -> None:
        _whole(self.budget, "budget", "a positive number of tokens", MAX_BUDGET)
        _whole(self.max_turns, "max_turns", "a positive number of turns", None)
        _whole(self.max_output_tokens, "max_output_tokens", "a positive number of tokens",
               None)
        if not isinstance(self.restore, int) or isinstance(self.restore, bool) or self.restore < 0:
            raise ValueError(f"restore must be a number of files (0: none), not {self.restore!r}")
        for name in ("trigger", "target"):
            value = getattr(self, name)
            if not isinstance(value, numbers.Real) or isinstance(value, bool):
                raise ValueError(f"{name} must be a number (a share of the budget), "
                                 f"not {value!r}")
        if not 0 < self.target < self.trigger <= 1:
            raise ValueError(f"trigger and target must be shares of the budget with "
                             f"0 < target < trigger <= 1; got target {self.target!r}, "
                             f"trigger {self.trigger!r}")
        if self.compact_at is not None and (
                not isinstance(self.compact_at, numbers.Real) or isinstance(self.compact_at, bool)
                or not 0 < self.compact_at <= 1):
            raise ValueError(f"compact_at must be a share of the budget in (0, 1], or None "
                             f"(no compact tool), not {self.compact_at!r}")
        if self.summary_role is not None and self.summary_role not in SUMMARY_ROLES:
            raise ValueError(f"summary_role must be 'assistant' or 'user', "
                             f"not {self.summary_role!r}")

    def with_changes(self, **changes: Any) -> Settings:
        """A copy with `changes` applied; an unknown knob is a one-line error."""
        unknown = sorted(set(changes) - set(NAMES))
        if unknown:
            raise ValueError(f"unknown setting {unknown[0]!r}; the settings are: "
                             f"{', '.join(NAMES)}")
        return dataclasses.replace(self, **changes)


def _whole(value: Any, name: str, what: str, most: int | None) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} must be {what}, not {value!r}")
    if most is not None and value > most:
        shown = str(value) if value < 10**15 else f"a {len(str(value))}-digit number"
        raise ValueError(f"{name} must be at most {most:_} tokens, not {shown}")


NAMES = tuple(f.name for f in dataclasses.fields(Settings))
DEFAULTS = Settings()
