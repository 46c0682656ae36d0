"""nbgrader metadata for the lesson sources: solution cells, autograded test cells, points.

The lesson notebooks are nbgrader *source* notebooks: the cell that defines an
exercise's function is a solution cell (its `### BEGIN SOLUTION` block is what
nbgrader's `generate_assignment` replaces), and right after the exercise's `check()`
cell a locked, autograded test cell calls `autograde("exN")` (`autograde.py`) for
`POINTS` points. `mark(nb)` adds what is missing, so it can be run again after a lesson
changes; `is_test_cell(cell)` is how `release` leaves the test cells out of `learn/` (an
unsolved learner copy must run without errors). Test cells carry nbval's `nbval-skip`
tag: `autograde()` reads the kernel's input history, which nbval does not keep (the
nbgrader round-trip test runs them for real).

Left out: nbgrader's course configuration (a teacher's `nbgrader_config.py`).
"""

from __future__ import annotations

import re
from typing import Any

from .exercises import EXERCISES
from .grader import POINTS

SCHEMA_VERSION = 3
TEST_SOURCE = 'from jupyter_compaction.grading import autograde\n\nautograde("{id}")'
# nbval runs cells without IPython's history, which autograde() reads; nbgrader keeps it.
NBVAL_SKIP = "nbval-skip"
CHECK_CELL = re.compile(r"""^\s*(?:check\(\s*["']([\w-]+)["']\s*\)|%check\s+([\w-]+))\s*$""")


def metadata(grade_id: str, *, solution: bool) -> dict[str, Any]:
    return {"grade": not solution, "grade_id": grade_id, "locked": not solution,
            "schema_version": SCHEMA_VERSION, "solution": solution, "task": False,
            **({} if solution else {"points": POINTS})}


def is_test_cell(cell: Any) -> bool:
    info = cell.get("metadata", {}).get("nbgrader", {})
    return bool(info.get("grade")) and not info.get("solution")


def mark(nb: Any) -> Any:
    """Add nbgrader solution and test cells for every exercise `nb` checks, in place."""
    import nbformat

    by_function = {e.function: e for e in EXERCISES.values()}
    cells = list(nb.cells)
    for cell in cells:
        found = re.search(r"^def (\w+)\(", cell.source, re.M) if cell.cell_type == "code" else None
        if found and found.group(1) in by_function and "### BEGIN SOLUTION" in cell.source:
            cell.metadata["nbgrader"] = metadata(f"{by_function[found.group(1)].id}-solution",
                                                 solution=True)
    out = []
    for index, cell in enumerate(cells):
        out.append(cell)
        found = CHECK_CELL.match(cell.source) if cell.cell_type == "code" else None
        if not found:
            continue
        exercise = found.group(1) or found.group(2)
        following = cells[index + 1] if index + 1 < len(cells) else None
        if following is not None and is_test_cell(following):
            following.metadata["tags"] = sorted({*following.metadata.get("tags", []), NBVAL_SKIP})
            continue
        test = nbformat.v4.new_code_cell(TEST_SOURCE.format(id=exercise))
        test.metadata["nbgrader"] = metadata(f"{exercise}-test", solution=False)
        test.metadata["tags"] = [NBVAL_SKIP]
        out.append(test)
    nb.cells = out
    return nb
