"""`jupyter-compaction grade`: run learners' notebooks in fresh kernels and score them.

Each notebook runs top to bottom in its own kernel with nbclient, in the notebook's
folder, with `JUPYTER_COMPACTION_TEXT=1` (plain-text output) and this package importable
(its folder is put first on the kernel's `PYTHONPATH`). A final cell is appended that
calls `jupyter_compaction.grading.report(ids, nonce)`; it scores the exercises *in the
kernel's namespace* and prints one JSON line behind a marker and a random nonce (a
learner's own output cannot pass for it), which is read back from the cell's output. The
exercises graded are the ones the notebook mentions: a `check("ex3")` or `%check ex3`
call, or a `def` of an exercise's function.

What goes wrong in a notebook is scored, not fatal:
- a cell that raises: `allow_errors=True`, the next cell runs;
- a cell that runs past `timeout` seconds: nbclient (with `interrupt_on_timeout`) sends
  the kernel an interrupt and waits for the reply up to `timeout` again; the cell ends
  with a `KeyboardInterrupt` and the next cell runs;
- a cell that ignores the interrupt, or kills the kernel: the notebook is run again in a
  fresh kernel without that cell (nor any cell that timed out before), so the exercises
  earned before it, and after it, still count; after `MAX_KERNEL_STARTS` kernels, or if
  the report cell itself fails, every exercise scores 0 with the reason.

Many notebooks run at once: one asyncio event loop drives up to `jobs` kernels.

Left out: sandboxing (a notebook runs with the grader's rights; grade inside a container)
and a wall-clock limit per notebook beyond the per-cell timeouts.
"""

from __future__ import annotations

import asyncio
import copy
import os
import re
import secrets
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .base import CASE_TIMEOUT_S, CheckResult, Failure
from .check import MARKER
from .exercises import EXERCISES

DEFAULT_TIMEOUT_S = 60
DEFAULT_KERNEL = "python3"
MAX_JOBS = 4
MAX_KERNEL_STARTS = 3  # one run plus two reruns without a cell that hung or killed it
REPORT_SLACK_S = 30  # the report cell may take its cases' time limits plus this
STARTUP_TIMEOUT_S = 120
TEXT_ENV = {"JUPYTER_COMPACTION_TEXT": "1"}
REPORT_TAG = "jupyter-compaction-report"
REPORT_SOURCE = ("import jupyter_compaction.grading as _jc_grading\n"
                 "_jc_grading.report({ids!r}, {nonce!r})")
CHECK_CALL = re.compile(r"""\bcheck\(\s*['"]([\w-]+)['"]|%check\s+([\w-]+)""")
DEF = re.compile(r"^\s*def\s+(\w+)\s*\(", re.MULTILINE)
DETAIL = re.compile(r"\[([^\[\]]*)\]$")  # what went wrong, after a failure's hint
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def default_jobs() -> int:
    return max(1, min(MAX_JOBS, os.cpu_count() or 1))


@dataclass
class NotebookGrade:
    notebook: str
    results: list[CheckResult] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def total(self) -> int:
        return sum(r.total for r in self.results)

    def to_json(self) -> dict[str, Any]:
        return {"notebook": self.notebook, "passed": self.passed, "total": self.total,
                "exercises": [r.to_json() for r in self.results], "problems": self.problems,
                "seconds": round(self.seconds, 2)}


class _CellHung(Exception):
    """A cell ran past its timeout and did not answer the interrupt either."""


def exercises_in(nb: Any) -> list[str]:
    """The exercise ids a notebook checks or whose function it defines, in course order."""
    by_function = {e.function: e.id for e in EXERCISES.values()}
    found: set[str] = set()
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        found.update(a or b for a, b in CHECK_CALL.findall(cell.source))
        found.update(by_function[name] for name in DEF.findall(cell.source)
                     if name in by_function)
    return [i for i in EXERCISES if i in found]


