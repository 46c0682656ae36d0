"""The long-scenario benchmark: its rows, its denominator, and offload's reading back."""

from pathlib import Path

import pytest

from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_long.py"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def bench():
    return load_script(SCRIPT, "bench_long")


@pytest.fixture(scope="module")
def result(bench):
    return bench.run(variants=["trim"], ways=["as it is", "offload"])


def test_each_row_is_a_variant_and_a_way_with_its_share_of_off(result):
    rows = result["rows"]
    assert [(r["variant"], r["way"]) for r in rows] == [("trim", "as it is"),
                                                        ("trim", "offload")]
    for r in rows:
        assert r["share"] == r["sent"] / result["baseline"] and 0 < r["share"] < 1


def test_each_run_may_take_twice_the_turns_off_takes(result, bench):
    assert result["max_turns"] == bench.TURNS_OVER_OFF * 49  # plain `off` takes 49 turns
    assert f"at most {result['max_turns']} turns a run" in bench.table(result)


def test_offloaded_trim_still_answers_correctly(result, bench):
    assert all(r["outcome"] == "correct" for r in result["rows"])
    table = bench.table(result)
    assert "| trim | offload | correct |" in table and "share of `off`" in table
