"""ex6 (lesson 6): `render_task_state`, the block the agent puts into its system prompt.

The expected text is `TaskState.render()` for the same goal and todos (loaded with
`TaskState.write()`, which numbers missing ids from 1 and defaults the status to
pending), so a learner's renderer must match the library's character for character.
The teeth: every status mark, notes, an empty state (no block at all), a goal with no
todos ("(none yet)"), todos with no goal ("(not set)") and given vs. missing ids.

Left out: the tools that edit the state (lesson 6 runs them, it does not grade them).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from ..task_state import STATUSES as STATUS_NAMES
from ..task_state import TaskState
from .base import Case, Exercise, Space, Test, compare, numbered, short


def expected(goal: str, todos: list[dict]) -> str:
    state = TaskState(goal=goal)
    state.write(todos)
    return state.render()


def same_as_library(goal: str, todos: list[dict]) -> Test:
    def test(fn: Callable[..., Any]) -> str | None:
        got = fn(goal, [dict(t) for t in todos])
        want = expected(goal, [dict(t) for t in todos])
        if not isinstance(got, str) or not isinstance(want, str) or got == want:
            return compare(got, want)
        got_lines, want_lines = got.split("\n"), want.split("\n")
        for n, (a, b) in enumerate(zip(got_lines, want_lines, strict=False), start=1):
            if a != b:
                return f"line {n} is {short(a)}, expected {short(b)}"
        return f"{len(got_lines)} lines, expected {len(want_lines)}"
    return test


GOAL = "Audit the licences of every service"
STATUSES = [
    {"id": "1", "subject": "Read the policy", "status": "completed"},
    {"id": "2", "subject": "Check services/billing", "status": "in_progress"},
    {"id": "3", "subject": "Check services/web", "status": "pending"},
]
NOTES = [
    {"id": "1", "subject": "Read the policy", "status": "completed",
     "note": "GPL-3.0 is forbidden"},
    {"id": "2", "subject": "Check services/billing", "status": "in_progress"},
]
DEFAULTS = [{"subject": "Read the policy"}, {"subject": "Check services/web",
                                            "status": "completed"}]

HIDDEN_CASES = 8
SUBJECTS = ("Read the policy", "Check services/web", "List every dependency",
            "Compare licences with the policy", "Write the report")


def random_todos(rng: random.Random) -> list[dict]:
    """Mixed todos: own ids, or none, None or "" (numbered by position), any status or
    none, notes that are set, empty or absent."""
    todos = []
    for n in range(1, rng.randint(1, 5) + 1):
        todo: dict[str, Any] = {"subject": rng.choice(SUBJECTS)}
        if rng.random() < 0.6:
            todo["id"] = rng.choice((f"t{n}", str(n), None, ""))
        if rng.random() < 0.7:
            todo["status"] = rng.choice(STATUS_NAMES)
        if rng.random() < 0.5:
            todo["note"] = rng.choice(("", f"found ORD-{rng.randint(100, 999)}"))
        todos.append(todo)
    return todos


def hidden_case(n: int, rng: random.Random) -> Case:
    goal = rng.choice(("", GOAL, "Find the waybill of ORD-1042"))
    todos = random_todos(rng) if rng.random() < 0.85 else []
    return Case(f"hidden case {n}", f"render_task_state({goal!r}, {todos!r})",
                same_as_library(goal, todos))


CASES = (
    Case("every status mark",
         "mark completed todos [x], in-progress ones [~] and pending ones [ ]",
         same_as_library(GOAL, STATUSES)),
    Case("notes",
         "a todo with a note ends with ' - ' and the note: '[x] 1. Read the policy - ...'",
         same_as_library(GOAL, NOTES)),
    Case("an empty state",
         "no goal and no todos: return '' (no empty <task_state> block in the prompt)",
         same_as_library("", [])),
    Case("a goal only",
         "a goal without todos still lists 'Todos:' followed by '(none yet)'",
         same_as_library(GOAL, [])),
    Case("todos without a goal",
         "todos but no goal: the goal line reads 'Goal: (not set)'",
         same_as_library("", STATUSES)),
    Case("missing ids and statuses",
         "a todo without an id is numbered by its position from 1; without a status it is"
         " pending",
         same_as_library(GOAL, DEFAULTS)),
    Case("ids are kept as given",
         "use the todo's own id when it has one",
         same_as_library(GOAL, [{"id": "lic-7", "subject": "Check the npm registry"}])),
)

def task_state_inputs():
    """Goals that are empty or not; todos with ids of their own (unique), None, "" or
    missing, any status or none, notes set, empty or absent; no todos at all."""
    from hypothesis import strategies as st

    todo = st.fixed_dictionaries({"subject": st.sampled_from(SUBJECTS)}, optional={
        "id": st.sampled_from(("own", "number", None, "")),
        "status": st.sampled_from(STATUS_NAMES), "note": st.sampled_from(("", "found ORD-104"))})
    return st.tuples(st.sampled_from(("", GOAL)), st.lists(todo, max_size=5).map(own_ids))


def own_ids(todos: list[dict]) -> list[dict]:
    """Each "own"/"number" id made unique by the todo's position."""
    names = {"own": "t{}", "number": "{}"}
    return [{**t, "id": names[t["id"]].format(n)} if t.get("id") in names else t
            for n, t in enumerate(todos, start=1)]


SPACE = Space(same_as_library, task_state_inputs, edges=(
    ("", []), (GOAL, []), (GOAL, [{"subject": SUBJECTS[0], "id": ""}]),
    (GOAL, [{"subject": SUBJECTS[0], "id": None}, {"subject": SUBJECTS[1]}]),
    ("", [{"subject": SUBJECTS[0], "note": ""}])))


EXERCISE = Exercise(
    id="ex6", lesson=6, function="render_task_state",
    signature="render_task_state(goal, todos)",
    contract="Render the goal and todos exactly like TaskState.render(): a <task_state> "
             "block with 'Goal: ...', 'Todos:' and one line per todo ([x] completed, [~] "
             "in_progress, [ ] pending, ' - note' when there is one); '' when empty.",
    cases=CASES,
    hidden=numbered(hidden_case, HIDDEN_CASES),
    library=("TaskState", "Todo", "MARKS"),
    space=SPACE,
)
