"""The sandbox with the screen bypassed: what learner code can do inside a worker.

Each test starts a `Sandbox` on source the screen would refuse (it imports `os`,
`socket`, `subprocess`), so what stops it here is the sandbox alone: the seccomp filter,
the resource limits, bubblewrap where it works. Every test runs in both isolations that
a machine can give ("bubblewrap" is skipped where bwrap cannot run), and bounds its own
wall time: an endless loop, a fork loop, a 4 GB allocation and a detached child all end
within the test's limit, and nothing they started is left running.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jupyter_compaction.grading import sandbox
from jupyter_compaction.grading.base import CaseTimeout
from jupyter_compaction.grading.codec import decode, encode
from jupyter_compaction.grading.sandbox import Sandbox, SandboxError
from jupyter_compaction.models.base import Usage
from jupyter_compaction.replay import ReplayTurn
from jupyter_compaction.tokens import TokenCounter

BOUND_S = 8.0  # what any single attack may cost the grader, start-up included
MARKER = "61.2345"  # a detached child's sleep, to look for afterwards


@pytest.fixture(params=["bubblewrap", "limits only"])
def isolation(request, monkeypatch):
    sandbox._probe.cache_clear()
    if request.param == "limits only":
        monkeypatch.setenv(sandbox.SANDBOX_ENV, "limits")
    used = sandbox.isolation()
    if used["kind"] != request.param:
        pytest.skip(f"{request.param} is not available here: {used['reason']}")
    yield used
    sandbox._probe.cache_clear()


def run(source: str, *args, timeout: float = 5.0):
    started = time.monotonic()
    with Sandbox(source, "f", timeout=timeout) as box:
        try:
            return box(*args)
        finally:
            assert time.monotonic() - started < BOUND_S


def survivors() -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if MARKER.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


def test_an_endless_loop_times_out(isolation):
    with pytest.raises(CaseTimeout):
        run("def f():\n    while True:\n        pass\n", timeout=1.5)


def test_a_fork_loop_cannot_fork(isolation):
    source = '''
import os

def f():
    made = 0
    for _ in range(200):
        try:
            pid = os.fork()
        except OSError:
            continue
        if pid == 0:
            os._exit(0)
        made += 1
    return made
'''
    assert run(source) == 0


def test_a_4_gb_allocation_fails(isolation):
    with pytest.raises(Exception) as raised:  # noqa: PT011 - the learner's own MemoryError
        run("def f():\n    return len(bytearray(4 * 1024**3))\n")
    assert type(raised.value).__name__ == "MemoryError"


def test_a_detached_child_cannot_start_and_nothing_survives(isolation):
    source = f'''
import subprocess

def f():
    try:
        subprocess.Popen(["sleep", "{MARKER}"], start_new_session=True)
    except OSError as exc:
        return type(exc).__name__
    return "started"
'''
    assert run(source) == "PermissionError"
    assert not survivors()


def test_no_network_no_writes_no_signals(isolation):
    source = '''
import os, socket

def f(folder):
    refused = []
    for name, act in [("socket", lambda: socket.socket()),
                      ("write", lambda: open(folder + "/gradebook.csv", "w")),
                      ("kill", lambda: os.kill(os.getppid(), 0))]:
        try:
            act()
        except OSError:
            refused.append(name)
    return refused
'''
    assert run(source, "/tmp") == ["socket", "write", "kill"]


def test_the_environment_holds_nothing_of_the_grader(isolation):
    got = run("import os\ndef f():\n    return sorted(os.environ)\n")
    assert set(got) <= {*sandbox.worker_env("/"), "PWD"}


def test_inside_bubblewrap_the_grader_and_the_exercises_are_out_of_sight(isolation):
    if isolation["kind"] != "bubblewrap":
        pytest.skip("only bubblewrap hides /proc and the grading package")
    source = '''
import os

def f(pid, grader_files):
    try:
        import jupyter_compaction.grading.ex_cost
        exercises = "visible"
    except ImportError:
        exercises = "hidden"
    return exercises, str(pid) in os.listdir("/proc"), os.path.exists(grader_files)
'''
    here = str(Path(__file__).resolve().parent)  # the grader's own files, outside the package
    assert run(source, os.getpid(), here) == ("hidden", False, False)


FILL = r"""
import errno, json, os, sys

