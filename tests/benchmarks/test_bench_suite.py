"""The suite benchmark times a pytest run and reads its outcome, runs the README's quick
subset, and never runs the suite in quick mode (the suite runs `run.py --quick`)."""

import shlex
from pathlib import Path

import pytest

from tests.support.scripts import load_script
from tests.test_readme import FULL_SUITE, quick_command

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_suite.py"
TINY = """
import pytest

def test_a(): pass
def test_b(): pass
def test_c(): assert False
@pytest.mark.skip(reason="x")
def test_d(): pass
"""


@pytest.fixture(scope="module")
def bench():
    return load_script(SCRIPT, "bench_suite")


def test_quick_mode_runs_nothing_and_says_so(bench, monkeypatch):
    monkeypatch.setattr(bench, "time_pytest", lambda *a, **k: pytest.fail("ran pytest"))
    result = bench.run(quick=True)
    assert result["status"] == "skipped" and "rows" not in result
    assert "skipped in quick mode" in bench.table(result)


def test_it_times_the_readmes_quick_subset_and_the_whole_suite(bench):
    runs = {label: args for label, args, _ in bench.RUNS}
    assert shlex.split(quick_command())[3:] == [*bench.QUICK_ARGS, *bench.PARALLEL]
    assert shlex.split(FULL_SUITE)[3:] == bench.PARALLEL
    assert runs["quick subset"] == ["-q", *bench.QUICK_ARGS, *bench.PARALLEL]
    assert runs["whole suite"] == ["-q", *bench.PARALLEL]
    assert [goal for *_, goal in bench.RUNS] == [10, 90, 600]


@pytest.mark.slow  # starts a pytest process
def test_one_run_is_timed_counted_and_tabled(bench, tmp_path):
    (tmp_path / "test_tiny.py").write_text(TINY)
    row = bench.time_pytest(["-q", "-p", "no:cacheprovider", "test_tiny.py"], cwd=tmp_path)
    assert row["counts"] == {"failed": 1, "passed": 2, "skipped": 1}
    assert row["returncode"] == 1 and row["seconds"] > 0 and row["cpu_s"] > 0
    assert row["command"] == "python -m pytest -q -p no:cacheprovider test_tiny.py"
    table = bench.table({"status": "measured", "cores": 2,
                         "rows": [{"label": "tiny", "goal_s": 600, **row}]})
    line = next(ln for ln in table.splitlines() if "(tiny)" in ln)
    assert "| 600 s | **no** | 1 failed, 2 passed, 1 skipped | 1 |" in line
