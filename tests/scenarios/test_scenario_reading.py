"""Scenarios read their facts from the files: edit a file and the right answer changes.

The ground truth is the scenario's own extractors run over the workspace files, and the
agent's answer is written from what it read, so a tampered file changes both; a wrong
value placed in the agent's context (a tool result, a summary) reaches its answer and is
graded wrong; a missing one gives a partial answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.runner import start
from jupyter_compaction.scenarios import Scenario
from jupyter_compaction.vocab import UNKNOWN

ALL = [scenarios.load(name) for name in scenarios.names()]
GOLDEN_STARTS = {
    "agents": "Files that define a tool dispatch table: agents/browser_tools.py (ACTION_TABLE), "
    "agents/mcp_bridge.py (HANDLER_REGISTRY), agents/router.py (TOOL_HANDLERS), "
    "agents/shell_agent.py (DISPATCH).",
    "logistics": "Resolution for ticket TCK-5521 (order ORD-1042, waybill VD-88317): "
    "No refund; One free redelivery.",
    "debug": "INC-3318 (SEV-2). Root cause: checkout-api gives up on inventory-service after "
    "timeout_seconds: 30",
    "audit": "Licence audit (services/billing/requirements.txt: 56 packages;",
}


def play_edited(name: str, tmp_path: Path, edit, **knobs):
    """Build the agent, edit its workspace, run it; (run, workspace, scenario)."""
    session = start(name, workdir=str(tmp_path / "ws"), **knobs)
    agent, task = session.agent, session.task
    edit(agent.workspace.root)
    return agent.run(task, max_turns=80), agent.workspace, scenarios.load(name)


@pytest.mark.parametrize("sc", ALL, ids=lambda s: s.name)
def test_truth_reads_every_fact_and_keeps_every_must_keep_item(sc: Scenario) -> None:
    answer = sc.expected_answer
    assert UNKNOWN not in answer and "\n" not in answer
    for item in sc.must_keep:
        assert item in answer, f"the answer drops {item!r}"
    assert sc.is_correct("  " + answer + "\n") and not sc.is_correct(answer[:-1])


@pytest.mark.parametrize("name", list(GOLDEN_STARTS))
def test_expected_answers_do_not_drift(name: str) -> None:
    assert scenarios.load(name).expected_answer.startswith(GOLDEN_STARTS[name])


@pytest.mark.parametrize("sc", ALL, ids=lambda s: s.name)
def test_a_missing_fact_is_partial_and_a_wrong_one_is_wrong(sc: Scenario) -> None:
    truth = sc.extracted()  # in the order the model finds them
    name = next(k for k, v in truth.items() if v in sc.must_keep or
                any(item in v for item in sc.must_keep))
    partial = sc.grade(sc.answer({k: v for k, v in truth.items() if k != name}))
    assert partial.status == "partial" and partial.missing
    wrong = sc.grade(sc.answer({**truth, name: "ZZ-9999"}))
    assert wrong.status == "wrong" and "ZZ-9999" in wrong.wrong
    assert str(wrong).startswith("wrong (wrong: ZZ-9999")


def test_logistics_follows_an_edited_depot_and_policy(tmp_path: Path) -> None:
    def edit(root: Path) -> None:
        depot = root / "depots" / "D-17.json"
        data = json.loads(depot.read_text())
        data["redelivery_calendar"][0]["free"] = 0  # 2024-03-18 08:00-13:00 is full now
        depot.write_text(json.dumps(data, indent=2))
        policy = root / "policies" / "late-delivery.json"
        policy.write_text(policy.read_text().replace("No refund when", "Full refund when"))

    run, ws, sc = play_edited("logistics", tmp_path, edit, budget=8000)
    assert sc.expected(ws) != sc.expected_answer
    assert "Full refund" in sc.expected(ws) and "2024-03-19 13:00-18:00" in sc.expected(ws)
    assert run.answer == sc.expected(ws) and sc.grade(run.answer, ws).status == "correct"
    assert sc.grade(run.answer).status == "wrong"  # against the unedited files


def test_logistics_takes_the_order_id_from_the_ticket(tmp_path: Path) -> None:
    def edit(root: Path) -> None:
        for folder, old, new in (("tickets/TCK-5521.json", "ORD-1042", "ORD-2077"),):
            path = root / folder
            path.write_text(path.read_text().replace(old, new))
        order = root / "orders" / "ORD-1042.json"
        order.rename(root / "orders" / "ORD-2077.json")

    run, ws, sc = play_edited("logistics", tmp_path, edit, budget=8000)
    calls = [e.input for e in run.events if type(e).__name__ == "ToolCalled"
             and e.name == "lookup_order"]
    assert calls == [{"order_id": "ORD-2077"}]
    assert "ORD-2077" in run.answer and sc.outcome(run, ws) == "correct"


def test_agents_finds_a_new_file_and_an_edited_table(tmp_path: Path) -> None:
    def edit(root: Path) -> None:
        (root / "agents" / "voice_tools.py").write_text(
            '"""Voice tools."""\n\nfrom collections.abc import Callable\n\n\n'
            "def say(text: str) -> str:\n    return text\n\n\n"
            "SPEECH_ACTIONS: dict[str, Callable[..., str]] = {\"say\": say}\n")
        router = root / "agents" / "router.py"
        router.write_text(router.read_text().replace("TOOL_HANDLERS", "ROUTES"))

    run, ws, sc = play_edited("agents", tmp_path, edit, budget=8000)
    truth = sc.expected(ws)
    assert "agents/voice_tools.py (SPEECH_ACTIONS)" in truth and "ROUTES" in truth
    assert run.status == "finished" and run.answer == truth
    assert sc.grade(run.answer).status == "wrong"


def test_a_wrong_tool_result_reaches_the_answer_and_is_graded_wrong(tmp_path: Path) -> None:
    session = start("logistics", workdir=str(tmp_path / "ws"), budget=20_000)
    agent, task = session.agent, session.task
    real = agent.workspace.read_text("depots/D-17.json")
    tools = {fn.__name__: fn for fn in agent.user_tools}
    real_get_depot = tools["get_depot"]

    def get_depot(depot_id: str) -> str:
        """Fetch a carrier depot: opening hours, hold rules and redelivery calendar."""
        return real_get_depot(depot_id).replace('"slot": "08:00-13:00"', '"slot": "17:00-20:00"')

    agent.user_tools = [get_depot if fn.__name__ == "get_depot" else fn for fn in agent.user_tools]
    run = agent.run(task)
    sc = scenarios.load("logistics")
    assert "17:00-20:00" in run.answer and agent.workspace.read_text("depots/D-17.json") == real
    grade = sc.grade(run.answer, agent.workspace)
    assert grade.status == "wrong" and "17:00-20:00" in grade.wrong
