"""Conclusions come from rules over facts: a changed fact in a file flips the conclusion,
and an error that lists valid values is read (issue 21, items 2 and 3)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from jupyter_compaction import runner, scenarios
from jupyter_compaction.events import ToolCalled

ROOMY = 200_000


def play_edited(name: str, task: str, edit: Callable[[Path], None]):
    """Play `task` on a fresh workspace after `edit` changed its files."""
    with runner.start(name, task=task, budget=ROOMY) as session:
        edit(Path(session.agent.workspace.root))
        run = session.play()
        return run, scenarios.load(name).outcome(run, session.agent.workspace)


def replace(path: str, old: str, new: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        text = (root / path).read_text()
        assert old in text
        (root / path).write_text(text.replace(old, new))

    return edit


RESOLVE = "Find out why order ORD-1042 is late and decide what to offer the customer."


def test_nobody_home_changes_the_advice_to_the_customer():
    run, result = play_edited("logistics", RESOLVE, replace(
        "waybills/VD-88317.json", '"reason_code": "NO_ACCESS"', '"reason_code": "NOBODY_HOME"'))
    assert result == "correct"
    assert "access code" not in run.answer and "someone can receive" in run.answer


def test_an_unlisted_reason_leaves_the_advice_unknown():
    run, result = play_edited("logistics", RESOLVE, replace(
        "waybills/VD-88317.json", '"reason_code": "NO_ACCESS"', '"reason_code": "DAMAGED"'))
    assert result == "correct" and "Before booking, (unknown)." in run.answer
    assert "No refund" not in run.answer.split(".")[0]


def test_a_late_attempt_means_a_refund():
    run, result = play_edited("logistics", RESOLVE, replace(
        "orders/ORD-1042.json", '"promised_delivery_date": "2024-03-12"',
        '"promised_delivery_date": "2024-03-08"'))
    assert result == "correct"
    assert "No refund" not in run.answer and "counts as late" in run.answer


def test_a_longer_timeout_is_no_longer_the_root_cause():
    run, result = play_edited("debug", scenarios.load("debug").task, replace(
        "config/checkout-api.yaml", "    timeout_seconds: 30\n    connect_timeout_seconds",
        "    timeout_seconds: 120\n    connect_timeout_seconds"))
    assert result == "correct"
    assert "Root cause: not the checkout-api timeout" in run.answer


def test_an_index_in_use_leaves_the_fix_unknown():
    run, result = play_edited("debug", scenarios.load("debug").task, replace(
        "config/inventory-service.yaml", "use_reservation_index: false",
        "use_reservation_index: true"))
    assert result == "correct" and "Fix: (unknown)." in run.answer


def test_a_renamed_policy_is_found_through_the_error_list():
    def rename(root: Path) -> None:
        (root / "policies/late-delivery.json").rename(root / "policies/late-delivery-v2.json")

    run, result = play_edited("logistics", RESOLVE, rename)
    topics = [e.input.get("topic") for e in run.of(ToolCalled) if e.name == "get_policy"]
    assert topics.count("late-delivery") == 1 and topics.count("late-delivery-v2") == 1
    assert result == "correct" and "policy LD-2.3 applies: No refund" in run.answer


def test_a_renamed_endpoint_is_grepped_by_its_new_name():
    def rename(root: Path) -> None:
        for log in ("logs/checkout-api.log", "logs/inventory-service.log"):
            path = root / log
            path.write_text(path.read_text().replace("stock/reserve", "stock/hold"))

    run, result = play_edited("debug", scenarios.load("debug").task, rename)
    patterns = [e.input["pattern"] for e in run.of(ToolCalled) if e.name == "grep"]
    assert patterns == ["/v2/stock/hold"] and result == "correct"
