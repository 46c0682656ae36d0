"""The long scenario: a vendored real package, a task of 49 turns, compaction's economics."""

from __future__ import annotations

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.runner import play

SC = scenarios.load("markdown")
BUDGET = 8_000
MAX_VENDORED_BYTES = 2_000_000


def test_the_snapshot_is_real_small_and_keeps_its_licence() -> None:
    root = SC.workspace_dir
    python = sorted(root.rglob("*.py"))
    assert len(python) >= 40
    assert sum(p.stat().st_size for p in root.rglob("*") if p.is_file()) < MAX_VENDORED_BYTES
    assert "Copyright" in (root / "LICENSE.md").read_text()
    note = (root / "VENDORED.md").read_text()
    assert "3.5.2" in note and "pip download" in note
    meta = (root / "markdown" / "__meta__.py").read_text()
    assert "__version_info__ = (3, 5, 2, 'final', 0)" in meta


def test_the_facts_come_from_the_real_code() -> None:
    truth = SC.truth()
    assert len(truth["files"].split(", ")) >= 40
    assert truth["imports[markdown/extensions/toc.py]"].startswith(".Extension, ..treeprocessors")
    assert truth["imports[markdown/__meta__.py]"] == "none"


@pytest.mark.slow
def test_off_peaks_far_over_the_budget_and_progressive_with_task_state_does_not() -> None:
    off = play("markdown", budget=BUDGET, strategy="off", task_state=False)
    assert off.turn >= 40 and SC.outcome(off) == "correct"
    assert off.peak_context >= 5 * BUDGET
    managed = play("markdown", budget=BUDGET, strategy="progressive", task_state=True)
    assert SC.outcome(managed) == "correct" and managed.repeats == 0
    assert managed.peak_context <= BUDGET and managed.turn >= 40
    assert managed.tokens_sent < off.tokens_sent / 2
    forgetful = play("markdown", budget=BUDGET, strategy="progressive", task_state=False)
    assert forgetful.repeats > 0  # its summaries erode, so it reads files again
