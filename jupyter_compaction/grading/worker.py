"""The grading process: run learners' sources on public and hidden cases, print scores.

`python -m jupyter_compaction.grading.worker` reads one JSON object from stdin,
`{"seed": int, "jobs": [{"exercise": "ex3", "source": "..."}, ...]}`, and writes one
JSON list of `CheckResult.to_json()` to stdout. It is started by `isolated.py` in a fresh
interpreter, never inside a learner's kernel. Each source runs in a namespace of its own;
what it prints goes to /dev/null (fd 1 is redirected before any learner code runs, and
the scores are written to a saved copy of it), so printed "scores" count for nothing.
Hidden cases come from `Random(f"{seed}:{exercise}")`: the same seed gives the same
cases, a new seed new ones.

Left out: deciding which sources may run (`sources.screen`, done by the caller).
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import sys
from typing import Any

from .base import CheckResult, Exercise, Failure
from .check import run_exercise
from .exercises import get


def with_hidden(exercise: Exercise, seed: int) -> Exercise:
    """`exercise` with its hidden cases for this seed after the public ones."""
    if exercise.hidden is None:
        return exercise
    hidden = exercise.hidden(random.Random(f"{seed}:{exercise.id}"))
    return dataclasses.replace(exercise, cases=exercise.cases + hidden)


def grade_one(exercise: Exercise, source: str) -> CheckResult:
    namespace: dict[str, Any] = {"__name__": "__learner__"}
    try:
        exec(compile(source, f"<{exercise.id} solution>", "exec"), namespace)
    except (Exception, SystemExit) as exc:  # the learner's code: a score of 0, with why
        from .base import one_line

        return CheckResult(exercise.id, 0, len(exercise.cases),
                           [Failure("the solution did not run", one_line(exc))])
    return run_exercise(exercise, namespace.get(exercise.function))[0]


def main() -> None:
    request = json.loads(sys.stdin.read())
    scores = os.fdopen(os.dup(1), "w")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - open until the process ends
    results = [grade_one(with_hidden(get(job["exercise"]), int(request["seed"])),
                         job["source"]).to_json() for job in request["jobs"]]
    scores.write(json.dumps(results))
    scores.flush()


if __name__ == "__main__":
    main()
