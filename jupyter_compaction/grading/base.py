"""The shapes of an exercise check: cases, exercises, failures and the score.

An `Exercise` names the learner's function and holds `Case`s. A case builds its own
fresh input, calls the learner's function, compares with what the library computes, and
returns `None` when it passed or a short description of what went wrong ("returned 2,
expected 3"; `differences.py` names the first differing field of nested values).
`attempt()` turns any exception the learner's code raises, including the
`NotImplementedError` of a released stub, into a one-line failure, never a traceback,
and stops a case that runs longer than `CASE_TIMEOUT_S` (where a timer signal is
available: the main thread on Unix, which is where a kernel runs cells). A function that
catches the timer's exception itself can still loop forever; the grader's cell timeout
is the backstop.

An exercise also has hidden cases, built per grading run from a random seed (the
learner never sees them, so a table of the public answers fails), its input space for
generated hidden cases (`generated.Space`), and names the library functions that
implement it (a solution that calls them scores 0).

Left out: running the checks (`check.py`) and the exercise definitions themselves
(`exercises.py` and the modules it collects).
"""

from __future__ import annotations

import contextlib
import math
import random
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .codec import one_line

CASE_TIMEOUT_S = 10.0  # a learner's function that loops forever fails its case after this
MAX_REPR = 120  # longest value shown in a failure message

Test = Callable[[Callable[..., Any]], "str | Advice | None"]
Hidden = Callable[["random.Random"], "tuple[Case, ...]"]


class Failure(NamedTuple):
    case: str
    message: str


@dataclass(frozen=True)
class Case:
    """One check: `test(fn)` returns None when `fn` passes, else what went wrong."""

    name: str
    hint: str
    test: Test


@dataclass(frozen=True)
class Space:
    """An exercise's input space, for generated hidden cases (`generated.py`)."""

    build: Callable[..., Test]  # the exercise's builder: arguments -> Test
    arguments: Callable[[], Any]  # () -> a hypothesis strategy of argument tuples
    edges: tuple[tuple[Any, ...], ...] = ()  # argument tuples tried first


@dataclass(frozen=True)
class Exercise:
    id: str
    lesson: int
    function: str  # the name the learner defines
    signature: str  # as shown in messages, e.g. "safe_cut_index(messages, cut)"
    contract: str  # one paragraph: what the function must do
    cases: tuple[Case, ...] = ()  # public: check() runs these and shows their hints
    hidden: Hidden | None = None  # fresh random cases for grade_source(), from a seed
    library: tuple[str, ...] = ()  # the library's own implementation: calling it scores 0
    space: Space | None = None  # its input space, for generated hidden cases (generated.py)


@dataclass
class CheckResult:
    """The score of one exercise; its repr is the one-line score."""

    exercise: str
    passed: int
    total: int
    failures: list[Failure] = field(default_factory=list)

    def __repr__(self) -> str:
        line = f"{self.exercise}: {self.passed}/{self.total} passed"
        if self.failures:
            line += " (failed: " + "; ".join(f.case for f in self.failures) + ")"
        return line

    __str__ = __repr__

    @property
    def complete(self) -> bool:
        """Every case passed: the exercise's points are earned (all or nothing, as in
        nbgrader, so a table of the public answers that fails a hidden case earns 0)."""
        return self.total > 0 and self.passed == self.total and not self.failures

    def to_json(self) -> dict[str, Any]:
        return {"exercise": self.exercise, "passed": self.passed, "total": self.total,
                "failures": [list(f) for f in self.failures]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CheckResult:
        return cls(str(data["exercise"]), int(data["passed"]), int(data["total"]),
                   [Failure(str(c), str(m)) for c, m in data.get("failures", [])])


@dataclass(frozen=True)
class Advice:
    """A problem that names its own fix (`differences.py`): `attempt()` shows its text in
    place of the case's hint, which is about another mistake."""

    text: str

    def __str__(self) -> str:
        return self.text


class CaseTimeout(Exception):
    """The learner's function ran longer than `CASE_TIMEOUT_S`."""


def short(value: Any) -> str:
    text = value.text if isinstance(value, Shown) else repr(value)
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."


@dataclass(frozen=True)
class Shown:
    """A value already written as a failure message shows it (`short()` keeps it as is)."""

    text: str


def call(function: str, **arguments: Any) -> str:
    """A call as a failure message shows it: `function(name=value, ...)`, each argument by
    the name the exercise's text gives it, so a learner can tell which number is which. A
    history or tool list is shown by its length (`messages=[5 messages]`)."""
    def value(given: Any) -> str:
        for key, kind in (("role", "messages"), ("input_schema", "tools")):
            if isinstance(given, list) and given and all(
                    isinstance(item, dict) and key in item for item in given):
                return f"[{len(given)} {kind}]"
        return short(given)
    return f"{function}({', '.join(f'{k}={value(v)}' for k, v in arguments.items())})"


def fields(rows: Any, *names: str) -> Shown:
    """Tuples shown with their fields' names: `[(local=500, reported=400), ...]`."""
    named = (", ".join(f"{n}={v!r}" for n, v in zip(names, row, strict=True)) for row in rows)
    return Shown("[" + ", ".join(f"({row})" for row in named) + "]")


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise `CaseTimeout` in the block after `seconds`, where SIGALRM can be used."""
    usable = (hasattr(signal, "setitimer") and seconds > 0
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise CaseTimeout(f"took longer than {seconds:g} s (an endless loop?)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def attempt(case: Case, fn: Callable[..., Any],
            timeout: float | None = None) -> tuple[str | None, bool]:
    """`(problem, timed_out)`: problem is None if `fn` passes `case`, else the one-line
    reason with the hint first (an `Advice` is its own hint); timed_out says the case hit
    the time limit."""
    limit = CASE_TIMEOUT_S if timeout is None else timeout
    timed_out = False
    try:
        with time_limit(limit):
            problem = case.test(fn)
    except CaseTimeout as exc:
        problem, timed_out = one_line(exc), True
    except (Exception, SystemExit) as exc:  # the learner's code: any error fails the case
        problem = one_line(exc)
    if problem is None or isinstance(problem, Advice):
        return (None if problem is None else str(problem)), timed_out
    return f"{case.hint} [{problem}]", timed_out


def numbered(make: Callable[[int, random.Random], Case], count: int) -> Hidden:
    """Hidden cases `make(1, rng)` to `make(count, rng)`, drawn from one generator."""
    def hidden(rng: random.Random) -> tuple[Case, ...]:
        return tuple(make(n, rng) for n in range(1, count + 1))
    return hidden


def compare(got: Any, expected: Any, what: str = "returned") -> str | None:
    """None if equal, else `returned X, expected Y`."""
    if got == expected and type(got) is type(expected):
        return None
    return f"{what} {short(got)}, expected {short(expected)}"


def same_number(got: Any, want: float, rel_tol: float = 0.0, abs_tol: float = 0.0) -> bool:
    """`got` is an int or float (never a bool) equal to `want` within the tolerances, where
    NaN matches only NaN and an infinity only the same infinity (`abs(nan - x) > tol` is
    False, so a plain tolerance check would pass NaN); -0.0 equals 0.0, as in Python."""
    if isinstance(got, bool) or not isinstance(got, int | float):
        return False
    if math.isnan(got) or math.isnan(want):
        return math.isnan(got) and math.isnan(want)
    if math.isinf(got) or math.isinf(want):
        return got == want
    return math.isclose(got, want, rel_tol=rel_tol, abs_tol=abs_tol)
