"""The browser-build benchmark's table and lesson selection (the run itself needs Chromium
and npm, and minutes: it is run by hand, see benchmarks/README.md)."""

from pathlib import Path

import pytest

from tests.support.scripts import load_script

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_lite.py"


@pytest.fixture(scope="module")
def bench():
    return load_script(SCRIPT, "bench_lite")


def row(lesson: str, browser_s: float, ok: bool = True) -> dict:
    return {"lesson": lesson, "venv_s": 5.0, "venv_cpu_s": 4.0, "venv_ok": True,
            "kernel_s": 10.0, "run_s": browser_s - 10.0, "browser_s": browser_s,
            "browser_cpu_s": 20.0, "browser_ok": ok, "load": 3.5}


def test_each_lesson_is_a_row_with_its_ratio_and_verdict(bench):
    table = bench.markdown({"rows": [row("01_a", 25.0), row("02_b", 40.0, ok=False)],
                            "goal_s": 30, "build": None})
    lines = table.splitlines()
    assert len(lines) == 4 and lines[0].count("|") == lines[2].count("|")
    assert "| 01_a | 5.0 s | 10.0 s | 15.0 s | 25.0 s | 5.0x | yes | 4.0 s | 20.0 s |" in table
    assert "| 02_b (failed) |" in lines[3] and "| **no** |" in lines[3]


def test_lessons_are_the_learner_copies_chosen_by_prefix(bench):
    every = bench.lessons()
    assert every and all(p.parent.name == "learn" for p in every)
    assert [p.name[:2] for p in bench.lessons(["01", "08"])] == ["01", "08"]
