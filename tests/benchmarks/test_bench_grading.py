"""The grading benchmark grades a small class, writes a gradebook row per learner, and
says when its 300-learner figure is an extrapolation."""

from pathlib import Path

import pytest

from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_grading.py"


@pytest.mark.slow
def test_a_small_class_is_graded_and_extrapolated(monkeypatch):
    bench = load_script(SCRIPT, "bench_grading")
    monkeypatch.setattr(bench, "QUICK_LEARNERS", 2)
    result = bench.run(quick=True)
    assert result["learners"] == result["gradebook_rows"] == 2
    assert result["notebooks"] == 2 * len(list((bench.ROOT / "lessons").glob("[0-9][0-9]_*.ipynb")))
    assert result["solved_points"] > 0 and result["unsolved_points"] == 0
    assert result["extrapolated"] and result["cpu_per_learner_s"] > 0
    text = bench.table(result)
    assert "extrapolated from this run's rate" in text and "300 learners" in text
