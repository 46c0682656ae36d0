"""The lesson notebooks: nbval on all of them, notebook hygiene, exercises, concept map.

The nbval run is the real one (`pytest --nbval-lax --nbval-current-env lessons/` in a
subprocess, a real kernel per notebook), with plain-text output forced and no API key, as
on Binder. The other tests read the notebooks as files and need no kernel.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from jupyter_compaction.grading import EXERCISES

REPO = Path(__file__).resolve().parents[2]
LESSONS = REPO / "lessons"
NOTEBOOKS = sorted(LESSONS.glob("[0-9][0-9]_*.ipynb"))
CHECK = "# NBVAL_CHECK_OUTPUT"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
SKIP_LINE = "skipped: set ANTHROPIC_API_KEY to run this against Claude"
NBVAL_TIMEOUT_S = 480  # a hang guard for all lessons together, not a speed target
CONCEPTS = [f"C{n}" for n in range(1, 17)]
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
NONDETERMINISTIC = [
    (re.compile(r"(?<![\w.])/(?:tmp|home|root|work|var|private|Users)/"), "an absolute path"),
    (re.compile(r"0x[0-9a-f]{6,}"), "a memory address"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|seconds)\b|\bin \d+\.\d+ ?s\b"), "a timing"),
    (re.compile(r"\b\d{8}T\d{6}-[0-9a-f]{8}\b"), "a session id"),
]


def lesson_env() -> dict[str, str]:
    """The environment of a lesson run: text output, no Claude, this checkout importable."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ANTHROPIC_")}
    env["JUPYTER_COMPACTION_TEXT"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    return env


def read(path: Path):
    return nbformat.read(path, as_version=4)


def code_cells(nb) -> list:
    return [c for c in nb.cells if c.cell_type == "code"]


def number(path: Path) -> int:
    return int(path.name[:2])


def ids(paths: list[Path]) -> list[str]:
    return [p.stem for p in paths]


def test_the_lessons_are_numbered_from_1_without_gaps_and_the_badge_target_exists():
    assert len(NOTEBOOKS) >= 8
    assert [number(p) for p in NOTEBOOKS] == list(range(1, len(NOTEBOOKS) + 1))
    assert (LESSONS / "01_why_compaction.ipynb").is_file()  # the README's Binder badge
    assert "?labpath=learn/01_why_compaction.ipynb" in (REPO / "README.md").read_text()


@pytest.mark.slow
@pytest.mark.parametrize("folder", ["lessons", "learn"])  # the sources and the learner copies
def test_nbval_passes_on_every_lesson(folder):
    """How long it takes is measured by benchmarks/bench_lessons.py, not asserted here."""
    command = [sys.executable, "-m", "pytest", "--nbval-lax", "--nbval-current-env",
               f"{folder}/", "-p", "no:cacheprovider", "-q", "-o", "addopts="]
    done = subprocess.run(command, cwd=REPO, env=lesson_env(), capture_output=True, text=True,
                          timeout=NBVAL_TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_only_checked_cells_keep_outputs(path):
    nb = read(path)
    nbformat.validate(nb)
    assert "widgets" not in nb.metadata
    checked = 0
    for index, cell in enumerate(nb.cells):
        assert "execution" not in cell.metadata, f"cell {index} keeps timing metadata"
        if cell.cell_type != "code":
            continue
        if cell.source.startswith(CHECK):
            checked += 1
            assert cell.outputs, f"cell {index} is marked for checking but has no stored output"
            for output in cell.outputs:
                assert output.output_type != "error", f"cell {index} stored an error"
                assert output.get("name") != "stderr", f"cell {index} stored stderr"
                assert WIDGET_MIME not in output.get("data", {}), f"cell {index} stores a widget"
                text = output.get("text", "") + str(output.get("data", {}).get("text/plain", ""))
                for pattern, what in NONDETERMINISTIC:
                    found = pattern.search(text)
                    assert not found, f"cell {index} output holds {what}: {found.group(0)!r}"
        else:
            assert cell.outputs == [], f"cell {index} has outputs but is not {CHECK}"
            assert cell.execution_count is None, f"cell {index} keeps an execution count"
    assert 2 <= checked <= 8, f"{checked} checked cells; keep a few per lesson"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=ids(NOTEBOOKS))
def test_every_lesson_has_the_common_parts(path):
    nb = read(path)
    code = code_cells(nb)
    sources = "\n".join(c.source for c in code)
    assert code[0].source.splitlines()[0] == "%load_ext jupyter_compaction"
    assert "%psource" in sources or "getsource" in sources, "show the library code it teaches"
    assert re.search(r"^CONTEXT_BUDGET = ", sources, re.M), "let the learner set CONTEXT_BUDGET"
    assert "--strategy trim" in sources and "--strategy summarize" in sources
    last = code[-1].source
    assert 'os.environ.get("ANTHROPIC_API_KEY")' in last and SKIP_LINE in last
    assert "claude-" in last, "the try-this cell runs a Claude model"
    assert nb.cells[0].cell_type == "markdown"
    assert nb.cells[0].source.startswith(f"# Lesson {number(path)} ")
    assert re.search(r"About \d\d minutes", nb.cells[0].source)


BEFORE_CAPSTONE = [p for p in NOTEBOOKS if not p.stem.endswith("_capstone")]
# Lesson 10 maps the library onto the API's context management; it has no graded exercise.
GRADED = [p for p in NOTEBOOKS if 2 <= number(p) != 10]


@pytest.mark.parametrize("path", BEFORE_CAPSTONE, ids=ids(BEFORE_CAPSTONE))
def test_the_capstone_scenario_is_unseen_outside_the_capstone(path):
    text = "\n".join(c.source for c in read(path).cells)
    assert not re.search(r"\baudit\b", text)


@pytest.mark.parametrize("path", GRADED, ids=ids(GRADED))
def test_every_lesson_from_2_has_graded_exercises(path):
    nb = read(path)
    code = code_cells(nb)
    imports = [c for c in code if "from jupyter_compaction.grading import check" in c.source]
    assert len(imports) == 1 and code.index(imports[0]) <= 1, "import check once, near the top"
    wanted = [e for e in EXERCISES.values() if e.lesson == number(path)]
    assert wanted, "the grading package has no exercise for this lesson"
    for exercise in wanted:
        defining = [i for i, c in enumerate(code)
                    if re.search(rf"^def {exercise.function}\(", c.source, re.M)]
        assert len(defining) == 1, f"one cell defines {exercise.function}"
        lines = [line.strip() for line in code[defining[0]].source.splitlines()]
        assert lines.count(BEGIN) == 1 and lines.count(END) == 1
        assert lines.index(BEGIN) < lines.index(END)
        begin = code[defining[0]].source.splitlines()[lines.index(BEGIN)]
        assert begin.startswith("    "), "the solution sits inside the function body"
        checks = [i for i, c in enumerate(code) if c.source.strip() == f'check("{exercise.id}")']
        assert checks and checks[0] > defining[0], f'a check("{exercise.id}") cell follows'
        heading = f"## Exercise {exercise.id}: `{exercise.function}`"
        assert any(c.cell_type == "markdown" and heading in c.source for c in nb.cells)


def test_every_exercise_is_in_a_lesson():
    text = {number(p): "\n".join(c.source for c in read(p).cells) for p in NOTEBOOKS}
    for exercise in EXERCISES.values():
        assert f'check("{exercise.id}")' in text[exercise.lesson], exercise.id


def concept_rows() -> list[tuple[str, str, list[str]]]:
    """(concept, notebook, [headings]) for each row of the README's concept map."""
    readme = (LESSONS / "README.md").read_text(encoding="utf-8")
    rows = []
    for line in readme.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"C\d+", cells[0]):
            link = re.fullmatch(r"\[([\w.]+\.ipynb)\]\(\1\)", cells[2])
            assert link, f"the lesson column of {cells[0]} is not a link to a notebook: {cells[2]}"
            rows.append((cells[0], link.group(1), re.findall(r'"([^"]+)"', cells[3])))
    return rows


def headings(path: Path) -> set[str]:
    return {line.lstrip("#").strip() for c in read(path).cells if c.cell_type == "markdown"
            for line in c.source.splitlines() if line.startswith("#")}


def test_readme_maps_every_concept_to_a_lesson_and_cell():
    rows = concept_rows()
    assert sorted({r[0] for r in rows}, key=lambda c: int(c[1:])) == CONCEPTS
    for concept, notebook, cells in rows:
        path = LESSONS / notebook
        assert path.is_file(), f"{concept}: {notebook} does not exist"
        assert cells, f"{concept}: name the cell (its section heading, in quotes)"
        for heading in cells:
            assert heading in headings(path), f"{concept}: no heading {heading!r} in {notebook}"


def test_readme_outlines_every_lesson():
    readme = (LESSONS / "README.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        assert f"[{path.name}]({path.name})" in readme
    for words in ("Binder", "JupyterHub", "jupyter-compaction lab", "--nbval-lax"):
        assert words in readme
