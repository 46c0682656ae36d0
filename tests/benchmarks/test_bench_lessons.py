"""The lessons benchmark skips in quick mode and says so when there are no lessons."""

from pathlib import Path

import pytest

from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_lessons.py"


@pytest.fixture()
def bench():
    return load_script(SCRIPT, "bench_lessons")


def test_quick_mode_skips_with_a_note(bench):
    result = bench.run(quick=True)
    assert result["status"] == "skipped"
    assert "skipped in quick mode" in bench.table(result)


def test_no_notebooks_means_no_lessons_yet(bench, tmp_path, monkeypatch):
    monkeypatch.setattr(bench, "LESSONS", tmp_path / "lessons")
    result = bench.run(quick=False)
    assert result["status"] == "no lessons" and result["notebooks"] == []
    assert "no lessons yet" in bench.table(result)


def test_a_failed_run_lists_its_failing_cells(bench):
    text = bench.table({"status": "failed", "notebooks": ["lessons/a.ipynb"], "command": "c",
                        "seconds": 3.0, "per_notebook_s": 3.0, "summary": "1 failed",
                        "failed_cells": ["lessons/a.ipynb::Cell 1"]})
    assert "**failed**" in text and "`lessons/a.ipynb::Cell 1`" in text
