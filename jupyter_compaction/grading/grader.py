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
A learner earns each exercise once, whatever number of notebooks define it (the best of
them counts, and the same source is graded once). Notebooks are read through
`submissions.py` (regular files in the learner's own folder only; one that cannot be
read scores 0 with its reason and the class goes on), and every name and message that
reaches the table, the gradebook or a feedback file is escaped and capped there.

`grade_folder(SUBMISSIONS, OUT)` grades one folder per learner (every notebook in it)
and then, with every sandbox closed, writes `OUT/gradebook.csv`, `OUT/gradebook.json`
(which isolation and hidden-case seeds were used, and the SHA-256 of the CSV's
rows; no timings, so re-grading a class gives the same files) and
`OUT/feedback/<learner>.txt`, each by writing a new file and renaming it over the old;
`verify(OUT)` recomputes the digest and the rows. Up to `jobs` learners are graded at once,
in as many grading processes.

A lesson's quiz is practice: the answers a notebook records in `QUIZ3 = {...}` (read as
literals, never run: `quiz.recorded_answers`) are reported as right/total in a column of
their own per lesson (`quiz3` in the gradebook, a line in the feedback) and earn no points.

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
from .base import CheckResult, Failure
from .exercises import EXERCISES
from .isolated import grade_sources
from .quiz import questions_of, quiz_ids, recorded_answers, score
from .sandbox import isolation, require
from .seeds import Seeds
from .sources import collect_all
from .submissions import Unreadable, code_cells_of, learners_in, message, shown

MAX_JOBS = 4
POINTS = 1  # what each exercise is worth, here and in the nbgrader metadata
CHECK_CALL = re.compile(r"""\bcheck\(\s*['"]([\w-]+)['"]|%check\s+([\w-]+)""")
DEF = re.compile(r"^\s*def\s+(\w+)\s*\(", re.MULTILINE)
DETAIL = re.compile(r"\[([^\[\]]*)\]$")  # what went wrong, after a failure's hint
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
    quizzes: dict[str, list[int]] = field(default_factory=dict)  # quiz3: [right, total]

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.results)

    @property
    def total(self) -> int:
        return sum(r.total for r in self.results)

    @property
    def points(self) -> int:
        return sum(points(r) for r in self.results)

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        """The grade as JSON; without `timing`, only what the submission and the release
        decide (the gradebook's form, identical on every re-grade)."""
        data = {"notebook": self.notebook, "points": self.points,
                "max_points": POINTS * len(self.results), "passed": self.passed,
                "total": self.total, "exercises": [
                    {**r.to_json(), "points": points(r)} for r in self.results],
                "problems": self.problems, "quizzes": self.quizzes}
        return {**data, "seconds": round(self.seconds, 2)} if timing else data


def exercises_in(cells: Sequence[str]) -> list[str]:
    """The exercise ids a notebook's code cells check or whose function they define, in
    course order."""
    by_function = {e.function: e.id for e in EXERCISES.values()}
    found: set[str] = set()
    for source in cells:
        found.update(a or b for a, b in CHECK_CALL.findall(source))
        found.update(by_function[name] for name in DEF.findall(source) if name in by_function)
    return [i for i in EXERCISES if i in found]


def _jobs_of(path: Path) -> tuple[list[tuple[str, str | None]], list[str]]:
    """The `(exercise, source)` pairs of one notebook, and its problems."""
    try:
        cells = code_cells_of(path)
        ids = exercises_in(cells)
        sources = collect_all(cells, [EXERCISES[i].function for i in ids])
        jobs = [(i, sources[EXERCISES[i].function]) for i in ids]
    except Unreadable as exc:
        return [], [f"could not read it: {exc}"]
    except (RecursionError, MemoryError, ValueError) as exc:  # a pathological cell
        return [], [f"could not read its code: {type(exc).__name__}"]
    if not ids:
        return [], ["no exercises found (no check('exN') call, no exercise function)"]
    return jobs, []


def quizzes_of(path: Path) -> dict[str, list[int]]:
    """`{"quiz3": [right, total]}` for each lesson quiz the notebook records answers to."""
    try:
        recorded = recorded_answers(code_cells_of(path))
    except (Unreadable, RecursionError, MemoryError, ValueError):
        return {}  # _jobs_of reports why the notebook could not be read
    results = [score(n, answers)[0] for n, answers in sorted(recorded.items())
               if questions_of(n)]
    return {r.exercise: [r.passed, r.total] for r in results}


def quiz_lines(grade: NotebookGrade) -> list[str]:
    return [f"  {quiz}: {right}/{total} right (practice: no points)"
            for quiz, (right, total) in grade.quizzes.items()]


def _clean(result: CheckResult) -> CheckResult:
    """`result` with every failure's case and message escaped and capped."""
    return CheckResult(result.exercise, result.passed, result.total,
                       [Failure(message(f.case), message(f.message)) for f in result.failures])


def grade_learner(paths: Sequence[Path], seed: Seeds | None = None) -> list[NotebookGrade]:
    """Grade one learner's notebooks (each distinct exercise source once, in a sandbox of
    its own, within the learner's budget)."""
    started = time.monotonic()
    found = [(path, *_jobs_of(path)) for path in paths]
    unique = list(dict.fromkeys(job for _, jobs, _ in found for job in jobs))
    scored = dict(zip(unique, map(_clean, grade_sources(unique, seed) if unique else []),
                      strict=True))
    seconds = (time.monotonic() - started) / max(len(paths), 1)
    return [NotebookGrade(shown(str(path)), [scored[job] for job in jobs],
                         [message(p) for p in problems], seconds, quizzes_of(path))
            for path, jobs, problems in found]


