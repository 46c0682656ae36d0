"""The exercises of the course, by id: which lesson, which function, which cases.

Each exercise lives in its own module (`ex_*.py`) with its cases and hints; this module
only collects them. Ids and function names are fixed: the lesson notebooks call
`check("ex3")` and define `safe_cut_index` at the top level of a cell.

| id   | lesson | the learner writes |
|------|--------|--------------------|
| ex1  | 1 | `needs_compaction(counter, messages, system, tools, budget, trigger=0.8)` |
| ex2  | 2 | `clear_old_results(messages, keep_last=3, placeholder=PLACEHOLDER)` |
| ex3  | 3 | `safe_cut_index(messages, cut)` |
| ex3b | 3 | `drop_oldest_turns(messages, drop)` |
| ex4  | 4 | `tail_start(messages, counter, tail_tokens)` |
| ex4b | 4 | `summary_prompt(middle, previous)` |
| ex4c | 4 | `place_summary(messages, head_end, tail_start, summary, role)` |
| ex5  | 5 | `is_stuck(tokens_before, tokens_after, budget)` |
| ex5b | 5 | `compact_history(messages, summary)` |
| ex5c | 5 | `summary_cost(usages, prices)` |
| ex5d | 5 | `preflight(counter, messages, system, tools, budget, trigger=0.8, target=0.5)` |
| ex6  | 6 | `render_task_state(goal, todos)` |
| ex6b | 6 | `session_chain(parents, session_id)` |
| ex6c | 6 | `add_note(notes, text)` |
| ex7  | 7 | `fact_recall(summary, must_keep)` |
| ex8  | 8 | `choose_settings()` |
| ex9  | 9 | `log_overhead(turns)` |

Left out: running the cases (`check.py`).
"""

from __future__ import annotations

from . import (
    ex_capstone,
    ex_chain,
    ex_clear,
    ex_compact,
    ex_cost,
    ex_cut,
    ex_notes,
    ex_place,
    ex_preflight,
    ex_prompt,
    ex_recall,
    ex_replay,
    ex_stuck,
    ex_tail,
    ex_task_state,
    ex_trigger,
    ex_trim,
)
from .base import Exercise

MODULES = [  # in course order; a new exercise is one more line
    ex_trigger,
    ex_clear,
    ex_cut,
    ex_trim,
    ex_tail,
    ex_prompt,
    ex_place,
    ex_stuck,
    ex_compact,
    ex_cost,
    ex_preflight,
    ex_task_state,
    ex_notes,
    ex_chain,
    ex_recall,
    ex_capstone,
    ex_replay,
]
EXERCISES: dict[str, Exercise] = {module.EXERCISE.id: module.EXERCISE for module in MODULES}


def get(exercise: str) -> Exercise:
    """The exercise with this id; ValueError listing the ids otherwise."""
    try:
        return EXERCISES[exercise]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown exercise {exercise!r}; the exercises are: {', '.join(EXERCISES)}"
        ) from None
