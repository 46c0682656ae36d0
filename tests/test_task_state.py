"""TaskState and its tools, and the notes file that survives compaction."""

import pytest

from jupyter_compaction import TaskState, Todo
from jupyter_compaction.task_state import MAX_TODOS, NOTES_FILE, notes_tools
from jupyter_compaction.tools import Toolbox, ToolError, tool_schema
from jupyter_compaction.workspace import Workspace


def one_line_tool_error(fn, *args, **kwargs) -> str:
    with pytest.raises(ToolError) as err:
        fn(*args, **kwargs)
    message = str(err.value)
    assert message and "\n" not in message
    return message


def test_empty_state_renders_nothing():
    assert TaskState().render() == ""


def test_render_marks_each_status():
    state = TaskState("Find ORD-1042's waybill", [
        Todo("1", "read orders.csv", "completed", "ORD-1042 is on VD-88317"),
        Todo("2", "check the carrier", "in_progress"),
        Todo("3", "write the answer"),
    ])
    assert state.render() == "\n".join([
        "<task_state>",
        "Goal: Find ORD-1042's waybill",
        "Todos:",
        "[x] 1. read orders.csv - ORD-1042 is on VD-88317",
        "[~] 2. check the carrier",
        "[ ] 3. write the answer",
        "</task_state>",
    ])


def test_render_without_goal_or_without_todos():
    assert "Goal: (not set)" in TaskState(todos=[Todo("1", "x")]).render()
    assert TaskState("g").render().splitlines()[2:] == ["Todos:", "(none yet)", "</task_state>"]


def test_todo_write_numbers_missing_ids_and_defaults_to_pending():
    state = TaskState()
    assert state.write([{"subject": "  read a.txt "}, {"subject": "read b.txt", "id": "b"},
                        {"subject": "answer", "status": "in_progress", "note": "draft"}]
                       ) == "Todo list saved: 3 items."
    assert state.todos == [Todo("1", "read a.txt", "pending"), Todo("b", "read b.txt", "pending"),
                           Todo("3", "answer", "in_progress", "draft")]
    state.write([{"subject": "only one"}])
    assert state.todos == [Todo("1", "only one")]  # write replaces the list


@pytest.mark.parametrize(("todos", "expected"), [
    ([{"subject": "a", "status": "done"}], "status must be one of pending, in_progress, completed"),
    ([{"subject": "a"}, {"subject": "   "}], "todo 2 needs a non-empty 'subject'"),
    ([{"status": "pending"}], "todo 1 needs a non-empty 'subject'"),
    (["just a string"], "todo 1 needs a non-empty 'subject'"),
    ([{"subject": "a", "id": "x"}, {"subject": "b", "id": "x"}], "todo ids must be unique"),
    ({"subject": "a"}, "todos must be a list"),
    ([{"subject": "a"}] * (MAX_TODOS + 1), f"at most {MAX_TODOS}"),
])
def test_todo_write_rejects_bad_input_and_keeps_the_old_list(todos, expected):
    state = TaskState(todos=[Todo("1", "keep me")])
    assert expected in one_line_tool_error(state.write, todos)
    assert state.todos == [Todo("1", "keep me")]


def test_todo_update_changes_status_and_keeps_the_note_unless_given():
    state = TaskState()
    state.write([{"subject": "a"}, {"subject": "b"}])
    assert state.update("2", "in_progress", "started") == "Todo 2 is in_progress."
    assert state.update(2, "completed") == "Todo 2 is completed."  # ids compare as text
    assert state.todos[1] == Todo("2", "b", "completed", "started")
    assert state.todos[0] == Todo("1", "a", "pending")


def test_todo_update_errors_are_one_line_and_change_nothing():
    state = TaskState()
    state.write([{"subject": "a"}, {"subject": "b", "id": "x"}])
    message = one_line_tool_error(state.update, "9", "completed")
    assert message == "no todo with id '9'; ids: 1, x"
    assert "ids: none" in one_line_tool_error(TaskState().update, "1", "completed")
    assert "not 'finished'" in one_line_tool_error(state.update, "1", "finished", "note")
    assert state.todos[0] == Todo("1", "a", "pending")


def test_set_goal_strips_and_rejects_empty():
    state = TaskState()
    assert state.set_goal("  ship it ") == "Goal set: ship it"
    assert state.goal == "ship it"
    one_line_tool_error(state.set_goal, "  ")
    one_line_tool_error(state.set_goal, None)
    assert state.goal == "ship it"


def test_tools_are_bound_to_the_state_and_have_schemas():
    state = TaskState()
    tools = state.tools()
    assert [t.__name__ for t in tools] == ["task_set_goal", "todo_write", "todo_update"]
    schemas = {s["name"]: s for s in map(tool_schema, tools)}
    assert schemas["todo_write"]["input_schema"]["properties"] == {
        "todos": {"type": "array", "items": {"type": "object"}}}
    assert schemas["todo_update"]["input_schema"]["required"] == ["id", "status"]
    assert all(s["description"] and "\n" not in s["description"] for s in schemas.values())

    box = Toolbox(tools)
    box.call({"id": "a", "name": "task_set_goal", "input": {"goal": "find ORD-1042"}})
    box.call({"id": "b", "name": "todo_write", "input": {"todos": [{"subject": "look up"}]}})
    done = box.call({"id": "c", "name": "todo_update", "input": {"id": "1", "status": "completed"}})
    assert done == {"type": "tool_result", "tool_use_id": "c", "content": "Todo 1 is completed."}
    assert state.render().splitlines()[1:4] == ["Goal: find ORD-1042", "Todos:", "[x] 1. look up"]
    bad = box.call({"id": "d", "name": "todo_update", "input": {"id": "7", "status": "completed"}})
    assert bad["is_error"] is True
    assert bad["content"] == "ToolError: no todo with id '7'; ids: 1"


def test_notes_tools_append_to_a_file_in_the_workspace(tmp_path):
    write_note, read_notes = notes_tools(Workspace(tmp_path))
    assert read_notes() == "(no notes yet)"
    assert write_note("  Use carrier VD, not XP.  ") == f"Noted in {NOTES_FILE}."
    write_note("ORD-1042 ships on VD-88317")
    expected = "- Use carrier VD, not XP.\n- ORD-1042 ships on VD-88317\n"
    assert (tmp_path / "NOTES.md").read_text(encoding="utf-8") == expected
    assert read_notes() == expected
    assert "some text" in one_line_tool_error(write_note, " \n ")
    assert (tmp_path / "NOTES.md").read_text(encoding="utf-8") == expected


def test_notes_tools_with_a_custom_path_create_its_folder(tmp_path):
    write_note, read_notes = notes_tools(Workspace(tmp_path), "plan/PLAN.md")
    write_note("step 1: read the logs")
    plan = tmp_path / "plan" / "PLAN.md"
    assert plan.read_text(encoding="utf-8") == "- step 1: read the logs\n"
    assert read_notes() == "- step 1: read the logs\n"


def test_notes_tools_cannot_leave_the_workspace(tmp_path):
    inside = tmp_path / "ws"
    inside.mkdir()
    write_note, _ = notes_tools(Workspace(inside), "../escape.md")
    one_line_tool_error(write_note, "x")
    assert not (tmp_path / "escape.md").exists()
