"""Every knob of a run, each declared once: its type, default, choices, help and check.

`Settings` is what the agent, the runner, the magics, the lab and the command line read;
each of them overrides only the knobs the user actually set
(`DEFAULTS.with_changes(budget=8_000)`), so a default is written here and nowhere else.
Each field carries an `Option` (its help text, the names it accepts, its range), and
everything a user types is generated from it: the `%%agent` magic's arguments and the
demo's command-line options (`add_arguments()`), their reading (`read_given()`) and the
lab's choices. A bad value is refused when the settings are made, with a one-line
`ValueError` that says what is allowed, whichever way it came in.

`trigger_at` and `target_at` turn the shares into tokens; they are the only place that
arithmetic is written (the agent reads them through the usage anchor, `usage_anchor.py`).

Left out: the scenario and the task (they say *what* to run, not *how*), per-call
options such as `on_event` or a `SessionStore`, and checks that read the environment
(an API key for a Claude model is the magics' and the model's concern).
"""

from __future__ import annotations

import argparse
import dataclasses
import numbers
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .strategies import STRATEGIES

MAX_BUDGET = 10**9  # tokens: far above any model's window, and safe to multiply as a float
SUMMARY_ROLES = ("assistant", "user")
SUMMARIZERS = ("aux", "same")
MODELS = ("simulated",)
CLAUDE_PREFIX = "claude"
OLLAMA_PREFIX = "ollama:"  # a local Ollama model, models/compatible.py
WHOLE_NUMBER = re.compile(r"\+?\d+(?:_\d+)*")  # 8000, 20_000
OFFLOAD_SHARE = 0.1875  # 1,500 of 8,000 tokens (AWS Strands' threshold), scaled with the
# budget: RESULTS.md section 13 measured 1/8 to 1/4 at 4,000, 8,000 and 16,000 tokens
SHOWN_CHARS = 40  # how much of a bad value an error message repeats


