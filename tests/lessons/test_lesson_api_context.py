"""Lesson 10's "Try this with Claude" cell sends exactly the parameters the lesson builds,
and the local Messages API (which checks `context_management`, the beta headers and the
tools rule) refuses none of its requests. Its checked outputs show each kind of
compaction (on demand, in the background, at a threshold with a pause, with instructions
restated) with its block, its stop reason and a price that its printed usage gives."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

import nbformat
import pytest

from jupyter_compaction import ClearToolResults
from jupyter_compaction.api_context import clear_tool_edit, compact_edit
from jupyter_compaction.models.base import Usage
from jupyter_compaction.models.output_rules import apply, rules_in
from jupyter_compaction.pricing import dollars
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


# --- each kind of compaction, as the checked outputs show it ---------------------------------

CHECK = "# NBVAL_CHECK_OUTPUT"
RECEIPT = re.compile(r"^(?P<label>[^:\n]+?)(?: \(call \d+\))?: blocks (?P<blocks>\[[^\]]*\]), "
                     r"stop reason '(?P<stop>\w+)', usage (?P<usage>\{.*\}), "
                     r"\$(?P<price>\d+\.\d{4})$", re.M)
VARIANTS = {"on demand", "in the background", "threshold, paused", "restate off, paused",
            "restate on, paused"}


def checked_cells():
    return [c for c in nbformat.read(LESSON, as_version=4).cells
            if c.cell_type == "code" and c.source.startswith(CHECK)]


def constant(name):
    """A constant as the lesson's checked code sets it (read from its source)."""
    found = [ast.literal_eval(node.value) for cell in checked_cells()
             for node in ast.walk(ast.parse(cell.source)) if isinstance(node, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)]
    assert len(found) == 1, name
    return found[0]


def printed():
    return "".join(o.get("text", "") for cell in checked_cells() for o in cell.outputs)


def test_each_kind_of_compaction_shows_its_block_stop_reason_and_the_price_of_its_usage():
    prices, text = constant("PRICES"), printed()
    found = {m["label"]: m for m in RECEIPT.finditer(text)}
    assert set(found) == VARIANTS
    for label, line in found.items():
        usage = Usage(**ast.literal_eval(line["usage"]))
        assert ast.literal_eval(line["blocks"]) == ["compaction"], label
        assert line["stop"] == "compaction", label
        assert [step["type"] for step in usage.iterations] == ["compaction"], label
        assert float(line["price"]) > 0 and line["price"] == f"{dollars([usage], prices):.4f}"
    for label in ("on demand", "in the background"):  # billed in the iterations alone
        assert "output_tokens" not in ast.literal_eval(found[label]["usage"])
    sent, before, after = map(int, re.search(
        r"then its (\d+) messages became the block: (\d+) -> (\d+) messages", text).groups())
    assert after == before - sent + 1  # exactly the messages sent were replaced


def test_the_restated_rule_is_in_the_answer_only_when_restated():
    sign_off = apply(rules_in([constant("RULE")]), "").strip()
    text = printed()
    for state in ("off", "on"):
        tail = text[text.index(f"restate {state}, paused"):]
        turn, then = (ast.literal_eval(x) for x in re.search(
            r"^  the turn (\[.*?\]), then (\[.*?\])$", tail, re.M).groups())
        end = ast.literal_eval(re.search(r"the answer ends: ('.*')$", tail, re.M)[1])
        assert turn[0] == "compaction" and (end == sign_off) is (state == "on")
        # on: the block alone, a user turn to go on, the rule; off: the reply joined to it
        assert (then == ["user", "system"]) is (state == "on") and (len(turn) > 1) is (
            state == "off")
