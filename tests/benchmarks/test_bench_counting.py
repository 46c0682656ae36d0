"""The counting benchmark runs, reports every number, and proves the encode-count claim.

Timings are not asserted (they depend on the machine); the structure and the count of
texts an incremental recount tokenizes are.
"""

import json
from pathlib import Path

import pytest

from jupyter_compaction import validate
from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_counting.py"


def load():
    return load_script(SCRIPT, "bench_counting")


@pytest.fixture(scope="module")
def bench():
    return load()


@pytest.fixture(scope="module")
def result(bench):
    return bench.run(quick=True)


def test_history_is_valid_deterministic_and_the_promised_size(bench):
    history = bench.build_history()
    validate(history)
    assert len(history) == bench.N_MESSAGES == 2_000
    assert history == bench.build_history()
    results = [b["content"] for m in history if isinstance(m["content"], list)
               for b in m["content"] if b["type"] == "tool_result"]
    assert results and all(1_000 <= len(r) <= 21_000 for r in results)
    assert all(isinstance(json.loads(r), dict) for r in results[:20])
    assert any(isinstance(m["content"], str) for m in history[1:])  # text turns too


@pytest.mark.slow  # runs the benchmark (quick mode)
def test_run_returns_every_number(result):
    for key in ("recount_s", "scratch_s", "floor_s", "tally_append_s", "first_count_s",
                "scratch_over_recount", "recount_over_floor", "tally_over_floor"):
        assert isinstance(result[key], float) and result[key] > 0, key
    assert result["messages"] == 2_000
    assert result["history_tokens"] > 100_000
    assert result["quick"] is True
    assert result["repeats"]["scratch"] >= 1 and result["repeats"]["recount"] >= 3
    assert result["scratch_over_recount"] == pytest.approx(result["scratch_s"]
                                                           / result["recount_s"])


@pytest.mark.slow  # needs the benchmark run
def test_a_recount_after_one_append_encodes_exactly_one_text(result):
    assert result["recount_new_encodes"] == 1
    assert result["recount_new_encodes_all"] == [1]
    assert result["scratch_encodes"] > 2_000  # from scratch every block is tokenized again


@pytest.mark.slow  # needs the benchmark run
def test_main_prints_a_markdown_table_to_stdout(bench, result, capsys, monkeypatch):
    monkeypatch.setattr(bench, "run", lambda quick: result)
    assert bench.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "| (a) recount after appending one message (warm counter) |" in out
    assert "| (b)/(a): scratch vs incremental recount |" in out
    assert "Texts tokenized by one incremental recount: 1 " in out
    assert sum(line.startswith("|---") for line in out.splitlines()) == 2
