"""Lesson 10's "Try this with Claude" cell sends exactly the parameters the lesson builds,
and the local Messages API (which checks `context_management`, the beta headers and the
tools rule) refuses none of its requests."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from jupyter_compaction import ClearToolResults
from jupyter_compaction.api_context import clear_tool_edit, compact_edit
from tests.lessons.test_lessons_try_this import REPO, SKIP_LINE, try_this_cell
from tests.support.fake_messages_api import FakeMessagesAPI, scenario_responder

LESSON = REPO / "lessons" / "10_api_context_management.ipynb"


@pytest.mark.slow
def test_the_try_this_cell_sends_the_lessons_edits_and_none_is_refused(tmp_path):
    with FakeMessagesAPI(scenario_responder()) as api:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
        env.update(ANTHROPIC_API_KEY="sk-ant-test-key-for-the-fake-api",
                   ANTHROPIC_BASE_URL=api.base_url, JUPYTER_COMPACTION_TEXT="1",
                   PYTHONPATH=os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH"))
                                              if p))
        done = subprocess.run([sys.executable, "-c", try_this_cell(LESSON)], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert SKIP_LINE not in done.stdout and "error" not in done.stdout.lower(), done.stdout
    requests = api.message_requests
    assert [r["status"] for r in requests] == [200, 200], [r["response"] for r in requests]
    editing, compaction = (r["body"] for r in requests)
    assert editing["context_management"]["edits"] == [clear_tool_edit(ClearToolResults(),
                                                                      60_000)]
    assert compaction["context_management"]["edits"] == [compact_edit(100_000)]
    assert {"type": "memory_20250818", "name": "memory"} in editing["tools"]
    for body in (editing, compaction):  # the history's tool calls come with their tools
        called = {b["name"] for m in body["messages"] if isinstance(m["content"], list)
                  for b in m["content"] if b["type"] == "tool_use"}
        assert called and called <= {t["name"] for t in body["tools"]}
    assert [r["headers"]["anthropic-beta"] for r in requests] == [
        "context-management-2025-06-27", "compact-2026-01-12"]
    assert done.stdout.count(": accepted,") == 2
