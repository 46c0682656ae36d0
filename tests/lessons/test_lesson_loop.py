"""The lessons' "Your ... in the loop" sections: the learner's exercise function, wrapped
into a strategy's shape (a stuck rule inside a strategy that raises `CompressionStuck`)
or a trigger rule's, runs in `%%agent --strategy NAME` (or `--trigger-rule NAME`, with
the library's strategy) next to the library, and the cells run on the learner copy too,
where the function is still the stub.

Each section is read from the lesson: its wrapper cell (a function of the strategy's shape
that calls the lesson's exercise function), the cell that plays the library's strategy
and the wrapper with the same options (`--out library_run`, `--out my_run`) and the cell
that compares them. The cells are run in an IPython shell after the lesson's first cell
and the exercise's cell: with the lesson's solution the two runs agree number for number
(what the section's prose says); with the stub that `jupyter-compaction release` writes
into the learner copy, the learner's run stops at its first compaction with the
function's traceback shown, its transcript kept, and no cell raises.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from IPython.utils.capture import capture_output

from jupyter_compaction.grading import EXERCISES
from jupyter_compaction.grading.notebooks import BEGIN, strip_solutions
from tests.support.quick import quick_first
from tests.support.shell import ip, shell_text  # noqa: F401 (the fixtures)

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
HEADING = re.compile(r"## Your [\w ]+ in the loop\n")  # "function", "stuck rule"
RUN = re.compile(r"^%agent (?P<options>.*) --strategy (?P<strategy>[\w-]+) "
                 r"(?:--trigger-rule (?P<rule>\w+) )?(?P<rest>.*)--out (?P<out>\w+)$", re.M)


def sections() -> dict[str, list[str]]:
    """Each loop section, by lesson and wrapper: its markdown and the three code cells
    after it."""
    found = {}
    for path in sorted(LESSONS.glob("[0-9][0-9]_*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        for at in [i for i, c in enumerate(cells) if HEADING.match(c.source)]:
            section = [c.source for c in cells[at:at + 4]]
            found[f"{path.stem}:{defined(section[1])}"] = section
    return found


def defined(source: str) -> str:
    names = re.findall(r"^def (\w+)\(", source, re.M)
    assert len(names) == 1, "the wrapper cell defines one function"
    return names[0]


SECTIONS = sections()


@pytest.fixture
def shell_names() -> tuple[str, ...]:
    return ("library_run", "my_run")


def exercise_cell(key: str, wrapper: str) -> tuple[str, str]:
    """The function of the lesson's exercise that the wrapper calls, and its cell."""
    stem = key.split(":")[0]
    lesson = int(stem[:2])
    names = [e.function for e in EXERCISES.values()
             if e.lesson == lesson and re.search(rf"\b{e.function}\(", wrapper)]
    assert len(names) == 1, f"{stem}: the wrapper calls one exercise function of its lesson"
    cells = nbformat.read(LESSONS / f"{stem}.ipynb", as_version=4).cells
    source = next(c.source for c in cells
                  if c.cell_type == "code" and f"def {names[0]}(" in c.source)
    assert BEGIN in source
    return names[0], source


def test_at_least_three_lessons_put_the_learners_code_in_the_loop():
    assert len({key.split(":")[0] for key in SECTIONS}) >= 3


@pytest.mark.parametrize("stem", sorted(SECTIONS))
def test_the_section_plays_the_wrapper_next_to_the_library_with_the_same_options(stem):
    prose, wrapper, runs, comparison = SECTIONS[stem]
    exercise_cell(stem, wrapper)
    played = [m.groupdict() for m in RUN.finditer(runs)]
    assert [p["out"] for p in played] == ["library_run", "my_run"]
    library, mine = played
    assert (mine["rule"] or mine["strategy"]) == defined(wrapper) and library["rule"] is None
    if mine["rule"] is None:  # your strategy next to the library's
        assert library["strategy"] != mine["strategy"]
    else:  # the library's strategy, asked by your trigger
        assert library["strategy"] == mine["strategy"]
    assert (library["options"], library["rest"]) == (mine["options"], mine["rest"])
    assert f"`{library['strategy']}`" in prose  # the prose names the strategy it compares with
    assert "compare_runs(" in comparison and "library_run" in comparison and "my_run" in comparison


def play_section(shell, stem: str, *, solved: bool) -> tuple[str, object, object]:
    """Run the lesson's first cell, its exercise cell (the solution, or the learner copy's
    stub) and the loop section in `shell`; what it printed and the two runs."""
    _, wrapper, runs, comparison = SECTIONS[stem]
    function, exercise = exercise_cell(stem, wrapper)
    path = LESSONS / f"{stem.split(':')[0]}.ipynb"
    setup = nbformat.read(path, as_version=4).cells[1].source
    cells = [setup, exercise if solved else strip_solutions(exercise), wrapper, runs,
             comparison]
    with capture_output() as out:
        for source in cells:
            assert shell.run_cell(source).success, source
    return out.stdout, shell.user_ns["library_run"], shell.user_ns["my_run"]


def numbers(run) -> tuple:
    return run.status, run.turn, run.peak_context, run.tokens_sent, len(run.compactions), \
        run.repeats


@pytest.mark.parametrize("stem", quick_first(sorted(SECTIONS)))
def test_with_the_solution_the_learners_run_is_the_librarys(ip, stem):  # noqa: F811
    shown, library, mine = play_section(ip, stem, solved=True)
    assert numbers(mine) == numbers(library) and library.turn > 3
    assert "Traceback" not in shown and "(yours)" in shown
    if mine.status == "failed":  # a stuck rule: its own stop, named after the wrapper
        assert mine.error_line.startswith(f"compaction '{defined(SECTIONS[stem][1])}' is stuck")


@pytest.mark.parametrize("stem", quick_first(sorted(SECTIONS)))
def test_with_the_stub_the_run_stops_naming_the_unwritten_function(ip, stem):  # noqa: F811
    shown, library, mine = play_section(ip, stem, solved=False)
    wrapper = defined(SECTIONS[stem][1])
    exercise, _ = exercise_cell(stem, SECTIONS[stem][1])
    assert not (library.error_line or "").startswith("your function")
    assert mine.status == "failed"
    assert mine.error_line.startswith(f"your function {wrapper}() raised NotImplementedError")
    assert f"{exercise}() is not written yet (NotImplementedError: write your" in shown
    assert "Traceback" not in shown  # the browser test runs released copies: none shown
    assert mine.error.count('raise NotImplementedError("write your solution here")') == 1
    trigger = RUN.search(SECTIONS[stem][2].splitlines()[1])["rule"]
    # a strategy is first asked at its first compaction, a trigger before the first request
    assert len(mine.transcript) > (0 if trigger else 2) and not mine.compactions