def kernel_env() -> dict[str, str]:
    env = {**os.environ, **TEXT_ENV}
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(PACKAGE_ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def zero(ids: Sequence[str], reason: str) -> list[CheckResult]:
    return [CheckResult(i, 0, len(EXERCISES[i].cases), [Failure("not graded", reason)])
            for i in ids]


def read_report(cell: Any, nonce: str) -> list[CheckResult] | None:
    """The scores printed by report() in the final cell, or None."""
    import json

    tag = f"{MARKER}{nonce} "
    printed = "".join(o.get("text", "") for o in cell.get("outputs", [])
                      if o.get("output_type") == "stream" and o.get("name") == "stdout")
    for line in printed.splitlines():
        if line.startswith(tag):
            return [CheckResult.from_json(r) for r in json.loads(line[len(tag):])]
    return None


def report_error(cell: Any) -> str:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            return f"{output.get('ename')}: {output.get('evalue')}"
    return "it printed no scores"


@dataclass
class _Progress:
    """Where a run is: the cell executing now, and the cells that timed out so far."""

    current: int = -1
    timed_out: list[int] = field(default_factory=list)


def _client_class() -> type:
    from nbclient import NotebookClient
    from nbclient.util import ensure_async

    class Client(NotebookClient):
        """nbclient, recording timeouts; a second timeout on one cell raises `_CellHung`."""

        progress = _Progress()

        async def _async_handle_timeout(self, timeout: int, cell: Any = None) -> None:
            if self.progress.current in self.progress.timed_out:
                raise _CellHung(self.progress.current)
            self.progress.timed_out.append(self.progress.current)
            await ensure_async(self.km.interrupt_kernel())
            return None

    return Client


async def _run(nb: Any, folder: Path, timeout: int, kernel: str, skip: dict[int, str],
               progress: _Progress) -> None:
    """Execute `nb` in place in a fresh kernel, skipping the cells in `skip`."""
    from nbclient.util import ensure_async

    report_timeout = timeout + REPORT_SLACK_S + int(CASE_TIMEOUT_S) * len(EXERCISES)
    client = _client_class()(
        nb, timeout=timeout, allow_errors=True, interrupt_on_timeout=True,
        kernel_name=kernel, startup_timeout=STARTUP_TIMEOUT_S, record_timing=False,
        shutdown_kernel="immediate",
        resources={"metadata": {"path": str(folder)}},
        timeout_func=lambda cell: report_timeout if REPORT_TAG in cell.metadata.get(
            "tags", []) else timeout)
    client.progress = progress
    async with client.async_setup_kernel(env=kernel_env(), stderr=subprocess.DEVNULL):
        await client.async_wait_for_reply(await ensure_async(client.kc.kernel_info()))
        for index, cell in enumerate(nb.cells):
            if index in skip:
                continue
            progress.current = index
            await client.async_execute_cell(cell, index,
                                            execution_count=client.code_cells_executed + 1)


async def grade_notebook(path: str | Path, timeout: int = DEFAULT_TIMEOUT_S,
                         kernel: str = DEFAULT_KERNEL) -> NotebookGrade:
    """Run one notebook in fresh kernels (see the module docstring) and score it."""
    import nbformat
    from nbclient.exceptions import DeadKernelError

    started = time.monotonic()
    path = Path(path)
    grade = NotebookGrade(str(path))
    source = nbformat.read(path, as_version=4)
    ids = exercises_in(source)
    if not ids:
        grade.problems.append("no exercises found (no check('exN') call, no exercise function)")
        return grade
    nonce = secrets.token_hex(8)
    source.cells.append(nbformat.v4.new_code_cell(REPORT_SOURCE.format(ids=ids, nonce=nonce),
                                                  metadata={"tags": [REPORT_TAG]}))
    last = len(source.cells) - 1
    skip: dict[int, str] = {}
    progress = _Progress()
    finished, nb = False, source
    for _ in range(MAX_KERNEL_STARTS):
        nb = copy.deepcopy(source)
        try:
            await _run(nb, path.parent, timeout, kernel, skip, progress)
            finished = True
            break
        except (DeadKernelError, _CellHung) as exc:
            if progress.current < 0:  # the kernel died before the first cell: not a cell's fault
                raise
            hung = isinstance(exc, _CellHung)
            why = "ignored the interrupt after its timeout" if hung else "killed the kernel"
            skip[progress.current] = why
            skip.update({i: "timed out" for i in progress.timed_out if i not in skip})
            where = "the report cell" if progress.current == last else f"cell {progress.current}"
            grade.problems.append(f"{where} {why}; rerun in a fresh kernel without it")
            if last in skip:
                break
    interrupted = [i for i in dict.fromkeys(progress.timed_out) if skip.get(i) == "timed out"
                   or i not in skip]
    grade.problems[:0] = [f"cell {i} timed out after {timeout} s and was interrupted"
                          for i in interrupted]
    results = read_report(nb.cells[last], nonce) if finished else None
    if results is None:
        reason = ("the report cell failed: " + report_error(nb.cells[last]) if finished
                  else f"the report cell {skip[last]}" if last in skip
                  else f"gave up after {MAX_KERNEL_STARTS} kernels")
        grade.problems.append(reason)
        results = zero(ids, reason)
    grade.results = results
    grade.seconds = time.monotonic() - started
    return grade


async def _grade_all(paths: Sequence[str | Path], jobs: int, timeout: int,
                     kernel: str) -> list[NotebookGrade]:
    limit = asyncio.Semaphore(max(1, jobs))

    async def one(path: str | Path) -> NotebookGrade:
        async with limit:
            try:
                return await grade_notebook(path, timeout, kernel)
            except Exception as exc:  # a broken kernel spec, an unreadable file: a row, not a crash
                grade = NotebookGrade(str(path))
                grade.problems.append(f"could not grade: {type(exc).__name__}: {exc}")
                return grade

    return list(await asyncio.gather(*(one(p) for p in paths)))


def grade(paths: Sequence[str | Path], jobs: int | None = None,
          timeout: int = DEFAULT_TIMEOUT_S, kernel: str = DEFAULT_KERNEL) -> list[NotebookGrade]:
    """Grade every notebook, up to `jobs` at once; the grades come back in input order."""
    return asyncio.run(_grade_all(paths, jobs or default_jobs(), timeout, kernel))


def failed_cases(result: CheckResult) -> str:
    """The failed cases' names, or one line when every case failed for the same reason."""
    if not result.failures:
        return "-"
    reasons = {DETAIL.search(f.message).group(1) if DETAIL.search(f.message) else f.message
               for f in result.failures}
    if result.passed == 0 and len(reasons) == 1:
        return f"all ({reasons.pop()})"
    return "; ".join(f.case for f in result.failures)


def table(grades: Sequence[NotebookGrade]) -> str:
    """`notebook | exercise | passed/total | failed cases`, then each notebook's problems."""
    rows = [("notebook", "exercise", "passed/total", "failed cases")]
    for g in grades:
        for r in g.results:
            rows.append((g.notebook, r.exercise, f"{r.passed}/{r.total}", failed_cases(r)))
        if not g.results:
            rows.append((g.notebook, "-", "0/0", "-"))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [" | ".join([*(c.ljust(w) for c, w in zip(row[:3], widths, strict=True)), row[3]])
             for row in rows]
    lines.insert(1, "-+-".join("-" * w for w in [*widths, len(rows[0][3])]))
    for g in grades:
        lines.append(f"{g.notebook}: {g.passed}/{g.total} in {g.seconds:.1f} s")
        lines += [f"  note: {p}" for p in g.problems]
    return "\n".join(lines)
