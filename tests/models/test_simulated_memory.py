"""The simulated model's memory follows what its request shows: a finding in the newest
result is written down even when the plan that led to it was compacted away."""

from __future__ import annotations

from jupyter_compaction import runner, scenarios
from jupyter_compaction.models.simulated import MEMORY_FILE, SimulatedModel

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
