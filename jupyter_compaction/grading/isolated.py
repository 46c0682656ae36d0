"""`grade_source()`: score a learner's source on public and hidden cases in a new process.

The caller passes source text, never a live function: the text is screened first
(`sources.screen`: calling the library's own implementation, or reaching for what could
change the grader, scores 0 with the reason), then every source that may run goes to one
fresh `python -m jupyter_compaction.grading.worker` process, which no learner kernel has
touched. The worker runs the public cases (the ones `check()` shows) and hidden cases
drawn for this run from `seed` (a new random seed by default), and compares there.

Left out: executing notebooks (`grader.py` reads their sources) and sandboxing.
"""

from __future__ import annotations

import json
import os
import random
import secrets
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from .base import CASE_TIMEOUT_S, CheckResult, Exercise, Failure
from .exercises import get
from .sources import screen

PACKAGE_ROOT = Path(__file__).resolve().parents[2]
WORKER = "jupyter_compaction.grading.worker"
STARTUP_S = 30  # importing the package and tiktoken's tables, on a busy machine
TEXT_ENV = {"JUPYTER_COMPACTION_TEXT": "1"}


def case_count(exercise: Exercise) -> int:
    hidden = exercise.hidden(random.Random(0)) if exercise.hidden else ()
    return len(exercise.cases) + len(hidden)


def zero(exercise: Exercise, case: str, reason: str) -> CheckResult:
    return CheckResult(exercise.id, 0, case_count(exercise), [Failure(case, reason)])


def worker_env() -> dict[str, str]:
    env = {**os.environ, **TEXT_ENV}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(PACKAGE_ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def grade_sources(jobs: Sequence[tuple[str, str | None]], seed: int | None = None) -> list[
        CheckResult]:
    """Score each `(exercise id, source)` (None: the function was not found), in one
    worker process; the results come back in the same order."""
    seed = secrets.randbits(63) if seed is None else seed
    exercises = [get(exercise) for exercise, _ in jobs]
    results: list[CheckResult | None] = []
    runnable = []
    for exercise, (_, source) in zip(exercises, jobs, strict=True):
        if source is None:
            results.append(zero(exercise, "function missing",
                                f"no def {exercise.function}(...) found in the notebook"))
            continue
        problem = screen(exercise, source)
        results.append(zero(exercise, "not accepted", problem) if problem else None)
        if not problem:
            runnable.append({"exercise": exercise.id, "source": source})
    if runnable:
        scores = _run_worker(runnable, seed, [e for e, r in zip(exercises, results,
                                                                 strict=True) if r is None])
        it = iter(scores)
        results = [r if r is not None else next(it) for r in results]
    return [r for r in results if r is not None]


def _run_worker(jobs: list[dict[str, str]], seed: int,
                exercises: list[Exercise]) -> list[CheckResult]:
    limit = STARTUP_S + sum(CASE_TIMEOUT_S * 2 + len(e.cases) for e in exercises)
    try:
        done = subprocess.run([sys.executable, "-m", WORKER], input=json.dumps(
            {"seed": seed, "jobs": jobs}), capture_output=True, text=True, timeout=limit,
            env=worker_env(), cwd=PACKAGE_ROOT)
        if done.returncode == 0:
            return [CheckResult.from_json(r) for r in json.loads(done.stdout)]
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        reason = f"the grading process failed (exit {done.returncode}): {tail}"
    except subprocess.TimeoutExpired:
        reason = f"the grading process ran past {limit:.0f} s"
    return [zero(e, "not graded", reason) for e in exercises]


def grade_source(exercise_id: str, source: str, seed: int | None = None) -> CheckResult:
    """Score `source` (a learner's code defining the exercise's function) on the public
    and hidden cases, in a separate process: `.passed`, `.total`, `.complete`,
    `.failures`."""
    return grade_sources([(exercise_id, source)], seed)[0]