def shown(value: Any) -> str:
    """A bad value, quoted and short, for an error message (always one line)."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 10**15:
        return f"a {len(str(value))}-digit number"
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


@dataclass(frozen=True)
class Option:
    """How one setting is typed and checked: `kind` is int (a whole number from `least`,
    1 unless set, up to `most`), float (a share of the budget), bool (on/off) or str (a
    name from `choices`, or a name starting with `prefix`, one or a tuple, which `also`
    describes; `objects` says which objects are accepted instead of a name, and `accepts`
    tells them apart; `text`: any text that is not blank, instead of a name). `between`:
    a float's range, (low, high]. `optional`: None is allowed
    (and means "not set"). `surfaces`: where a user can type it: "agent" (the `%%agent`
    magic), "demo" (`jupyter-compaction demo`), "replay" (`%replay` and
    `jupyter-compaction replay`)."""

    help: str
    kind: type = str
    metavar: str = ""
    choices: tuple[str, ...] = ()
    noun: str = ""
    unit: str = ""
    least: int = 1
    most: int | None = None
    prefix: str | tuple[str, ...] = ""
    also: str = ""
    objects: str = ""
    accepts: Callable[[Any], bool] | None = None
    optional: bool = False
    text: bool = False  # a str setting that takes free text (not blank) instead of a name
    between: tuple[float, float] | None = None  # a float's range: low < value <= high
    surfaces: tuple[str, ...] = ("agent", "demo")  # where a user can type it (`exposed`)

    def check(self, label: str, value: Any, typed: bool = False) -> None:
        """Raise a one-line `ValueError` naming `label` unless `value` is allowed;
        `typed`: it was typed as text, so objects are not mentioned."""
        if value is None and self.optional:
            return
        if self.kind is int:
            self._check_whole(label, value)
        elif self.kind is float:
            self._check_share(label, value)
        elif self.kind is bool:
            if not isinstance(value, bool):
                raise ValueError(f"{label} must be True or False, not {shown(value)}")
        elif self.text:
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{label} must be text that is not blank"
                                 + ("" if typed else ", or None") + f"; got {shown(value)}")
        else:
            self._check_name(label, value, typed)

    def _check_name(self, label: str, value: Any, typed: bool) -> None:
        """A str setting: a name from `choices` (or with `prefix`), or an accepted object."""
        if isinstance(value, str):
            if value not in self.choices and not (self.prefix and value.startswith(self.prefix)):
                raise ValueError(self._unknown(label, value, typed))
        elif self.accepts is None or not self.accepts(value):
            raise ValueError(self._unknown(label, value, typed))

    def _check_whole(self, label: str, value: Any) -> None:
        """An int setting: a whole number from `least` up to `most`."""
        if (not isinstance(value, int) or isinstance(value, bool) or value < self.least
                or (self.most is not None and value > self.most)):
            whole = "a positive whole number" if self.least == 1 else (
                f"a whole number (at least {self.least})")
            raise ValueError(f"{label} must be {whole} of {self.unit}"
                             + (f", at most {self.most:_} {self.unit}" if self.most else "")
                             + f"; got {shown(value)}")

    def _check_share(self, label: str, value: Any) -> None:
        """A float setting: a number, within `between` when it is set."""
        if not isinstance(value, numbers.Real) or isinstance(value, bool):
            raise ValueError(f"{label} must be a number (a share of the budget, e.g. "
                             f"0.5), not {shown(value)}")
        if self.between and not self.between[0] < value <= self.between[1]:
            low, high = self.between
            raise ValueError(f"{label} must be a share of the budget in ({low:g}, {high:g}]"
                             + (", or None" if self.optional else "")
                             + f", not {shown(value)}")

    def _unknown(self, label: str, value: Any, typed: bool) -> str:
        others = [self.also] + ([] if typed else [self.objects])
        other = "".join(f", or {text}" for text in others if text)
        if not self.choices:  # objects only: nothing can be typed
            return f"unknown {self.noun} {shown(value)}: {label} must be {self.objects}"
        return (f"unknown {self.noun} {shown(value)}: {label} must be one of "
                f"{', '.join(self.choices)}{other}")

    def read(self, label: str, text: str) -> Any:
        """The value typed as `text` (e.g. after `--budget`), checked; one-line error."""
        if self.kind is int:
            value: Any = (int(text.strip()) if isinstance(text, str)
                          and WHOLE_NUMBER.fullmatch(text.strip()) else text)
        elif self.kind is float:
            try:
                value = float(text)
            except (TypeError, ValueError):
                value = text
        else:
            value = text
        self.check(label, value, typed=True)
        return value


def knob(default: Any, **option: Any) -> Any:
    """A `Settings` field with its default and its `Option` (see above)."""
    return field(default=default, metadata={"option": Option(**option)})


def _is_model(value: Any) -> bool:
    return callable(getattr(value, "create", None))


@dataclass(frozen=True)
class Settings:
    """How to run an agent: the model, its budget, when and how to compact, how long."""

    model: Any = knob(
        "simulated", metavar="ID", noun="model", choices=MODELS,
        prefix=(CLAUDE_PREFIX, OLLAMA_PREFIX),
        also="a Claude model id such as claude-haiku-4-5, or ollama:NAME",
        objects="a Model object", accepts=_is_model,
        help="the model: 'simulated' (offline), a Claude model id such as claude-haiku-4-5 "
             "(needs ANTHROPIC_API_KEY), or 'ollama:NAME' (a local Ollama model)")
    budget: int = knob(
        20_000, kind=int, metavar="N", unit="tokens", most=MAX_BUDGET,
        surfaces=("agent", "demo", "replay"),
        help="tokens the whole request (system prompt, tools, messages) may take")
    trigger: float = knob(
        0.8, kind=float, metavar="SHARE",
        help="compact when the request passes this share of the budget")
    target: float = knob(
        0.5, kind=float, metavar="SHARE",
        help="compact down to this share of the budget, so the next turns have room")
    trigger_rule: Any = knob(
        None, metavar="NAME", noun="trigger rule", optional=True, accepts=callable,
        surfaces=("agent",),
        objects="a function (counter, messages, system, tools, budget, trigger) -> bool",
        help="a function of the notebook that decides before each request whether to "
             "compact (True: compact), instead of the trigger share (none: the trigger "
             "decides)")
    strategy: Any = knob(
        "progressive", metavar="NAME", noun="strategy", choices=tuple(STRATEGIES),
        objects="a strategy object", accepts=callable, help="compaction strategy",
        surfaces=("agent", "demo", "replay"))
    task_state: bool = knob(
        True, kind=bool, help="keep a goal and todo list outside the messages")
    notes: bool = knob(
        False, kind=bool, help="give the agent a notes file that survives compaction")
    memory: bool = knob(
        False, kind=bool, help="give the agent the memory tool (a /memories folder in its "
                               "workspace)")
    usage_line: bool = knob(
        False, kind=bool, help="tell the model how full its context is after each tool round")
    compact_at: float | None = knob(
        None, kind=float, metavar="SHARE", optional=True, between=(0, 1),
        help="offer the model a compact tool; it calls it past this share of the budget")
    restore: int = knob(
        0, kind=int, metavar="N", unit="files", least=0,
        help="after a summary, re-attach this many of the newest files read (0: none)")
    summary_role: str | None = knob(
        None, metavar="ROLE", noun="summary role", choices=SUMMARY_ROLES, optional=True,
        help="role of inserted summaries, assistant or user (none: the strategy's own)")
    summarizer: Any = knob(
        "aux", metavar="WHO", noun="summarizer", choices=SUMMARIZERS,
        objects="a Model or a callable prompt -> summary",
        accepts=lambda v: _is_model(v) or callable(v),
        help="who writes summaries: aux (a separate minimal call) or same (the agent's "
             "own model with its prompt and tools, cached)")
    result_cap: float = knob(
        0.25, kind=float, metavar="SHARE", between=(0, 1),
        help="cut each tool result to this share of the budget")
    offload_at: float | None = knob(
        None, kind=float, metavar="SHARE", optional=True, between=(0, 1),
        help="keep a tool result over this share of the budget in a file of the run, with "
             "a preview in the context and tools to read or search it (none: off; "
             f"{OFFLOAD_SHARE} is 1,500 of 8,000 tokens)")
    offload_over: int | None = knob(
        None, kind=int, metavar="N", unit="tokens", optional=True, most=MAX_BUDGET,
        help="offload at this many tokens instead of a share of the budget (none: "
             "offload_at decides)")
    dedup_reads: bool = knob(
        False, kind=bool, help="answer a call repeated with an unchanged result, while "
                               "the earlier result is still in the context, with a short "
                               "'unchanged since turn N'")
    standing_instructions: str | None = knob(
        None, metavar="TEXT", text=True, optional=True,
        help="instructions sent as a system message right after the task, in quotes when "
             "they hold spaces (none: no such message); a compaction that summarizes their "
             "turn summarizes them away")
    restate: bool = knob(
        True, kind=bool,
        help="send the standing instructions again as a system message after each compaction, "
             "client-side or the API's own (restate.py)")
    max_turns: int = knob(
        60, kind=int, metavar="N", unit="turns", help="stop after this many model calls")
    max_output_tokens: int = knob(
        1024, kind=int, metavar="N", unit="tokens", help="the most each reply may write",
        surfaces=())

    def __post_init__(self) -> None:
        for name, option in OPTIONS.items():
            option.check(name, getattr(self, name))
        if not 0 < self.target < self.trigger <= 1:
            raise ValueError(f"trigger and target must be shares of the budget with "
                             f"0 < target < trigger <= 1; got target {self.target!r}, "
                             f"trigger {self.trigger!r}")

    @property
    def trigger_at(self) -> int:
        """The request size in tokens over which the agent compacts."""
        return int(self.trigger * self.budget)

    @property
    def offload_threshold(self) -> int | None:
        """The tokens over which a tool result is offloaded (`offload.py`); None: never.
        `offload_over` when given, else `offload_at` of the budget."""
        if self.offload_over is not None:
            return self.offload_over
        return None if self.offload_at is None else int(self.offload_at * self.budget)

    @property
    def target_at(self) -> int:
        """The request size in tokens a compaction aims for."""
        return int(self.target * self.budget)

    def goal(self, overhead: int, to_local: Callable[[int], int] = int) -> int:
        """The tokens the messages may keep after a compaction: the target, read in the
        local count by `to_local` (e.g. `UsageAnchor.to_local`), less `overhead` (the
        system prompt and tools); never below 0."""
        return max(0, to_local(self.target_at) - overhead)

    def with_changes(self, **changes: Any) -> Settings:
        """A copy with `changes` applied; an unknown knob is a one-line error."""
        unknown = sorted(set(changes) - set(NAMES))
        if unknown:
            raise ValueError(f"unknown setting {unknown[0]!r}; the settings are: "
                             f"{', '.join(NAMES)}")
        return dataclasses.replace(self, **changes)


OPTIONS: dict[str, Option] = {f.name: f.metadata["option"]
                              for f in dataclasses.fields(Settings)}
NAMES = tuple(OPTIONS)
DEFAULTS = Settings()


def exposed(surface: str) -> tuple[str, ...]:
    """The settings a user can type on `surface` ("agent", "demo" or "replay"), in the
    order they are declared."""
    return tuple(name for name, option in OPTIONS.items() if surface in option.surfaces)


def flag(name: str) -> str:
    """The command-line flag of a setting: `max_turns` -> `--max-turns`."""
    return "--" + name.replace("_", "-")


def help_text(name: str, default: str | None = None) -> str:
    """A setting's help for a command line: what it does, its choices (unless the help
    names them all) and its default (`default` replaces the default's wording, e.g.
    where another source comes first)."""
    option = OPTIONS[name]
    value = getattr(DEFAULTS, name)
    if default is None:
        default = "" if value is None else "on" if value is True else (
            "off" if value is False else str(value))
    listed = all(choice in option.help for choice in option.choices)
    names = "" if listed else f": {', '.join(option.choices)}"
    return f"{option.help}{names}" + (f" (default: {default})" if default else "")


def argument(name: str, default: str | None = None) -> tuple[tuple[str, ...], dict[str, Any]]:
    """`(flags, keywords)` for argparse's `add_argument` (or IPython's `argument`) of a
    setting. Every option defaults to None, so only what the user typed overrides the
    settings; values arrive as text and `read_given()` checks them."""
    option = OPTIONS[name]
    keywords: dict[str, Any] = {"dest": name, "default": None,
                                "help": help_text(name, default)}
    if option.kind is bool:
        keywords["action"] = argparse.BooleanOptionalAction
    else:
        keywords["metavar"] = option.metavar
    return (flag(name),), keywords


def add_arguments(parser: argparse.ArgumentParser, names: Iterable[str],
                  defaults: Mapping[str, str] | None = None) -> None:
    """Add the options of the settings `names` to an argparse parser."""
    for name in names:
        flags, keywords = argument(name, (defaults or {}).get(name))
        parser.add_argument(*flags, **keywords)


def read_given(args: Any, names: Iterable[str]) -> dict[str, Any]:
    """The settings the user typed in parsed `args` (the rest are None), read and checked
    one by one: a bad one is a `ValueError` naming its flag."""
    given = {}
    for name in names:
        text = getattr(args, name, None)
        if text is not None:
            given[name] = (text if OPTIONS[name].kind is bool
                           else OPTIONS[name].read(flag(name), text))
    return given
