"""Every scenario step is real: its tool output carries its markers, its fact is unique."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.scenarios import Scenario, Step
from jupyter_compaction.workspace import Workspace

ALL = [scenarios.load(name) for name in scenarios.names()]
STEPS = [pytest.param(sc, st, id=f"{sc.name}:{st.id}") for sc in ALL for st in sc.steps]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, str]]:
    """The output of every step of every scenario, on a fresh copy of its workspace."""
    result: dict[str, dict[str, str]] = {}
    for sc in ALL:
        ws = sc.prepare(tmp_path_factory.mktemp(sc.name) / "ws")
        result[sc.name] = {st.id: sc.run_step(st, ws) for st in sc.steps}
    return result


@pytest.mark.parametrize(("sc", "st"), STEPS)
def test_tool_output_contains_every_marker(sc: Scenario, st: Step, outputs) -> None:
    text = outputs[sc.name][st.id]
    missing = [m for m in st.markers if m not in text]
    assert not missing, f"{sc.name}:{st.id} output lacks {missing}"
    assert all(m in st.fact for m in st.markers)
    assert st.visible_in(text) and st.visible_in(st.fact)


@pytest.mark.parametrize(("sc", "st"), STEPS)
def test_markers_do_not_show_up_anywhere_else(sc: Scenario, st: Step, outputs) -> None:
    """A finding must not look visible unless its own output, fact or answer is there.

    Everything else an agent's context can hold (task, tool calls, todo labels, tool
    descriptions, every other step's output and fact) together must not contain all of
    this step's markers.
    """
    others = [sc.task]
    others += [json.dumps(s.args) + " " + s.label for s in sc.steps]
    others += [inspect.getdoc(fn) or "" for fn in sc.tools(Workspace(sc.workspace_dir))]
    others += [outputs[sc.name][s.id] + "\n" + s.fact for s in sc.steps if s.id != st.id]
    assert not st.visible_in("\n".join(others)), f"{st.markers} also appear elsewhere"


@pytest.mark.parametrize("sc", ALL, ids=lambda s: s.name)
def test_step_shape(sc: Scenario) -> None:
    assert 6 <= len(sc.steps) <= 14
    assert len({s.id for s in sc.steps}) == len(sc.steps)
    assert len({s.label for s in sc.steps}) == len(sc.steps)
    for a in sc.steps:  # "[done] <label>" must not also match a longer label
        assert not any(b.label.startswith(a.label) for b in sc.steps if b is not a), a.label
    tools = {fn.__name__ for fn in sc.tools(Workspace(sc.workspace_dir))}
    for st in sc.steps:
        assert st.tool in tools
        assert st.markers and all(isinstance(m, str) and m.strip() for m in st.markers)
        assert "\n" not in st.fact and st.fact.strip() == st.fact
        assert json.loads(json.dumps(st.args)) == st.args  # JSON-able
        assert not st.visible_in(sc.task)


@pytest.mark.parametrize("sc", ALL, ids=lambda s: s.name)
def test_reading_everything_needs_compaction(sc: Scenario, outputs) -> None:
    """8k-20k tokens (chars/4) of tool output: an 8,000-token budget must compact."""
    chars = sum(len(text) for text in outputs[sc.name].values())
    assert 8_000 <= chars / 4 <= 20_000, chars / 4
    tokens = pytest.importorskip("jupyter_compaction.tokens").TokenCounter()
    counts = [tokens.count_text(text) for text in outputs[sc.name].values()]
    assert 8_000 <= sum(counts) <= 20_000, sum(counts)
    assert max(counts) <= 4_000, "one result should not fill half of an 8k budget"


@pytest.mark.parametrize("sc", ALL, ids=lambda s: s.name)
def test_outputs_are_deterministic(sc: Scenario, outputs, tmp_path: Path) -> None:
    ws = sc.prepare(tmp_path / "again")
    assert {st.id: sc.run_step(st, ws) for st in sc.steps} == outputs[sc.name]


@pytest.mark.parametrize("sc", ALL, ids=lambda s: s.name)
def test_must_keep_items_are_found_and_reported(sc: Scenario) -> None:
    assert sc.must_keep
    for item in sc.must_keep:
        assert any(item in st.fact for st in sc.steps), f"no step finds {item!r}"
        assert item in sc.expected_answer, f"the answer drops {item!r}"


@pytest.mark.parametrize(("sc", "st"), STEPS)
def test_every_finding_changes_the_answer(sc: Scenario, st: Step) -> None:
    partial = {k: v for k, v in sc.facts.items() if k != st.id}
    answer = sc.answer(partial)
    assert answer != sc.expected_answer
    assert not sc.is_correct(answer)


@pytest.mark.parametrize("sc", ALL, ids=lambda s: s.name)
def test_answers(sc: Scenario) -> None:
    assert sc.expected_answer == sc.answer(sc.facts) == sc.compose(sc.facts)
    assert sc.is_correct(sc.expected_answer)
    assert sc.is_correct("  " + sc.expected_answer + "\n")
    assert not sc.is_correct(sc.expected_answer[:-1])
    nothing = sc.answer({})
    assert nothing and nothing != sc.expected_answer
    assert "\n" not in sc.expected_answer
    # Only the step ids matter to compose: facts in other words give the same answer.
    assert sc.answer({k: "seen" for k in sc.facts}) == sc.expected_answer


def test_agents_scenario_shape() -> None:
    sc = scenarios.load("agents")
    files = [p for p in (sc.workspace_dir / "agents").iterdir() if p.suffix == ".py"]
    assert len(files) == 12
    assert all(1_500 <= p.stat().st_size <= 4_800 for p in files)
    tables = [st for st in sc.steps if "defines a tool dispatch table" in st.fact]
    assert 3 <= len(tables) <= 4
    assert len({st.markers for st in tables}) == len(tables)  # each table has its own name


def test_logistics_ids_and_decision() -> None:
    answer = scenarios.load("logistics").expected_answer
    for item in ("ORD-1042", "VD-88317", "TCK-5521", "no refund", "free redelivery"):
        assert item in answer


GOLDEN_STARTS = {
    "agents": "Read 12 of the 12 files under agents/. Files that define a tool dispatch table: "
    "agents/browser_tools.py (ACTION_TABLE), agents/mcp_bridge.py (HANDLER_REGISTRY), "
    "agents/router.py (TOOL_HANDLERS), agents/shell_agent.py (DISPATCH).",
    "logistics": "Resolution for ticket TCK-5521 (order ORD-1042, waybill VD-88317): "
    "no refund and free redelivery.",
    "debug": "INC-3318: Root cause: checkout-api stops waiting for inventory-service after 30 s",
    "audit": "Licence audit of 3 services (129 packages checked): 2 blocked, "
    "1 allowed by exception, 0 open.",
}


@pytest.mark.parametrize("name", list(GOLDEN_STARTS))
def test_expected_answers_do_not_drift(name: str) -> None:
    assert scenarios.load(name).expected_answer.startswith(GOLDEN_STARTS[name])
