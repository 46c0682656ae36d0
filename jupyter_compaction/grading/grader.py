"""`jupyter-compaction grade`: score learners' notebooks on what their functions earn.

A notebook is read, never trusted: its code cells are parsed (`sources.collect`) for each
exercise's function and the imports and helpers it needs, and those sources are scored
by `isolated.grade_sources`, each exercise in a sandboxed process of its own
(`sandbox.py`), on the public cases and on hidden cases drawn for this run. Nothing the
notebook prints, patches or redefines reaches the score. The exercises graded are the
ones the notebook mentions: a `check("ex3")` or `%check ex3` call, or a `def` of an
exercise's function.

An exercise earns its points only when every case passes (as an nbgrader test cell
does), so a table of the public answers earns nothing; `passed/total` counts the cases.

`grade_folder(SUBMISSIONS, OUT)` grades one folder per learner (every notebook in it)
and then, with every sandbox closed, writes `OUT/gradebook.csv`, `OUT/gradebook.json`
(which isolation was used, and the SHA-256 of the CSV's rows) and
`OUT/feedback/<learner>.txt`, each by writing a new file and renaming it over the old;
`verify(OUT)` recomputes the digest and the rows. Up to `jobs` learners are graded at once,
in as many grading processes.

Left out: running the notebooks (the score does not depend on their outputs, so none
are executed).
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import multiprocessing
import os
import re
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..scratch import default_signals, scratch
from .base import CheckResult
from .exercises import EXERCISES
from .isolated import grade_sources
from .sandbox import isolation
from .sources import collect

MAX_JOBS = 4
POINTS = 1  # what each exercise is worth, here and in the nbgrader metadata
CHECK_CALL = re.compile(r"""\bcheck\(\s*['"]([\w-]+)['"]|%check\s+([\w-]+)""")
DEF = re.compile(r"^\s*def\s+(\w+)\s*\(", re.MULTILINE)
DETAIL = re.compile(r"\[([^\[\]]*)\]$")  # what went wrong, after a failure's hint
NOTEBOOK_GLOB = "*.ipynb"
DIGEST_KEY = "gradebook_csv_sha256"


def default_jobs() -> int:
    return max(1, min(MAX_JOBS, os.cpu_count() or 1))


def points(result: CheckResult) -> int:
    return POINTS if result.complete else 0


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

    @property
    def points(self) -> int:
        return sum(points(r) for r in self.results)

    def to_json(self) -> dict[str, Any]:
        return {"notebook": self.notebook, "points": self.points,
                "max_points": POINTS * len(self.results), "passed": self.passed,
                "total": self.total, "exercises": [
                    {**r.to_json(), "points": points(r)} for r in self.results],
                "problems": self.problems, "seconds": round(self.seconds, 2)}


def code_cells(nb: Any) -> list[str]:
    return [c.source for c in nb.cells if c.cell_type == "code"]


def exercises_in(nb: Any) -> list[str]:
    """The exercise ids a notebook checks or whose function it defines, in course order."""
    by_function = {e.function: e.id for e in EXERCISES.values()}
    found: set[str] = set()
    for source in code_cells(nb):
        found.update(a or b for a, b in CHECK_CALL.findall(source))
        found.update(by_function[name] for name in DEF.findall(source) if name in by_function)
    return [i for i in EXERCISES if i in found]


def _jobs_of(path: Path) -> tuple[list[tuple[str, str | None]], list[str]]:
    """The `(exercise, source)` pairs of one notebook, and its problems."""
    import nbformat

    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as exc:  # nbformat raises several kinds for a file that is not a notebook
        return [], [f"could not read it: {type(exc).__name__}: {exc}"]
    ids = exercises_in(nb)
    if not ids:
        return [], ["no exercises found (no check('exN') call, no exercise function)"]
    cells = code_cells(nb)
    return [(i, collect(cells, EXERCISES[i].function)) for i in ids], []


def grade_learner(paths: Sequence[Path], seed: int | None = None) -> list[NotebookGrade]:
    """Grade one learner's notebooks (each exercise in a sandbox of its own)."""
    started = time.monotonic()
    grades, jobs = [], []
    for path in paths:
        found, problems = _jobs_of(path)
        grades.append((NotebookGrade(str(path), problems=problems), len(found)))
        jobs += found
    results = iter(grade_sources(jobs, seed) if jobs else [])
    seconds = (time.monotonic() - started) / max(len(paths), 1)
    for grade, count in grades:
        grade.results = [next(results) for _ in range(count)]
        grade.seconds = seconds
    return [g for g, _ in grades]


def _graded(learners: Sequence[list[Path]], jobs: int | None, seed: int
            ) -> list[list[NotebookGrade]]:
    """`grade_learner` for each learner, in order, up to `jobs` learners at once in as many
    grading processes (processes, not threads: comparing results and drawing hidden cases
    is Python work that threads would take turns at); with one job, in this process."""
    jobs = max(1, min(jobs or default_jobs(), len(learners)))
    with scratch():  # every sandbox folder inside one, removed however grading ends
        if jobs == 1:
            return [grade_learner(paths, seed) for paths in learners]
        # leaving the block (a return, an exception, SIGTERM) terminates the workers
        with multiprocessing.Pool(jobs, initializer=default_signals) as pool:
            return pool.map(functools.partial(grade_learner, seed=seed), learners, chunksize=1)


def grade(paths: Sequence[str | Path], jobs: int | None = None,
          seed: int | None = None) -> list[NotebookGrade]:
    """Grade every notebook (each its own learner), up to `jobs` at once, in input order."""
    seed = secrets.randbits(63) if seed is None else seed
    return [g[0] for g in _graded([[Path(p)] for p in paths], jobs, seed)]


def learners_in(folder: Path) -> dict[str, list[Path]]:
    """Each subfolder that holds notebooks: a learner, by folder name."""
    found = {}
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        notebooks = sorted(sub.rglob(NOTEBOOK_GLOB))
        notebooks = [p for p in notebooks if ".ipynb_checkpoints" not in p.parts]
        if notebooks:
            found[sub.name] = notebooks
    return found


def grade_folder(folder: str | Path, out: str | Path, jobs: int | None = None,
                 seed: int | None = None) -> dict[str, list[NotebookGrade]]:
    """Grade every learner's folder under `folder`; write the gradebook and feedback."""
    seed = secrets.randbits(63) if seed is None else seed
    learners = learners_in(Path(folder))
    graded = dict(zip(learners, _graded(list(learners.values()), jobs, seed), strict=True))
    if graded:  # nothing to grade: write nothing (the caller says so)
        write_gradebook(graded, Path(out))
    return graded


def _scores(grades: Sequence[NotebookGrade]) -> dict[str, CheckResult]:
    return {r.exercise: r for g in grades for r in g.results}


def _csv(rows: list[tuple[str, dict[str, int], int]]) -> str:
    """`gradebook.csv` from `(learner, points by exercise, total)` rows."""
    ids = list(EXERCISES)
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(["learner", *ids, "points", "max_points"])
    for learner, scores, total in rows:
        writer.writerow([learner, *(scores.get(i, "") for i in ids), total,
                         POINTS * len(scores)])
    return text.getvalue()


def _rows_of_book(book: dict[str, Any]) -> list[tuple[str, dict[str, int], int]]:
    return [(entry["learner"], {e["exercise"]: e["points"] for nb in entry["notebooks"]
                                for e in nb["exercises"]}, entry["points"])
            for entry in book["learners"]]


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _write(path: Path, text: str) -> None:
    """Write then rename: a reader sees the old file or the new one, never half of one."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(text, encoding="utf-8", newline="")
    os.replace(partial, path)


def write_gradebook(graded: dict[str, list[NotebookGrade]], out: Path) -> None:
    """`gradebook.csv` (a row per learner, a column per exercise), `gradebook.json` (with
    the isolation used and the SHA-256 of the CSV) and `feedback/<learner>.txt`, each
    written atomically. Called once every sandbox of every learner has been closed."""
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    book = {"points_per_exercise": POINTS, "isolation": isolation(), "learners": [
        {"learner": learner, "points": sum(g.points for g in grades),
         "max_points": POINTS * sum(len(g.results) for g in grades),
         "notebooks": [g.to_json() for g in grades]} for learner, grades in graded.items()]}
    rows = _csv(_rows_of_book(book))
    book[DIGEST_KEY] = digest(rows)
    for learner, grades in graded.items():
        _write(out / "feedback" / f"{learner}.txt", feedback(learner, grades))
    _write(out / "gradebook.json", json.dumps(book, indent=2))
    _write(out / "gradebook.csv", rows)


def verify(out: str | Path) -> str | None:
    """Why `out`'s gradebook.csv is not the one the grader wrote, or None: its SHA-256
    must equal gradebook.json's digest, and its rows the scores gradebook.json holds."""
    folder = Path(out)
    try:
        rows = (folder / "gradebook.csv").read_bytes().decode("utf-8")
        book = json.loads((folder / "gradebook.json").read_text(encoding="utf-8"))
        rebuilt = _csv(_rows_of_book(book))
        recorded = book[DIGEST_KEY]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return f"cannot read the gradebook in {folder}: {type(exc).__name__}: {exc}"
    if digest(rows) != recorded:
        return f"{folder}/gradebook.csv does not match the digest in gradebook.json"
    if rows != rebuilt:
        return f"{folder}/gradebook.csv does not match the scores in gradebook.json"
    return None


def feedback(learner: str, grades: Sequence[NotebookGrade]) -> str:
    """What a learner reads: each exercise's points, and every failed case with its hint."""
    lines = [f"Feedback for {learner}"]
    for g in grades:
        lines.append(f"\n{Path(g.notebook).name}: {g.points}/{POINTS * len(g.results)} points")
        lines += [f"  note: {p}" for p in g.problems]
        for r in g.results:
            lines.append(f"  {r.exercise}: {points(r)}/{POINTS} point ({r.passed}/{r.total} "
                         "cases passed)")
            lines += [f"    FAIL {f.case}: {f.message}" for f in r.failures]
    total = sum(g.points for g in grades)
    most = POINTS * sum(len(g.results) for g in grades)
    return "\n".join([*lines, f"\ntotal: {total}/{most} points"]) + "\n"


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
        lines.append(f"{g.notebook}: {g.points}/{POINTS * len(g.results)} points "
                     f"({g.passed}/{g.total} cases) in {g.seconds:.1f} s")
        lines += [f"  note: {p}" for p in g.problems]
    return "\n".join(lines)
