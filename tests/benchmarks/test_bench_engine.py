"""The engine benchmark measures one scenario's runs as stated and renders before -> after."""

from pathlib import Path

import pytest

from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_engine.py"


@pytest.fixture(scope="module")
def bench():
    return load_script(SCRIPT, "bench_engine")


@pytest.fixture(scope="module")
def rows(bench):
    runs = [bench.measure("agents", strategy) for strategy in bench.STRATEGIES]
    return [{**r, "sent_over_off": r["tokens_sent"] / runs[0]["tokens_sent"]} for r in runs]


def test_each_run_is_measured_with_its_invariants(bench, rows):
    off, *compacting = rows
    assert [r["strategy"] for r in rows] == list(bench.STRATEGIES)
    assert off["compactions"] == 0 and off["low_share"] is None and off["sent_over_off"] == 1
    for row in compacting:
        assert row["status"] == "correct", row
        assert 0 < row["compacting_turns"] <= row["compactions"] <= row["turns"]
        assert row["compact_share"] == row["compacting_turns"] / row["turns"] <= 0.5
        assert 0.5 < row["low_share"] <= 1 and 0 < row["sent_over_off"] < 1
    assert {r["strategy"]: r["summary_calls"] > 0 for r in compacting} == {
        "trim": False, "summarize": True, "compact": True, "progressive": True}


def test_the_table_shows_each_changed_number_as_before_to_after(bench, rows):
    result = {"engine": "new", "budget": bench.BUDGET, "rows": rows}
    old = [{**r, "turns": r["turns"] + 2} if r["strategy"] == "trim" else r for r in rows]
    table = bench.render(result, {"engine": "old", "rows": old})
    trim = next(ln for ln in table.splitlines() if ln.startswith("| agents | trim |"))
    t = rows[1]
    assert f"| {t['compactions']} / {t['turns'] + 2} -> {t['compactions']} / {t['turns']} |" in trim
    off = next(ln for ln in table.splitlines() if ln.startswith("| agents | off |"))
    assert "->" not in off and "before: engine at `old`" in table
    assert "met on every run." in table and "the engine's and the model's together" in table
    assert "->" not in bench.render(result, None)


@pytest.mark.parametrize("kind", ["failing", "useless"])
def test_a_faulty_summarizer_is_measured_and_tabled(bench, rows, kind):
    row = bench.measure_faulty("logistics", kind)
    assert row["summarizer"] == kind and row["status"] == "correct"
    assert 1 <= row["summary_calls"] <= 2 and row["turns"] > 0
    result = {"engine": "new", "budget": bench.BUDGET, "rows": rows, "faulty": [row]}
    old = {"engine": "old", "rows": rows, "faulty": [{**row, "status": "max_turns"}]}
    line = next(ln for ln in bench.render(result, old).splitlines()
                if ln.startswith(f"| logistics | {kind} |"))
    assert line.startswith(f"| logistics | {kind} | max_turns -> correct | {row['turns']} |")
