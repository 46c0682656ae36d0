"""The simulated model's memory follows what its request shows: a finding in the newest
result is written down even when the plan that led to it was compacted away, and a todo
item whose finding a summary kept is ticked from it."""

from __future__ import annotations

from jupyter_compaction import runner, scenarios
from jupyter_compaction.events import ToolCalled
from jupyter_compaction.models.simulated import MEMORY_FILE, SimulatedModel
from jupyter_compaction.settings import OFFLOAD_SHARE
from jupyter_compaction.tools import truncate

TOOLS = [{"name": name, "description": "", "input_schema": {}}
         for name in ("memory", "list_files", "read_file")]


def test_a_finding_whose_call_the_plan_cannot_name_now_is_still_written(tmp_path):
    """After a trim the listing that named the file is gone, so the plan starts over at
    the listing; the newest result still holds a finding, which the reply writes to
    memory before the next compaction could drop it."""
    source = (runner.copy_workspace("markdown", tmp_path) / "markdown" / "core.py").read_text()
    read = {"type": "tool_use", "id": "t1", "name": "read_file",
            "input": {"path": "markdown/core.py"}}
    messages = [{"role": "user", "content": scenarios.load("markdown").task},
                {"role": "assistant", "content": [read]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": source}]}]
    reply = SimulatedModel("markdown").create(system="", messages=messages, tools=TOOLS,
                                              max_tokens=4_000)
    writes = [b["input"] for b in reply.content if b["type"] == "tool_use"
              and b["name"] == "memory" and b["input"].get("path") == MEMORY_FILE
              and b["input"]["command"] in ("create", "insert")]
    assert writes and "imports[markdown/core.py] = .util" in str(writes)


def play_long(**knobs) -> tuple[str, int, int]:
    """The long scenario at 8,000 tokens: its outcome, turns and re-reads of files."""
    with runner.start("markdown", budget=8_000, **knobs) as session:
        run = session.play()
        outcome = scenarios.load("markdown").outcome(run, session.agent.workspace)
    reads = [e.input["path"] for e in run.of(ToolCalled) if e.name == "read_file"]
    return outcome, run.turn, len(reads) - len(set(reads))


def test_a_todo_item_a_summary_shows_done_is_ticked_and_not_read_again():
    """`compact` summarizes right after a result, before its todo item is ticked: the
    summary keeps the finding, and the model ticks the item from it, so a later summary
    that drops the line leaves no pending item to read again."""
    outcome, turns, again = play_long(strategy="compact")
    assert (outcome, again) == ("correct", 0)
    assert turns < 60


def test_trimming_with_the_memory_tool_and_offload_finishes_without_re_reading():
    """Trimming drops the listing that named a file whose result just came in; the
    finding is written to memory anyway, so the file is not read again."""
    outcome, _, again = play_long(strategy="trim", memory=True, task_state=False,
                                  offload_at=OFFLOAD_SHARE)
    assert (outcome, again) == ("correct", 0)


def test_a_memory_read_back_cut_short_is_read_up_to_its_last_whole_line():
    """The agent caps a result's size: the line it cuts mid-value is no record (read as
    one, "files = ..., tests/test_synta" made the answer name a file that does not
    exist), the whole lines before it are."""
    memory = ("- imports[markdown/core.py] = .util\n"
              "- files = markdown/core.py, markdown/util.py, tests/test_syntax/__init__.py\n")
    view = {"type": "tool_use", "id": "t1", "name": "memory",
            "input": {"command": "view", "path": MEMORY_FILE}}
    messages = [{"role": "user", "content": scenarios.load("markdown").task},
                {"role": "assistant", "content": [view]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                              "content": truncate(memory, len(memory) - 20)}]}]
    model = SimulatedModel("markdown")
    facts = model.reading("", messages, scenarios.load("markdown").task).facts
    assert facts["imports[markdown/core.py]"] == ".util" and "files" not in facts
    messages[2]["content"][0]["content"] = memory  # the same file, whole
    facts = model.reading("", messages, scenarios.load("markdown").task).facts
    assert facts["files"].endswith("tests/test_syntax/__init__.py")


def test_what_a_result_its_plan_no_longer_names_shows_does_not_override_its_plans_record():
    """The news of a call the plan dropped is what its result shows, noted before the
    planned calls' records: filled with '(unknown)' for what it does not show, it
    overwrote a planned call's fact, and trimming without task state on `debug` at
    16,000 answered partially."""
    with runner.start("debug", budget=16_000, strategy="trim", task_state=False) as session:
        outcome = scenarios.load("debug").outcome(session.play(), session.agent.workspace)
    assert outcome == "correct"
