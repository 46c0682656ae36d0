"""Shared by every test folder: how much slower than quiet the machine is right now.

Tests that wait for another process (JupyterLab, a browser, a kernel) scale their
timeouts by `slowdown`, measured once per session, so a loaded machine makes them slow,
not red. It is the larger of two measures: a fixed CPU-bound loop's time against its
time on this project's quiet 2-core machine, and the 1-minute load average per core.

It also sets how many workers `-n auto` starts (pytest-xdist): one more than the cores,
and runs each test process in a scratch folder of its own (`scratch.scratch`): xdist's
workers end with `os._exit`, which skips the finalizers that remove the temporary folders
still alive then (a lab widget's, a kernel's workspaces), so the process removes them
itself. What a command removes on its own is tested where it is built
(tests/test_scratch.py, tests/grading/test_grading_cleanup.py), with a TMPDIR of its own.

Left out: timing assertions; speed targets live in benchmarks/.
"""

from __future__ import annotations

import os
import signal
import statistics
import time

import pytest

CALIBRATION_LOOPS = 1_000_000
CALIBRATION_RUNS = 5
QUIET_LOOP_S = 0.055  # the loop's time on the project's 2-core AMD EPYC machine, idle
MAX_SLOWDOWN = 10.0  # beyond this a timeout means a hang, not a busy machine
EXTRA_WORKERS = 1  # `-n auto` runs this many workers more than there are cores


def calibration_s() -> float:
    """Seconds the fixed loop takes now (the median of a few runs)."""
    def once() -> float:
        start, total = time.perf_counter(), 0
        for i in range(CALIBRATION_LOOPS):
            total += i * i
        return time.perf_counter() - start

    return statistics.median(once() for _ in range(CALIBRATION_RUNS))


def cores() -> int:
    """The cores this process may run on."""
    return (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
            else os.cpu_count()) or 1


def measure_slowdown() -> float:
    """How many times slower than quiet this machine runs now, between 1 and MAX_SLOWDOWN."""
    load = os.getloadavg()[0] / cores() if hasattr(os, "getloadavg") else 0.0
    return min(MAX_SLOWDOWN, max(1.0, calibration_s() / QUIET_LOOP_S, load))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: one worker more than the cores. The whole suite spends about a third of
    its time waiting (for kernels, JupyterLab, Chromium, subprocesses and timeouts), and
    the extra worker fills it: on 2 cores 617 s with 3 workers, 766 s with 2 (one run
    each, benchmarks/RESULTS.md section 9). PYTEST_XDIST_AUTO_NUM_WORKERS still decides
    when it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    return cores() + EXTRA_WORKERS


@pytest.fixture(scope="session", autouse=True)
def _scratch_folder():
    from jupyter_compaction.scratch import scratch

    with scratch(prefix="compaction-tests-"):
        yield


@pytest.fixture(autouse=True)
def _interruptible():
    """Ctrl-C works in every test and in what it starts. A shell without job control starts
    a background job (`bash .ci/run &`) with SIGINT ignored, and an ignored signal stays
    ignored across fork and exec, so a test that stops a run with SIGINT would wait for it
    forever."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    yield


@pytest.fixture(scope="session")
def slowdown() -> float:
    """The factor to multiply a wait's quiet-machine timeout by (measured once)."""
    return measure_slowdown()
