"""The exercises of the course, by id: which lesson, which function, which cases.

Each exercise lives in its own module (`ex_*.py`) with its cases and hints; this module
only collects them. Ids and function names are fixed: the lesson notebooks call
`check("ex3")` and define `safe_cut_index` at the top level of a cell.

| id   | lesson | the learner writes |
|------|--------|--------------------|
| ex2  | 2 | `clear_old_results(messages, keep_last=3, placeholder=PLACEHOLDER)` |
| ex3  | 3 | `safe_cut_index(messages, cut)` |
| ex4  | 4 | `tail_start(messages, counter, tail_tokens)` |
| ex4b | 4 | `summary_prompt(middle, previous)` |
| ex5  | 5 | `is_stuck(tokens_before, tokens_after, budget)` |
| ex6  | 6 | `render_task_state(goal, todos)` |
| ex7  | 7 | `fact_recall(summary, must_keep)` |
| ex8  | 8 | `choose_settings()` |
| ex9  | 9 | `log_overhead(turns)` |

Left out: running the cases (`check.py`).
"""

from __future__ import annotations

from . import ex_capstone, ex_clear, ex_cut, ex_prompt, ex_recall, ex_stuck, ex_tail, ex_task_state
from .base import Exercise

EXERCISES: dict[str, Exercise] = {
    module.EXERCISE.id: module.EXERCISE
    for module in (ex_clear, ex_cut, ex_tail, ex_prompt, ex_stuck, ex_task_state, ex_recall,
                   ex_capstone)
}
from . import ex_replay  # noqa: E402  (lesson 9; registered on its own for an easy merge)

EXERCISES[ex_replay.EXERCISE.id] = ex_replay.EXERCISE


def get(exercise: str) -> Exercise:
    """The exercise with this id; ValueError listing the ids otherwise."""
    try:
        return EXERCISES[exercise]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown exercise {exercise!r}; the exercises are: {', '.join(EXERCISES)}"
        ) from None
