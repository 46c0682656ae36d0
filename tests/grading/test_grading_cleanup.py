"""A grading run leaves nothing in the temp folder: finished, or stopped by SIGTERM or
Ctrl-C while learners' workers are running (its own TMPDIR, so nothing else counts)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.grading.grading_solutions import REFERENCE
from tests.grading.test_grading_grade import write

ROOT = Path(__file__).resolve().parents[2]
LOOPS = "def drop_oldest_turns(*args, **kwargs):\n    while True:\n        pass"


def _grade(tmp_path: Path, cells: list[str]) -> tuple[subprocess.Popen, Path]:
    temp = tmp_path / "tmp"
    temp.mkdir()
    for learner in ("ana", "ben"):
        write(tmp_path / "class" / learner, "work", cells)
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": str(ROOT)}
    run = subprocess.Popen([sys.executable, "-m", "jupyter_compaction.cli", "grade",
                            str(tmp_path / "class"), "--out", str(tmp_path / "out"),
                            "--jobs", "2", "--seed", "1"],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return run, temp


@pytest.mark.slow  # grades a class in subprocesses
def test_a_finished_grading_run_leaves_nothing(tmp_path):
    run, temp = _grade(tmp_path, [REFERENCE["ex3"]])
    assert run.wait(timeout=300) == 0, run.stderr.read()
    assert list(temp.iterdir()) == []


@pytest.mark.slow  # grades a class in subprocesses
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_grading_run_stopped_mid_class_leaves_nothing(tmp_path, sig):
    run, temp = _grade(tmp_path, [LOOPS])
    deadline = time.monotonic() + 120
    while not any(temp.rglob("compaction-work-*")):  # a learner's worker is running
        assert run.poll() is None and time.monotonic() < deadline, run.stderr.read()
        time.sleep(0.1)
    run.send_signal(sig)
    assert run.wait(timeout=60) != 0
    assert list(temp.iterdir()) == []
