"""The quality benchmark prices runs as stated and computes the erosion curve.

The full tables are exercised by test_run_quick.py.
"""

from pathlib import Path

import pytest

from jupyter_compaction.agent import Run
from jupyter_compaction.models.base import Usage
from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_quality.py"


@pytest.fixture(scope="module")
def bench():
    return load_script(SCRIPT, "bench_quality")


def test_cost_with_and_without_caching(bench):
    run = Run(task="t")
    run.usage = [Usage(input_tokens=0, output_tokens=100, cache_creation_input_tokens=1_000,
                       cache_read_input_tokens=9_000)]
    run.summary_usage = [Usage(input_tokens=2_000, output_tokens=200)]
    # Haiku 4.5: $1 in, $5 out, writes 1.25x, reads 0.1x, per million tokens
    assert bench.cost(run, cached=False) == pytest.approx((12_000 * 1 + 300 * 5) / 1e6)
    assert bench.cost(run, cached=True) == pytest.approx(
        (2_000 * 1 + 1_000 * 1.25 + 9_000 * 0.1 + 300 * 5) / 1e6)


def test_one_measured_run(bench):
    row = bench.measure("logistics", 8_000, "progressive", None, True)
    assert row["success"] and row["status"] == "finished"
    assert row["repeats"] == 0 and row["recall_answer"] == 1.0
    assert 0 < row["peak_over_budget"] <= 1.0 and row["compactions"] >= 1
    assert row["cost_cached"] > 0 and row["cost_uncached"] > 0


def test_erosion_is_computed_and_task_state_holds_every_fact(bench):
    summary = bench.erosion("agents", False)
    with_state = bench.erosion("agents", True)
    assert [p["compaction"] for p in summary] == list(range(1, 9))
    assert len(with_state) == 8
    assert all(p["seen"] > 0 and p["kept"] <= p["seen"] for p in summary + with_state)
    assert all(p["recall"] == 1.0 for p in with_state)
    # With the library's prompt (identifiers verbatim) and the 200-word cap, this short
    # scenario's summaries keep every must-keep fact; erosion shows on long runs instead.
    assert all(p["recall"] == 1.0 for p in summary)
