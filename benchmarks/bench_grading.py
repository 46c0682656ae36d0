"""How fast does `jupyter-compaction grade` score a class? Learners × every lesson.

Builds a folder of submissions, one folder per learner holding every lesson notebook
(half the learners hand in the solved sources from `lessons/`, half the unsolved
learner copies from `learn/`), grades it with `grader.grade_folder` (one grading process
per learner, `jobs` at once, hidden cases included, gradebook and feedback written) and
reports the wall time, notebooks per second and the time 300 learners would take at that
rate. The full run grades `LEARNERS` learners; 300 × all lessons is the target, so when
`LEARNERS` is smaller the 300-learner figure is an extrapolation, and the table says so.
`--quick` grades `QUICK_LEARNERS` learners; `--learners 300` measures the target itself.

    python benchmarks/bench_grading.py [--quick | --learners N]

Prints a Markdown table and writes nothing outside a temporary folder. `run(quick)`
returns the numbers.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LEARNERS, QUICK_LEARNERS = 20, 4
TARGET_LEARNERS = 300
JOBS = 2  # the 2-core machine the numbers are for


def submissions(folder: Path, learners: int) -> int:
    """Write `learners` learner folders; return the number of notebooks written."""
    written = 0
    for n in range(learners):
        source = ROOT / ("lessons" if n % 2 == 0 else "learn")
        learner = folder / f"learner{n:03d}"
        learner.mkdir(parents=True)
        for notebook in sorted(source.glob("[0-9][0-9]_*.ipynb")):
            shutil.copy(notebook, learner / notebook.name)
            written += 1
    return written


def cpu_now() -> float:
    """CPU seconds so far of this process (reading notebooks) and its finished children
    (the grading processes)."""
    return sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))


def run(quick: bool = False, learners: int | None = None) -> dict:
    import sys

    sys.path.insert(0, str(ROOT))
    from jupyter_compaction.grading.grader import grade_folder, grade_learner
    from jupyter_compaction.grading.sandbox import isolation

    grade_learner([ROOT / "lessons" / "01_why_compaction.ipynb"])  # imports, not timed

    learners = learners or (QUICK_LEARNERS if quick else LEARNERS)
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        notebooks = submissions(Path(tmp) / "submitted", learners)
        cpu_before = cpu_now()
        load_before = os.getloadavg()[0]
        start = time.perf_counter()
        graded = grade_folder(Path(tmp) / "submitted", Path(tmp) / "grades", jobs=JOBS, seed=1)
        seconds = time.perf_counter() - start
        cpu_after = cpu_now()
        load_after = os.getloadavg()[0]
        rows = (Path(tmp) / "grades" / "gradebook.csv").read_text().count("\n") - 1
    points = [sum(g.points for g in grades) for grades in graded.values()]
    per_learner = seconds / learners
    cpu = cpu_after - cpu_before
    return {"quick": quick, "learners": learners, "notebooks": notebooks, "jobs": JOBS,
            "seconds": seconds, "per_notebook_s": seconds / notebooks,
            "notebooks_per_s": notebooks / seconds, "gradebook_rows": rows,
            "solved_points": max(points), "unsolved_points": min(points),
            "worker_cpu_s": cpu, "cpu_per_learner_s": cpu / learners,
            "target_learners": TARGET_LEARNERS,
            "target_cpu_estimate_s": cpu / learners * TARGET_LEARNERS / JOBS,
            "target_estimate_s": per_learner * TARGET_LEARNERS,
            "extrapolated": learners < TARGET_LEARNERS, "isolation": isolation(),
            "load": (load_before, load_after)}


def table(result: dict) -> str:
    how = ("extrapolated from this run's rate" if result["extrapolated"]
           else "measured")
    return "\n".join([
        f"{result['learners']} learners x {result['notebooks'] // result['learners']} lessons, "
        f"`--jobs {result['jobs']}`, hidden and generated cases included, each exercise in its "
        f"own sandbox ({result['isolation']['kind']}, syscall filter "
        f"{result['isolation']['syscall_filter']}); half the learners hand in the solved "
        f"sources ({result['solved_points']} points), half the blank learner copies "
        f"({result['unsolved_points']} points).",
        "",
        "| learners | notebooks | wall time | per notebook | notebooks / s | grading CPU per "
        f"learner | {result['target_learners']} learners, wall ({how}) | "
        f"{result['target_learners']} learners, CPU-bound on {result['jobs']} free cores |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {result['learners']} | {result['notebooks']} | {result['seconds']:.1f} s | "
        f"{result['per_notebook_s'] * 1000:.0f} ms | {result['notebooks_per_s']:.1f} | "
        f"{result['cpu_per_learner_s']:.1f} s | {result['target_estimate_s'] / 60:.1f} min | "
        f"{result['target_cpu_estimate_s'] / 60:.1f} min |",
        "",
        "The wall time depends on what else the machine runs; the CPU time (reading the "
        "notebooks here, scoring them in the grading processes) does not, so the last column "
        "is the estimate for an otherwise idle machine. Load average (1 min) before and after "
        f"the run: {result['load'][0]:.1f} and {result['load'][1]:.1f} on "
        f"{os.cpu_count()} cores.",
    ])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{QUICK_LEARNERS} learners instead of {LEARNERS}")
    parser.add_argument("--learners", type=int, default=None,
                        help=f"how many learners (default {LEARNERS}; {TARGET_LEARNERS} measures "
                        "the target instead of extrapolating)")
    args = parser.parse_args(argv)
    if args.learners is not None and args.learners < 1:
        parser.error("--learners must be at least 1")
    print(table(run(quick=args.quick, learners=args.learners)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
