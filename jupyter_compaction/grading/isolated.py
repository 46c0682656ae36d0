"""`grade_source()`: score a learner's source on public and hidden cases, one sandbox each.

The caller passes source text, never a live function. The text is screened first
(`screen.screen`: calling the library's own implementation, or reaching for what could
change the grader, scores 0 with the rule that fired); then each exercise of each
learner gets a sandboxed worker of its own (`sandbox.Sandbox`), which defines the
function and nothing else. The cases run *here*: every case's test calls the sandbox as
if it were the learner's function, so the worker receives only the inputs of each call
when the call is made, and the expected values, the seed and the case list never leave
this process. Results come back as plain data (`codec`), rebuilt here with their types,
and are compared here. The sandbox's process group is killed when the exercise is done.

Each exercise's worker gets `sandbox.CPU_SECONDS` of CPU time for all its cases, and
`WALL_SECONDS` of wall time before it counts as hung; a learner (one `grade_sources`
call) gets `LEARNER_CPU_S` of CPU time and `LEARNER_WALL_S` of wall time over all
exercises, and an exercise that starts after either is spent scores 0 and says so.

Hidden cases are drawn from `seed` (one per exercise, fixed at release: `seeds.py`; or one
for all; a new random one by default): each exercise's own, then inputs generated over
its input space (`generated.py`).

Left out: executing notebooks (`grader.py` reads their sources).
"""

from __future__ import annotations

import resource
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass

from .base import CheckResult, Exercise, Failure
from .check import missing_message, run_exercise
from .codec import one_line
from .exercises import get
from .generated import with_hidden
from .sandbox import CPU_SECONDS, WALL_SECONDS, Sandbox, SandboxError
from .screen import screen
from .seeds import Seeds, resolve

LEARNER_CPU_S = 120  # CPU seconds of every worker of one learner together
LEARNER_WALL_S = 600  # wall seconds of one learner's exercises together


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


@dataclass
class Budget:
    """What is left of one learner's CPU and wall time (CPU: of the workers, reaped)."""

    cpu_start: float
    wall_end: float

    @classmethod
    def start(cls) -> Budget:
        return cls(_children_cpu(), time.monotonic() + LEARNER_WALL_S)

    def cpu_left(self) -> float:
        return LEARNER_CPU_S - (_children_cpu() - self.cpu_start)

    def wall_left(self) -> float:
        return self.wall_end - time.monotonic()

    def spent(self) -> str | None:
        if self.cpu_left() < 1:
            return f"not run: this learner's {LEARNER_CPU_S} s of CPU time were spent"
        if self.wall_left() < 1:
            return f"not run: this learner's {LEARNER_WALL_S} s of wall time were spent"
        return None


def zero(exercise: Exercise, case: str, reason: str) -> CheckResult:
    return CheckResult(exercise.id, 0, len(exercise.cases), [Failure(case, reason)])


def grade_one(exercise: Exercise, source: str | None,
              budget: Budget | None = None) -> CheckResult:
    """Score one source on `exercise`'s cases (hidden ones included by the caller), within
    what is left of the learner's `budget`."""
    budget = budget or Budget.start()
    if source is None:
        return zero(exercise, "function missing",
                    f"no def {exercise.function}(...) found in the notebook")
    spent = budget.spent()
    if spent:
        return zero(exercise, "budget", spent)
    try:
        problem = screen(exercise, source)
    except (RecursionError, MemoryError, ValueError) as exc:  # a pathological source
        problem = f"the source cannot be analysed ({type(exc).__name__})"
    if problem:
        return zero(exercise, "not accepted", problem)
    try:
        box = Sandbox(source, exercise.function,
                      cpu_seconds=int(min(CPU_SECONDS, budget.cpu_left())),
                      wall_seconds=min(WALL_SECONDS, budget.wall_left()))
    except Exception as exc:  # noqa: BLE001 - the learner's code ran; any failure scores 0
        return zero(exercise, "the solution did not run", _reason(exc))
    try:
        if not box.callable:
            missing = missing_message(exercise)
            if box.kind != "NoneType":
                missing = f"{exercise.function} is a {box.kind}, not a function; {missing}"
            return zero(exercise, "function missing", missing)
        return run_exercise(exercise, box)[0]
    finally:
        box.close()


def _reason(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, SandboxError) else one_line(exc)


def grade_sources(jobs: Sequence[tuple[str, str | None]], seed: Seeds | None = None
                  ) -> list[CheckResult]:
    """Score each `(exercise id, source)` (None: the function was not found), each in a
    sandbox of its own, in order; `seed`: one for all exercises or one per exercise."""
    seed = secrets.randbits(63) if seed is None else seed
    budget = Budget.start()
    return [grade_one(with_hidden(get(exercise), resolve(seed, exercise)), source, budget)
            for exercise, source in jobs]


def grade_source(exercise_id: str, source: str, seed: Seeds | None = None) -> CheckResult:
    """Score `source` (a learner's code defining the exercise's function) on the public
    and hidden cases, in a sandbox: `.passed`, `.total`, `.complete`, `.failures`."""
    return grade_sources([(exercise_id, source)], seed)[0]
