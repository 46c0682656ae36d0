"""The memory tool in a run: the agent offers it, the simulated model uses it as a model
told to check its memory first would, and the Claude adapter sends it as the API's tool."""

from __future__ import annotations

import pytest

from jupyter_compaction import runner, scenarios
from jupyter_compaction.agent import Agent
from jupyter_compaction.events import Compacted, ToolCalled
from jupyter_compaction.memory_tool import MEMORY_ROOT
from jupyter_compaction.models.simulated import MEMORY_FILE, SimulatedModel, _memory_steps
from jupyter_compaction.workspace import Workspace


def memory_calls(run) -> list[dict]:
    return [e.input for e in run.of(ToolCalled) if e.name == "memory"]


def test_memory_needs_a_workspace():
    with pytest.raises(ValueError, match="memory=True needs a workspace"):
        Agent(SimulatedModel("logistics"), memory=True)


def test_the_model_views_its_memory_first_then_writes_its_findings():
    with runner.start("logistics", budget=100_000, task_state=False, memory=True) as session:
        run = session.play()
        written = (session.agent.memory.root / "findings.md").read_text()
    calls = memory_calls(run)
    assert calls[0] == {"command": "view", "path": MEMORY_ROOT}
    first_turn = [e.name for e in run.of(ToolCalled) if e.turn == 1]
    assert first_turn == ["memory"]  # it looks before it acts
    assert {"create", "insert"} <= {c["command"] for c in calls}
    assert "waybill = " in written
    assert scenarios.load("logistics").outcome(run) == "correct"


def test_after_a_compaction_it_reads_its_memory_back_before_acting():
    with runner.start("debug", budget=6_000, task_state=False, memory=True) as session:
        run = session.play()
    assert run.compactions
    first = min(e.turn for e in run.of(Compacted))
    reads = [e for e in run.of(ToolCalled) if e.turn >= first and e.name == "memory"
             and e.input == {"command": "view", "path": MEMORY_FILE}]
    assert reads, "no read of the memory file after the first compaction"
    assert {e.name for e in run.of(ToolCalled) if e.turn == reads[0].turn} == {"memory"}


def test_memory_is_correct_where_no_memory_is_not():
    """At the same budget, with trimming, the run without task state, notes or memory
    re-reads what it trimmed until the loop guard stops it as stuck; with the memory tool
    it answers."""
    for name in ("debug", "logistics"):
        outcomes = {}
        for memory in (False, True):
            with runner.start(name, budget=8_000, strategy="trim", task_state=False,
                              memory=memory) as session:
                outcomes[memory] = scenarios.load(name).outcome(session.play(),
                                                                session.agent.workspace)
        assert outcomes == {False: "stuck", True: "correct"}, name


def test_memory_left_by_an_earlier_run_is_read_before_anything_else(tmp_path):
    agent = Agent(SimulatedModel("logistics"), workspace=Workspace(tmp_path), memory=True,
                  task_state=False, tools=scenarios.load("logistics").tools(
                      scenarios.load("logistics").prepare(tmp_path / "ws")))
    (tmp_path / "memories").mkdir()
    (tmp_path / "memories" / "findings.md").write_text("- old = 1\n")
    run = agent.run(scenarios.load("logistics").task, max_turns=4)
    commands = [c["command"] for c in memory_calls(run)]
    assert commands[:2] == ["view", "view"]  # the folder lists the file: read it first
    assert "create" not in commands


def test_a_create_refused_because_the_file_exists_is_redone_as_an_insert():
    create = {"command": "create", "path": MEMORY_FILE, "file_text": "- a = 1\n"}
    messages = [
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "memory", "input": create}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True,
             "content": f"ToolError: Error: File {MEMORY_FILE} already exists"}]},
    ]
    steps = _memory_steps(messages, {"b": "2"})
    assert steps[-2:] == [
        {"command": "insert", "path": MEMORY_FILE, "insert_line": 0, "insert_text": "- a = 1\n"},
        {"command": "insert", "path": MEMORY_FILE, "insert_line": 0, "insert_text": "- b = 2\n"}]
