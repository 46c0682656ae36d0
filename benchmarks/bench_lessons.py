"""How long does validating every lesson take? The total nbval time of `lessons/`.

Runs, in a fresh subprocess from the repository root,

    python -m pytest --nbval-lax --nbval-current-env lessons/ -q -p no:cacheprovider

and reports the wall time, the number of notebooks and pytest's own summary line. With
no notebooks in `lessons/` it reports "no lessons yet"; `--quick` skips it (nbval starts
a kernel per notebook, which is the slow part) and says so.

    python benchmarks/bench_lessons.py [--quick]

Prints a Markdown table and writes nothing. `run(quick)` returns the numbers.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LESSONS = ROOT / "lessons"
TIMEOUT_S = 1_800
COMMAND = [sys.executable, "-m", "pytest", "--nbval-lax", "--nbval-current-env", "lessons/",
           "-q", "-p", "no:cacheprovider"]


def notebooks() -> list[Path]:
    if not LESSONS.is_dir():
        return []
    return sorted(p for p in LESSONS.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def run(quick: bool = False) -> dict:
    found = notebooks()
    base = {"quick": quick, "notebooks": [str(p.relative_to(ROOT)) for p in found],
            "command": " ".join(["python", *COMMAND[1:]])}
    if quick:
        return {**base, "status": "skipped", "note": "skipped in quick mode"}
    if not found:
        return {**base, "status": "no lessons", "note": "no lessons yet"}
    start = time.perf_counter()
    try:
        done = subprocess.run(COMMAND, cwd=ROOT, capture_output=True, text=True,
                              timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {**base, "status": "timeout", "seconds": time.perf_counter() - start,
                "note": f"nbval did not finish within {TIMEOUT_S} s"}
    seconds = time.perf_counter() - start
    lines = [ln for ln in done.stdout.strip().splitlines() if ln.strip()]
    summary = next((ln for ln in reversed(lines) if re.search(r"\b(passed|failed|error)", ln)),
                   lines[-1] if lines else "")
    failed = [ln[len("FAILED "):].split(" - ")[0] for ln in lines if ln.startswith("FAILED ")]
    return {**base, "status": "passed" if done.returncode == 0 else "failed",
            "failed_cells": failed,
            "returncode": done.returncode, "seconds": seconds,
            "per_notebook_s": seconds / len(found), "summary": summary.strip("= ").strip(),
            "note": ""}


def table(result: dict) -> str:
    if result["status"] in ("skipped", "no lessons"):
        return (f"Lessons: {result['note']} ({len(result['notebooks'])} notebooks found; "
                f"command: `{result['command']}`).")
    if result["status"] == "timeout":
        return f"Lessons: **{result['note']}**."
    status = result["status"] if result["status"] == "passed" else f"**{result['status']}**"
    return "\n".join([
        f"`{result['command']}`",
        "",
        "| notebooks | total wall time | per notebook | result | pytest says |",
        "|---:|---:|---:|---|---|",
        f"| {len(result['notebooks'])} | {result['seconds']:.1f} s | "
        f"{result['per_notebook_s']:.1f} s | {status} | {result['summary']} |",
        *(["", f"Failing cells ({len(result['failed_cells'])}): "
           + ", ".join(f"`{c}`" for c in result["failed_cells"][:10])
           + (" ..." if len(result["failed_cells"]) > 10 else "")]
          if result.get("failed_cells") else []),
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip (note it)")
    args = parser.parse_args(argv)
    print(table(run(quick=args.quick)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
