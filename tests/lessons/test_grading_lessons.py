"""`jupyter-compaction release` and `grade` on the real lessons.

Released learner copies (every solution replaced by a `NotImplementedError` stub) must
score 0 on every exercise; the committed notebooks, which hold the solutions, must score
full marks on the public and hidden cases; and a copy with one solution made subtly wrong
must lose that exercise's point, with the failed case named.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_compaction.grading import EXERCISES

REPO = Path(__file__).resolve().parents[2]
LESSONS = REPO / "lessons"
NOTEBOOKS = sorted(LESSONS.glob("[0-9][0-9]_*.ipynb"))


def cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    done = subprocess.run([sys.executable, "-m", "jupyter_compaction.cli", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def grade(paths: list[Path]) -> dict[Path, dict]:
    """Each notebook's grade, by its path (as given)."""
    done = cli("grade", *map(str, paths), "--json", "--jobs", "2")
    return {Path(g["notebook"]): g for g in json.loads(done.stdout)["notebooks"]}


def expected_ids(path: Path) -> list[str]:
    return sorted(e.id for e in EXERCISES.values() if e.lesson == int(path.name[:2]))


@pytest.mark.slow
def test_released_copies_score_zero_and_solutions_full_marks(tmp_path):
    released = tmp_path / "released"
    cli("release", str(LESSONS), str(released))
    copies = sorted(released.glob("[0-9][0-9]_*.ipynb"))
    assert [p.name for p in copies] == [p.name for p in NOTEBOOKS]
    for copy in copies:
        text = copy.read_text(encoding="utf-8")
        assert "### BEGIN SOLUTION" not in text
        assert ("NotImplementedError" in text) == bool(expected_ids(copy)), copy.name

    scores = grade(copies + NOTEBOOKS)  # learner copies and solutions, graded together
    assert len(scores) == 2 * len(NOTEBOOKS)
    for path, copy in zip(NOTEBOOKS, copies, strict=True):
        solved, blank = scores[path], scores[copy]
        ids = expected_ids(path)
        assert sorted(r["exercise"] for r in solved["exercises"]) == ids
        assert sorted(r["exercise"] for r in blank["exercises"]) == ids
        assert solved["passed"] == solved["total"], (path.name, solved)
        assert blank["passed"] == 0, (path.name, blank)
        if ids:
            assert solved["total"] > 0 and blank["total"] == solved["total"]


@pytest.mark.slow
def test_one_wrong_solution_loses_its_point_naming_the_case(tmp_path):
    source = LESSONS / "05_who_summarizes_preflight_stuck.ipynb"
    nb = nbformat.read(source, as_version=4)
    cell = next(c for c in nb.cells if c.source.startswith("def is_stuck("))
    assert "< 0.10 * tokens_before" in cell.source
    cell.source = cell.source.replace("< 0.10 * tokens_before", "<= 0.10 * tokens_before")
    wrong = tmp_path / source.name
    nbformat.write(nb, wrong)
    result = grade([wrong])[wrong]
    points = {r["exercise"]: r["points"] for r in result["exercises"]}
    assert points == {"ex5": 0, "ex5b": 1, "ex5c": 1, "ex5d": 1}
    assert 0 < result["passed"] < result["total"]
    failed = [f[0] for r in result["exercises"] for f in r["failures"]]
    assert failed[0] == "exactly 10 %"
    assert all(f.startswith(("hidden case", "generated cases")) for f in failed[1:])