def fill(folder):
    # 256 KB files until a write fails: (the bytes the folder took, why it refused more)
    why, made = None, []
    try:
        for n in range(64):
            made.append(os.path.join(folder, f"fill{n}"))
            with open(made[-1], "wb") as f:
                f.write(b"x" * (256 << 10))
    except OSError as exc:
        why = errno.errorcode[exc.errno]
    return sum(os.path.getsize(p) for p in made if os.path.exists(p)), why

print(json.dumps({folder: fill(folder) for folder in sys.argv[1:]}))
"""


def test_under_bubblewrap_only_a_small_tmp_takes_files_even_without_the_filter(tmp_path):
    """Files live in memory that no process limit counts: inside bubblewrap, Python run
    without the syscall filter (as on a machine the filter does not support) can write
    `TMP_BYTES` to /tmp and nothing anywhere else (/dev and the grading package's
    stand-in are tmpfs too; the home is a folder of the grader's)."""
    sandbox._probe.cache_clear()
    if sandbox.isolation()["kind"] != "bubblewrap":
        pytest.skip(f"bubblewrap cannot run here: {sandbox.isolation()['reason']}")
    home, init = tmp_path / "home", tmp_path / "__init__.py"
    home.mkdir()
    init.write_text("")
    grading = str(sandbox.PACKAGE / "grading")
    done = subprocess.run([*sandbox.bwrap_command(home, init), sys.executable, "-c", FILL,
                           "/tmp", "/dev", "/dev/shm", grading, sandbox.SANDBOX_HOME],
                          capture_output=True, text=True, timeout=60,
                          preexec_fn=sandbox._limits)  # noqa: PLW1509 - setrlimit only
    taken = json.loads(done.stdout)
    assert taken.pop("/tmp") == [sandbox.TMP_BYTES, "ENOSPC"]
    assert taken == dict.fromkeys([grading, "/dev", "/dev/shm", sandbox.SANDBOX_HOME],
                                  [0, "EROFS"])
    assert not list(home.iterdir())


def test_a_result_that_is_not_plain_data_is_refused(isolation):
    with pytest.raises(Exception, match="not plain data") as raised:
        run("class Mine(dict):\n    pass\n\ndef f():\n    return Mine()\n")
    assert type(raised.value).__name__ == "NotPlainData"


def test_an_answer_over_the_limit_is_refused(isolation):
    with pytest.raises(SandboxError, match="over 8 MB"):
        run("def f():\n    return 'x' * 20_000_000\n")


def test_a_mutated_input_is_written_back():
    given = [1, {"a": 2}]
    with Sandbox("def f(x):\n    x.append(3)\n    x[1]['b'] = 4\n    return None\n", "f") as box:
        assert box(given) is None
    assert given == [1, {"a": 2, "b": 4}, 3]


def test_the_codec_keeps_types():
    value = [(1, 2.5), {0: None, "": [True]}, float("inf"), ("x",)]
    assert decode(encode(value)) == value
    assert [type(v) for v in decode(encode(value))] == [tuple, dict, float, tuple]


def test_library_shapes_cross_as_themselves_and_the_worker_imports_only_what_they_need():
    # each worker starts a fresh Python: what it imports is CPU time of every exercise
    source = ("import sys\n"
              "def f(modules, *given):\n"
              "    names = [type(g).__name__ for g in given]\n"
              "    return names, [m for m in modules if m in sys.modules]\n")
    start = ["typing", "platform", "runpy", "jupyter_compaction.replay"]
    shapes = ["jupyter_compaction.models.base", "jupyter_compaction.replay"]
    turn = ReplayTurn(1, 0, 3, 120, 130, 100)
    with Sandbox(source, "f") as box:
        assert box(start) == ([], [])
        assert box(shapes, Usage(input_tokens=5)) == (["Usage"], shapes[:1])
        assert box(shapes, turn) == (["ReplayTurn"], shapes[:1])
    assert decode(encode([turn, Usage(output_tokens=2)])) == [turn, Usage(output_tokens=2)]


def test_a_counter_crosses_with_its_counts_and_the_grader_never_takes_a_workers():
    # the request the grader counted is counted in the worker without tiktoken's encoder
    # (about half a second of CPU); any other text is counted there exactly; a counter
    # the worker sends back counts for itself in the grader, whatever counts it claims
    source = ("import sys\n"
              "from jupyter_compaction.tokens import TokenCounter\n"
              "def f(counter, messages, other):\n"
              "    known = counter.count(messages), 'tiktoken' in sys.modules\n"
              "    return known, counter.count_text(other), TokenCounter(counted={other: 1})\n")
    messages = [{"role": "user", "content": "Read the log, then fix ORD-1042."}]
    given = TokenCounter()
    given.count(messages)
    with Sandbox(source, "f") as box:
        known, other, forged = box(given, messages, "a text never counted here")
    assert known == (TokenCounter().count(messages), False)
    assert other == TokenCounter().count_text("a text never counted here") != 1
    assert type(forged) is TokenCounter and forged.counted() == {}
    assert forged.count_text("a text never counted here") == other


def test_frames_and_globals_in_the_worker_hold_no_case_and_no_seed(isolation):
    source = '''
import sys

def f(hidden_input):
    seen = []
    frame = sys._getframe()
    while frame is not None:
        seen += [f"{k}={v!r}"[:300] for k, v in frame.f_locals.items()]
        seen += [f"{k}={v!r}"[:300] for k, v in frame.f_globals.items()]
        frame = frame.f_back
    return " ".join(seen) + " " + " ".join(sys.argv)
'''
    with Sandbox(source, "f") as box:
        seen = box(12345)
    assert "12345" in seen  # the input it was given, and nothing else of the case:
    for secret in ("20261130", "expected", "hidden case", "seed", "EXERCISES"):
        assert secret not in seen


REFUSED_CALLS = '''
import ctypes, os

def f(calls):
    libc = ctypes.CDLL(None, use_errno=True)
    errors = {}
    for name, nr in calls.items():
        target = os.getppid() if name in ("kill", "rt_sigqueueinfo") else 0
        ok = libc.syscall(nr, target, 0, 0, 0, 0)
        errors[name] = "allowed" if ok != -1 else os.strerror(ctypes.get_errno())
    return errors
'''


def test_the_allow_list_refuses_io_uring_sysv_handles_and_queued_signals(isolation):
    """Each call of `DENIED_EXAMPLES` (io_uring, SysV shared memory, messages and
    semaphores, open_by_handle_at, rt_sigqueueinfo, kill, fork, sleeping, raising limits)
    gets EPERM from the worker's filter; the grader lives on."""
    from jupyter_compaction.grading.syscalls import DENIED_EXAMPLES

    errors = run(REFUSED_CALLS, dict(DENIED_EXAMPLES))
    assert set(errors.values()) == {os.strerror(errno.EPERM)}, errors


def test_a_weak_sandbox_is_refused_unless_allowed(monkeypatch):
    """Limits only, as a user that keeps privileges: grading refuses and names bubblewrap;
    `allow_weak` grades anyway. As nobody (bubblewrap, or a root grader that can drop)
    it is not weak."""
    monkeypatch.setattr(sandbox, "_probe", lambda: (sandbox.LIMITS_ONLY, "no bwrap", "on",
                                                    "root"))
    with pytest.raises(sandbox.WeakSandbox, match="install bubblewrap.*--allow-weak-sandbox"):
        sandbox.require(False)
    sandbox.require(True)
    monkeypatch.setattr(sandbox, "_probe", lambda: (sandbox.LIMITS_ONLY, "no bwrap", "on",
                                                    "nobody"))
    sandbox.require(False)


def test_without_the_syscall_filter_grading_refuses_even_in_bubblewrap(monkeypatch):
    """The filter is what refuses SysV IPC (whose limits in bubblewrap's IPC namespace are
    the machine's) and forks: where it cannot be installed, bubblewrap is not enough."""
    unfiltered = "no seccomp filter for Linux aarch64"
    monkeypatch.setattr(sandbox, "_probe", lambda: (sandbox.BUBBLEWRAP, "", unfiltered,
                                                    "nobody"))
    with pytest.raises(sandbox.WeakSandbox, match=f"without its syscall filter "
                                                  f"\\({unfiltered}\\).*--allow-weak"):
        sandbox.require(False)
    sandbox.require(True)


def test_without_bubblewrap_a_root_grader_runs_the_worker_as_nobody(isolation):
    if isolation["user"] != "nobody":
        pytest.skip(f"the worker runs as {isolation['user']} here: {isolation['reason']}")
    assert run("import os\n\ndef f():\n    return [os.getuid(), os.getgid()]\n") == [
        sandbox.NOBODY, sandbox.NOBODY]
