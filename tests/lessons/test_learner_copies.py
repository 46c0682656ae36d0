"""The learner copies in `learn/`: what `jupyter-compaction lab`, Binder and the README open.

They must be exactly what `jupyter-compaction release` writes from `lessons/` today (so a
change to a lesson is never left out of them), hold no solution, and score 0 on every
exercise until the learner writes it. nbval runs them (`test_lessons.py`), so they also
run top to bottom unsolved.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from jupyter_compaction import STRATEGIES
from jupyter_compaction.grading import EXERCISES
from jupyter_compaction.grading.grader import grade
from jupyter_compaction.grading.notebooks import release
from jupyter_compaction.launch import lessons_dir

REPO = Path(__file__).resolve().parents[2]
SOURCES, COPIES = REPO / "lessons", REPO / "learn"
NOTEBOOKS = sorted(SOURCES.glob("[0-9][0-9]_*.ipynb"))


def files(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*")) if p.is_file()
            and ".ipynb_checkpoints" not in p.parts}


def test_the_committed_copies_equal_a_fresh_release(tmp_path):
    release(SOURCES, tmp_path / "learn")
    fresh, committed = files(tmp_path / "learn"), files(COPIES)
    assert sorted(committed) == sorted(fresh)
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"run `jupyter-compaction release` to refresh {', '.join(stale)}"


def test_every_lesson_has_a_learner_copy_without_solutions():
    assert [p.name for p in sorted(COPIES.glob("[0-9][0-9]_*.ipynb"))] == [
        p.name for p in NOTEBOOKS]
    for path in sorted(COPIES.glob("*.ipynb")):
        text = path.read_text(encoding="utf-8")
        assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text, path.name


def test_the_lab_command_and_binder_open_the_learner_copies():
    assert lessons_dir() == COPIES
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "labpath=learn/01_why_compaction.ipynb" in readme
    assert "labpath=lessons/" not in readme


def test_lesson_8_never_prints_which_settings_meet_every_target():
    solved = nbformat.read(SOURCES / "08_capstone.ipynb", as_version=4)
    solution = next(c.source for c in solved.cells if c.source.startswith("def choose_settings"))
    answer = next(line.strip() for line in solution.splitlines() if "return {" in line)
    copy = nbformat.read(COPIES / "08_capstone.ipynb", as_version=4)
    code = "\n".join(c.source for c in copy.cells if c.cell_type == "code")
    assert answer[len("return "):] not in code and "all targets met" not in code
    sweeps = re.findall(r"for task_state in \(([^)]*)\)", code)
    assert sweeps and all("True" not in s for s in sweeps), "the sweep shows no passing row"
    sweep = next(c for c in solved.cells if c.cell_type == "code" and "for budget in" in c.source)
    printed = "".join(o.get("text", "") for o in sweep.outputs).splitlines()
    rows = [line for line in printed if line.split()[:1] and line.split()[0] in STRATEGIES]
    assert rows, "the sweep's stored output holds its rows"
    passing = [line for line in rows if line.split()[-5:] == ["ok"] * 5]
    assert not passing, f"the sweep prints a setting that meets every target: {passing}"


@pytest.mark.parametrize("path", sorted(COPIES.glob("[0-9][0-9]_*.ipynb"))[1:],
                         ids=lambda p: p.stem)
def test_an_unsolved_copy_earns_nothing(path):
    result = grade([path], seed=1)[0]
    wanted = sorted(e.id for e in EXERCISES.values() if e.lesson == int(path.name[:2]))
    assert sorted(r.exercise for r in result.results) == wanted
    assert result.points == 0 and result.passed == 0
