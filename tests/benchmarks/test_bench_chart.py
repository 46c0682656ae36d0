"""The chart benchmark runs and reports every number (timings are not asserted)."""

from pathlib import Path

import pytest

from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_chart.py"


def load():
    return load_script(SCRIPT, "bench_chart")


@pytest.fixture(scope="module")
def bench():
    return load()


@pytest.fixture(scope="module")
def result(bench):
    return bench.run(quick=True)


def test_synthetic_events_are_deterministic(bench):
    assert bench.events(60) == bench.events(60)
    kinds = [type(e).__name__ for e in bench.events(60)]
    assert kinds.count("TurnStarted") == 60 and kinds.count("Compacted") == 2


@pytest.mark.slow  # runs the benchmark (quick mode), load_ext processes included
def test_chart_numbers(result):
    chart = result["chart"]
    assert chart["sizes"] == [10, 1_000] and chart["repeats"] > 0
    assert set(chart["by_size"]) == {"10", "1000"}
    for numbers in chart["by_size"].values():
        assert numbers["turn_ms"] > 0 and numbers["compaction_ms"] > 0
    assert chart["turn_ratio"] > 0 and chart["compaction_ratio"] > 0
    small, large = (chart["by_size"][s]["kb_sent"] for s in ("10", "1000"))
    assert 0 < small < large  # every point is sent


@pytest.mark.slow  # needs the benchmark run
def test_load_ext_numbers(result):
    load = result["load_ext"]
    assert load["processes"] >= 1
    for key in ("shell_s", "shell_plus_load_ext_s", "load_ext_alone_s"):
        assert load[key] > 0
    assert isinstance(load["added_s"], float)
    assert load["heavy_modules_loaded"] == []


@pytest.mark.slow  # needs the benchmark run
def test_table_and_main(bench, result, capsys, monkeypatch):
    text = bench.table(result)
    assert "| turn (ms) |" in text and "| figure sent per update (kB) |" in text
    assert "added by %load_ext" in text
    monkeypatch.setattr(bench, "run", lambda quick: result)
    assert bench.main(["--quick"]) == 0
    assert capsys.readouterr().out.strip() == text
