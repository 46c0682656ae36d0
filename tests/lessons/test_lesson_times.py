"""The course's times agree: each lesson header's "*About N minutes*", the Time column of
the course README's outline, and the total the README states in words; and no header
promises less than reading its prose and doing its exercises take.

Left out: how long a learner really takes (no test can time one); the floor below only
keeps a stated time from dropping under what the lesson's own text and exercises need."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat

from jupyter_compaction.grading import EXERCISES

LESSONS = Path(__file__).resolve().parents[2] / "lessons"
NOTEBOOKS = sorted(LESSONS.glob("[0-9][0-9]_*.ipynb"))
UNITS = ["", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]
TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty"}
READING_WPM = 200  # words a minute of technical prose read with care
EXERCISE_MINUTES = 5  # the least an exercise takes: read it, write it, run check()


def words(number: int) -> str:
    """1 to 59 in words: `twenty-five`."""
    if number < 20:
        return UNITS[number]
    tens, units = divmod(number, 10)
    return TENS[tens] + (f"-{UNITS[units]}" if units else "")


def duration(minutes: int) -> str:
    """`four hours and twenty-five minutes`, as the README writes a total."""
    hours, rest = divmod(minutes, 60)
    parts = [f"{words(hours)} hour{'s' * (hours != 1)}"] if hours else []
    if rest:
        parts.append(f"{words(rest)} minute{'s' * (rest != 1)}")
    return " and ".join(parts)


def header_minutes(path: Path) -> int:
    header = nbformat.read(path, as_version=4).cells[0].source
    found = re.findall(r"\*About (\d+) minutes\.", header)
    assert len(found) == 1, f"{path.name}: one '*About N minutes.' line in the header"
    return int(found[0])


def readme_minutes() -> dict[str, int]:
    """The Time column of the course outline, by notebook."""
    rows = re.findall(r"^\| \d+ \| \[([\w.]+\.ipynb)\]\(\1\) \| (\d+) min \|",
                      (LESSONS / "README.md").read_text(encoding="utf-8"), re.M)
    return {name: int(minutes) for name, minutes in rows}


def test_the_words_for_a_duration():
    assert duration(265) == "four hours and twenty-five minutes"
    assert duration(60) == "one hour" and duration(41) == "forty-one minutes"


def test_the_readme_table_has_each_lessons_header_time():
    headers = {path.name: header_minutes(path) for path in NOTEBOOKS}
    assert readme_minutes() == headers


def test_the_readme_total_is_the_sum_of_the_headers():
    total = sum(header_minutes(path) for path in NOTEBOOKS)
    readme = " ".join((LESSONS / "README.md").read_text(encoding="utf-8").split())
    assert f"notebooks, about {duration(total)} in all." in readme


def prose_words(path: Path) -> int:
    cells = nbformat.read(path, as_version=4).cells
    return sum(len(c.source.split()) for c in cells if c.cell_type == "markdown")


def test_no_header_promises_less_than_reading_and_the_exercises_take():
    for path in NOTEBOOKS:
        lesson = int(path.name[:2])
        exercises = sum(e.lesson == lesson for e in EXERCISES.values())
        floor = prose_words(path) / READING_WPM + EXERCISE_MINUTES * exercises
        assert header_minutes(path) >= floor, (
            f"{path.name}: {header_minutes(path)} min stated, but its prose alone takes "
            f"{prose_words(path) / READING_WPM:.0f} min and it has {exercises} exercises")


def test_the_course_stays_under_five_hours():
    assert sum(header_minutes(path) for path in NOTEBOOKS) < 5 * 60