def _graded(learners: Sequence[list[Path]], jobs: int | None, seed: Seeds
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
          seed: Seeds | None = None, allow_weak: bool = False) -> list[NotebookGrade]:
    """Grade every notebook (each its own learner), up to `jobs` at once, in input order;
    `sandbox.WeakSandbox` where the isolation is weak and `allow_weak` is not given."""
    require(allow_weak)
    seed = secrets.randbits(63) if seed is None else seed
    return [g[0] for g in _graded([[Path(p)] for p in paths], jobs, seed)]


def grade_folder(folder: str | Path, out: str | Path, jobs: int | None = None,
                 seed: Seeds | None = None, allow_weak: bool = False
                 ) -> dict[str, list[NotebookGrade]]:
    """Grade every learner's folder under `folder`; write the gradebook and feedback
    (`sandbox.WeakSandbox`, before anything runs, as `grade` says)."""
    require(allow_weak)
    seed = secrets.randbits(63) if seed is None else seed
    learners = learners_in(Path(folder))
    graded = dict(zip(_names(learners), _graded(list(learners.values()), jobs, seed),
                      strict=True))
    if graded:  # nothing to grade: write nothing (the caller says so)
        write_gradebook(graded, Path(out), seed, allow_weak)
    return graded


def _names(learners: dict[str, list[Path]]) -> list[str]:
    """Each learner's name as shown (escaped), made unique where two escape alike."""
    names: list[str] = []
    for raw in learners:
        name = shown(raw)
        while name in names:
            name += "_"
        names.append(name)
    return names


def best(grades: Sequence[NotebookGrade]) -> dict[str, CheckResult]:
    """Each exercise once: the best result of any of the learner's notebooks for it."""
    found: dict[str, CheckResult] = {}
    for result in (r for g in grades for r in g.results):
        held = found.get(result.exercise)
        if held is None or (points(result), result.passed) > (points(held), held.passed):
            found[result.exercise] = result
    return found


def learner_points(grades: Sequence[NotebookGrade]) -> tuple[int, int]:
    """(points, max points) of one learner, each exercise counted once."""
    scores = best(grades)
    return sum(points(r) for r in scores.values()), POINTS * len(scores)


Row = tuple[str, dict[str, int], int, dict[str, list[int]]]


def _csv(rows: list[Row]) -> str:
    """`gradebook.csv` from `(learner, points by exercise, total, quizzes)` rows; a quiz
    is `right/total`, outside the points."""
    ids, quizzes = list(EXERCISES), quiz_ids()
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(["learner", *ids, "points", "max_points", *quizzes])
    for learner, scores, total, answered in rows:
        writer.writerow([learner, *(scores.get(i, "") for i in ids), total,
                         POINTS * len(scores),
                         *(f"{answered[q][0]}/{answered[q][1]}" if q in answered else ""
                           for q in quizzes)])
    return text.getvalue()


def _rows_of_book(book: dict[str, Any]) -> list[Row]:
    """Each learner's row: every exercise and every quiz once, the best of any notebook."""
    rows = []
    for entry in book["learners"]:
        scores: dict[str, int] = {}
        for e in (e for nb in entry["notebooks"] for e in nb["exercises"]):
            scores[e["exercise"]] = max(scores.get(e["exercise"], 0), e["points"])
        quizzes: dict[str, list[int]] = {}
        for quiz, mark in (q for nb in entry["notebooks"] for q in nb.get("quizzes", {}).items()):
            quizzes[quiz] = max(quizzes.get(quiz, mark), mark)
        rows.append((entry["learner"], scores, entry["points"], quizzes))
    return rows


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _write(path: Path, text: str) -> None:
    """Write then rename: a reader sees the old file or the new one, never half of one."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_text(text, encoding="utf-8", newline="")
    os.replace(partial, path)


def seeds_record(seed: Seeds) -> dict[str, Any]:
    """How the hidden cases were drawn, as `gradebook.json` records it."""
    if isinstance(seed, int):
        return {"seed": seed}
    return {"per_exercise": {e: int(seed[e]) for e in EXERCISES if e in seed}}


def write_gradebook(graded: dict[str, list[NotebookGrade]], out: Path,
                    seed: Seeds | None = None, allow_weak: bool = False) -> None:
    """`gradebook.csv` (a row per learner, a column per exercise), `gradebook.json` (with
    the isolation used and the SHA-256 of the CSV) and `feedback/<learner>.txt`, each
    written atomically. Called once every sandbox of every learner has been closed."""
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    book = {"points_per_exercise": POINTS,
            "isolation": {**isolation(), "weak_sandbox_allowed": allow_weak},
            "hidden_case_seeds": None if seed is None else seeds_record(seed), "learners": [
        {"learner": learner, **dict(zip(("points", "max_points"), learner_points(grades),
                                        strict=True)),
         "notebooks": [g.to_json(timing=False) for g in grades]}
        for learner, grades in graded.items()]}
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
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
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
        lines += quiz_lines(g)
    total, most = learner_points(grades)
    return "\n".join([*lines, f"\ntotal: {total}/{most} points"]) + "\n"  # each exercise once


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
        lines += [f"  note: {p}" for p in g.problems] + quiz_lines(g)
    return "\n".join(lines)
