"""Task state outside the messages: a goal and a todo list the agent maintains with tools.

Summaries are lossy, and they erode: after a few compactions "read s01.py and s02.py"
becomes "read a few files". A `TaskState` does not live in the messages at all. The agent
edits it through three tools (`task_set_goal`, `todo_write`, `todo_update`), and the
loop renders it into the system prompt on every turn, so no compaction can touch it.
A todo can carry a short `note` (what was found), which is how a finding outlives the
tool output it came from. `notes_tools()` adds the file-based variant: decisions
appended to a notes file in the workspace, which the agent can read back at any time.

Left out: nested subtasks, owners and dependencies between todos.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .tools import ToolError
from .vocab import (
    READ_NOTES,
    SET_GOAL,
    STATE_CLOSE,
    STATE_OPEN,
    TODO_MARKS,
    TODO_UPDATE,
    TODO_WRITE,
    WRITE_NOTE,
)
from .workspace import Workspace

STATUSES = ("pending", "in_progress", "completed")
MARKS = TODO_MARKS
NOTES_FILE = "NOTES.md"
MAX_TODOS = 100


@dataclass
class Todo:
    id: str
    subject: str
    status: str = "pending"
    note: str = ""

    def render(self) -> str:
        line = f"{MARKS[self.status]} {self.id}. {self.subject}"
        return f"{line} - {self.note}" if self.note else line


def _named(name: str) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Give a tool function the name `vocab` defines for it (the name the model sees)."""
    def rename(fn: Callable[..., str]) -> Callable[..., str]:
        fn.__name__ = name
        return fn
    return rename


def _status(value: Any) -> str:
    if value not in STATUSES:
        raise ToolError(f"status must be one of {', '.join(STATUSES)}, not {value!r}")
    return value


@dataclass
class TaskState:
    goal: str = ""
    todos: list[Todo] = field(default_factory=list)

    def render(self) -> str:
        """The block the agent loop puts into the system prompt ('' when empty)."""
        if not self.goal and not self.todos:
            return ""
        lines = [STATE_OPEN, f"Goal: {self.goal or '(not set)'}", "Todos:"]
        lines += [todo.render() for todo in self.todos] or ["(none yet)"]
        return "\n".join([*lines, STATE_CLOSE])

    def set_goal(self, goal: str) -> str:
        if not isinstance(goal, str) or not goal.strip():
            raise ToolError("goal must be a non-empty string")
        self.goal = goal.strip()
        return f"Goal set: {self.goal}"

    def write(self, todos: list[dict]) -> str:
        if not isinstance(todos, list) or len(todos) > MAX_TODOS:
            raise ToolError(f"todos must be a list of at most {MAX_TODOS} objects")
        new: list[Todo] = []
        for n, item in enumerate(todos, start=1):
            if not isinstance(item, dict) or not str(item.get("subject", "")).strip():
                raise ToolError(f"todo {n} needs a non-empty 'subject'")
            new.append(Todo(id=str(item.get("id") or n), subject=str(item["subject"]).strip(),
                            status=_status(item.get("status", "pending")),
                            note=str(item.get("note", ""))))
        if len({t.id for t in new}) != len(new):
            raise ToolError("todo ids must be unique")
        self.todos = new
        return f"Todo list saved: {len(new)} items."

    def update(self, id: str, status: str, note: str = "") -> str:
        todo = next((t for t in self.todos if t.id == str(id)), None)
        if todo is None:
            known = ", ".join(t.id for t in self.todos) or "none"
            raise ToolError(f"no todo with id {id!r}; ids: {known}")
        todo.status = _status(status)
        if note:
            todo.note = note
        return f"Todo {todo.id} is {todo.status}."

    def tools(self) -> list[Callable[..., str]]:
        """The three tools, bound to this state, with the schemas the model sees."""

        @_named(SET_GOAL)
        def task_set_goal(goal: str) -> str:
            """Set the overall goal of the current task (kept outside the conversation)."""
            return self.set_goal(goal)

        @_named(TODO_WRITE)
        def todo_write(todos: list[dict]) -> str:
            """Replace the todo list. Each item: {"subject": str, "id"?: str, "status"?:
            "pending"|"in_progress"|"completed", "note"?: str}. Missing ids are numbered."""
            return self.write(todos)

        @_named(TODO_UPDATE)
        def todo_update(id: str, status: str, note: str = "") -> str:
            """Change one todo's status (pending, in_progress, completed) and optionally
            record a short note of what was found."""
            return self.update(id, status, note)

        return [task_set_goal, todo_write, todo_update]


def notes_tools(workspace: Workspace, path: str = NOTES_FILE) -> list[Callable[..., str]]:
    """`write_note` and `read_notes`: decisions kept in a file that survives compaction."""

    @_named(WRITE_NOTE)
    def write_note(text: str) -> str:
        """Append a decision or finding to the notes file, to read back after compaction."""
        if not text.strip():
            raise ToolError("a note needs some text")
        try:
            before = workspace.read_text(path)
        except ToolError:  # no file yet
            before = ""
        start = "\n" if before and not before.endswith("\n") else ""  # never glue two notes
        workspace.append_text(path, f"{start}- {text.strip()}\n")
        return f"Noted in {path}."

    @_named(READ_NOTES)
    def read_notes() -> str:
        """Read the notes file (decisions and findings written earlier)."""
        try:
            return workspace.read_text(path)
        except ToolError:
            return "(no notes yet)"

    return [write_note, read_notes]
