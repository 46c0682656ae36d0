"""How long the test suite takes: collection, the quick subset and the whole suite, in one run.

    python benchmarks/bench_suite.py [--quick] [--fresh-venv]

With `--fresh-venv` it first does what a newcomer does: a new virtual environment in a
temporary folder, then the README's two installs in it, `pip install -e ".[lab]"` and
`pip install -e ".[test]"`, each timed, with the environment's size after each; the
tests then run on that environment's Python. It then runs the README's test commands one
after the other, each in its own `pytest` process from the repository root: collection
alone (`--collect-only`), the quick subset (`-m "not slow"`) and the whole suite, and
times each: wall clock, and the CPU time of that process and its children (kernels,
JupyterLab, the browser). It also reads pytest's summary line and the 1-minute load
average before and after, since a busy machine stretches every wall time (the goals are
for a quiet 2-core machine). The goals are issue 19's: collection under 10 s, the quick
subset within 90 s, the whole suite within 10 min.

Prints a Markdown section for RESULTS.md and writes nothing. `run(quick)` returns the
numbers. `--quick` (what `run.py --quick` passes) skips it and says so: the suite runs
`run.py --quick` itself, so the suite must never start the suite.

Left out: per-test durations (`--durations`), and pip's downloads: pip reads its own cache
when it has one, so a machine without that cache also downloads (the table says so).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT_S = 3_600  # a hang guard for the whole suite on a busy machine
INSTALLS = (("lab", '.[lab]'), ("test", '.[test]'))  # the README's, in its order
PARALLEL = ["-n", "auto", "--dist", "loadgroup"]  # as the README runs the suite: every core
QUICK_ARGS = ["-m", "not slow"]  # the README's quick subset (tests/test_readme.py checks it)
# (label, arguments after `python -m pytest`, goal in seconds on a quiet 2-core machine)
RUNS = (
    ("collection", ["--collect-only", "-q"], 10),
    ("quick subset", ["-q", *QUICK_ARGS, *PARALLEL], 90),
    ("whole suite", ["-q", *PARALLEL], 600),
)
OUTCOMES = re.compile(r"(\d+) (passed|failed|skipped|errors?|deselected|xfailed|xpassed"
                      r"|tests? collected)")


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def load() -> float | None:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def folder_mb(folder: Path) -> float:
    return sum(p.lstat().st_size for p in folder.rglob("*")) / 1e6


def fresh_venv(folder: Path) -> tuple[str, list[dict[str, Any]]]:
    """A new venv in `folder` with the README's installs: (its python, one row each)."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python, rows = str(folder / "bin" / "python"), []
    for extra, target in INSTALLS:
        start = time.perf_counter()
        done = subprocess.run([python, "-m", "pip", "install", "-q", "-e", target], cwd=ROOT,
                              capture_output=True, text=True, timeout=TIMEOUT_S)
        rows.append({"extra": extra, "seconds": time.perf_counter() - start,
                     "returncode": done.returncode, "size_mb": folder_mb(folder)})
    return python, rows


def time_pytest(args: list[str], cwd: Path = ROOT,
                python: str = sys.executable) -> dict[str, Any]:
    """One `python -m pytest ARGS` run: wall and CPU seconds, exit code, what it counted."""
    cpu, start, before = children_cpu_s(), time.perf_counter(), load()
    try:
        done = subprocess.run([python, "-m", "pytest", *args], cwd=cwd, capture_output=True,
                              text=True, timeout=TIMEOUT_S)
        code, out = done.returncode, done.stdout
    except subprocess.TimeoutExpired as exc:
        code, out = None, exc.stdout.decode() if isinstance(exc.stdout, bytes) else ""
    last = next((ln for ln in reversed(out.splitlines()) if OUTCOMES.search(ln)), "")
    return {"command": " ".join(["python -m pytest", *(f'"{a}"' if " " in a else a
                                                        for a in args)]),
            "seconds": time.perf_counter() - start, "cpu_s": children_cpu_s() - cpu,
            "returncode": code, "load_before": before, "load_after": load(),
            "counts": {kind: int(n) for n, kind in OUTCOMES.findall(last)}}


def run(quick: bool = False, fresh: bool = False) -> dict[str, Any]:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if quick:
        return {"quick": True, "status": "skipped", "cores": cores}
    folder = Path(tempfile.mkdtemp(prefix="bench-venv-"))
    try:
        python, installs = fresh_venv(folder / "venv") if fresh else (sys.executable, [])
        rows = [{"label": label, "goal_s": goal, **time_pytest(args, python=python)}
                for label, args, goal in RUNS]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {"quick": False, "status": "measured", "cores": cores, "rows": rows,
            "installs": installs}


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n:,} {kind}" for kind, n in counts.items()) or "-"


def table(result: dict[str, Any]) -> str:
    if result["status"] == "skipped":
        return ("Test suite: skipped in quick mode (the suite runs `run.py --quick`; run "
                "`python benchmarks/bench_suite.py` or `python benchmarks/run.py`).")
    lines = [
        f"Each command run once from the repository root, one after the other, on "
        f"{result['cores']} cores; CPU = the pytest process and its children (kernels, "
        "JupyterLab, Chromium). Goals are for a quiet 2-core machine: compare the load "
        "average with the cores.",
        "",
        "| command | wall time | CPU time | goal | goal met | pytest says | exit "
        "| load before / after |",
        "|---|---:|---:|---:|---|---|---:|---|",
    ]
    if result.get("installs"):
        lines[:0] = ["In a new virtual environment (`python -m venv`), pip reading its cache:", "",
                     "| install | wall time | venv size after | exit |", "|---|---:|---:|---:|",
                     *(f"| `pip install -e \".[{r['extra']}]\"` | {r['seconds']:.0f} s | "
                       f"{r['size_mb']:.0f} MB | {r['returncode']} |" for r in result["installs"]),
                     ""]
    for r in result["rows"]:
        met = "yes" if r["seconds"] <= r["goal_s"] and r["returncode"] == 0 else "**no**"
        loads = " / ".join(f"{x:.1f}" if x is not None else "?"
                           for x in (r["load_before"], r["load_after"]))
        lines.append(
            f"| `{r['command']}` ({r['label']}) | {r['seconds']:.0f} s | {r['cpu_s']:.0f} s "
            f"| {r['goal_s']} s | {met} | {_counts(r['counts'])} | {r['returncode']} "
            f"| {loads} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip (note it)")
    parser.add_argument("--fresh-venv", action="store_true",
                        help="install into a new venv first, as the README does, and time it")
    args = parser.parse_args(argv)
    result = run(quick=args.quick, fresh=args.fresh_venv)
    print("## The test suite: collection, quick subset, whole suite\n")
    print(table(result))
    rows = [*result.get("installs", []), *result.get("rows", [])]
    return 0 if all(r["returncode"] == 0 for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
