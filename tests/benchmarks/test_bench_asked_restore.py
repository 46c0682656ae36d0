"""The asked-compaction / restore / memory benchmark on one scenario: its invariants."""

from pathlib import Path

import pytest

from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_asked_restore.py"


@pytest.fixture(scope="module")
def bench():
    return load_script(SCRIPT, "bench_asked_restore")


@pytest.fixture(scope="module")
def result(bench):
    return bench.run(names=["logistics"])


def row(result, variant):
    (found,) = [r for r in result["rows"] if r["variant"] == variant]
    return found


def test_every_comparison_and_variant_ran(bench, result):
    assert {(r["comparison"], r["variant"]) for r in result["rows"]} == {
        (c, v) for c, variants in bench.COMPARISONS.items() for v in variants}


def test_only_the_model_asked_runs_call_compact(result):
    assert row(result, "model-asked")["asks"] >= 1
    assert row(result, "automatic")["asks"] == 0


def test_memory_answers_where_nothing_kept_outside_does_not(result):
    assert row(result, "memory tool")["outcome"] == "correct"
    assert row(result, "nothing outside")["outcome"] == "stuck"  # the loop guard stops it


def test_the_table_has_a_block_per_comparison(bench, result):
    text = bench.table(result)
    assert all(f"**{c.capitalize()}**" in text for c in bench.COMPARISONS)


@pytest.mark.slow  # every scenario, the long one included, at three budgets (about 30 s)
@pytest.mark.parametrize("budget", [4_000, 8_000, 16_000])
def test_no_variant_runs_to_max_turns(bench, monkeypatch, budget):
    """Issue 37: a run either answers or is stopped by the progress guard; none spends
    its turns to the cap (the long task has a cap of its own, `Scenario.max_turns`)."""
    monkeypatch.setattr(bench, "BUDGET", budget)
    capped = [(r["scenario"], r["variant"]) for r in bench.run()["rows"]
              if r["outcome"] == "max_turns"]
    assert capped == []
