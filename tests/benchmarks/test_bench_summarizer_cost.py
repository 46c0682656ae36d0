"""The summarizer cost benchmark on one scenario: its invariants, not its numbers."""

from pathlib import Path

import pytest

from jupyter_compaction.models.base import Usage
from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_summarizer_cost.py"


@pytest.fixture(scope="module")
def bench():
    return load_script(SCRIPT, "bench_summarizer_cost")


@pytest.fixture(scope="module")
def result(bench):
    return bench.run(names=["agents"])


def rows(result, design):
    return [r for r in result["rows"] if r["design"] == design]


def test_prices_follow_claudes_cache_multipliers(bench):
    usage = Usage(input_tokens=1_000, output_tokens=100, cache_creation_input_tokens=2_000,
                  cache_read_input_tokens=10_000)
    assert bench.dollars([usage], bench.SONNET.prices) == pytest.approx(
        (1_000 * 3 + 2_000 * 3.75 + 10_000 * 0.30 + 100 * 15) / 1e6)


def test_every_strategy_and_design_ran_and_wrote_the_same_summaries(bench, result):
    assert {(r["strategy"], r["design"]) for r in result["rows"]} == {
        (s, d) for s in bench.STRATEGIES for d in bench.DESIGNS}
    assert all(r["calls"] > 0 and r["correct"] and r["same_summaries"] for r in result["rows"])


def test_same_reads_its_prefix_from_the_cache_and_aux_caches_nothing(result):
    for r in rows(result, "same (append)"):
        assert r["uncached"] == 0 and r["cache_read"] > r["cache_write"] > 0
    for design in ("aux, same model", "aux, Haiku"):
        for r in rows(result, design):
            assert r["cache_write"] == r["cache_read"] == 0 and r["uncached"] > 0


def test_the_cheaper_model_costs_a_third_of_the_same_requests(result):
    pairs = zip(rows(result, "aux, same model"), rows(result, "aux, Haiku"), strict=True)
    for big, small in pairs:
        assert (big["uncached"], big["output"]) == (small["uncached"], small["output"])
        assert small["summary_dollars"] == pytest.approx(big["summary_dollars"] / 3)


def test_the_table_has_totals_and_a_row_per_run(bench, result):
    text = bench.table(result)
    assert "Totals over the scenarios" in text and "Per scenario" in text
    assert text.count("| agents / ") == len(result["rows"])
    assert "Claude Sonnet ($3.00 / $15.00" in text and "Claude Haiku ($1.00 / $5.00)" in text
