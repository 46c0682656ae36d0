"""`autograde("ex3")`: the test cell of an nbgrader course, scored like `jupyter-compaction grade`.

nbgrader awards a test cell's points when the cell runs without an error. This cell
collects the exercise's source from what the kernel has executed so far (IPython's `In`
list: the cells above, in the order nbgrader ran them), with the same `sources.collect`
the command-line grader uses, scores it with `grade_source` (the function in a sandbox of
its own) on the public, hidden and generated cases, and raises `AssertionError` (one
line: the score and the failed cases) unless every case passed. So a course run with
nbgrader's own release, collect, autograde and feedback gets the points
`jupyter-compaction grade` gives. The hidden cases' seed is `JUPYTER_COMPACTION_SEED`
when set (to reproduce a grading run), else new each time.

Left out: nbgrader's manual grading (every exercise here is autograded).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from .exercises import get
from .isolated import grade_source
from .sources import collect

SEED_ENV = "JUPYTER_COMPACTION_SEED"
SHOWN_FAILURES = 3


def executed_cells() -> list[str]:
    """The sources of the cells this IPython kernel has run, oldest first."""
    if "IPython" not in sys.modules:
        raise RuntimeError("autograde() runs in a notebook kernel (an nbgrader test cell)")
    from IPython import get_ipython

    shell: Any = get_ipython()
    return list(shell.user_ns.get("In", []))[1:] if shell is not None else []


def autograde(exercise: str) -> None:
    """Raise AssertionError unless the exercise's function passes every case."""
    spec = get(exercise)
    source = collect(executed_cells(), spec.function)
    if source is None:
        raise AssertionError(f"{exercise}: no def {spec.function}(...) above this cell")
    seed = os.environ.get(SEED_ENV)
    result = grade_source(exercise, source, seed=int(seed) if seed else None)
    if not result.complete:
        failed = "; ".join(f"{f.case}: {f.message}" for f in result.failures[:SHOWN_FAILURES])
        raise AssertionError(f"{exercise}: {result.passed}/{result.total} cases passed; {failed}")
    print(f"{exercise}: {result.passed}/{result.total} cases passed")
