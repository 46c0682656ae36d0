"""A grading run no submission can crash, hang or fool (issue 34, item 2).

Each test grades a small class with `grade_folder`: hostile entries (a FIFO named like a
notebook, a symlink to a classmate's notebook, a cell whose source is a number, a
30,000-deep expression, a learner folder whose name is undecodable bytes with an escape
sequence) score 0 with their reason while the honest learner keeps full marks; three
copies of a solved notebook count once; messages are escaped and capped; NaN is not a
recall; case inputs written back by a call reach neither the expected value nor the next
learner; a worker whose calls outlast its exercise's wall cap is ended there.
"""

from __future__ import annotations

import csv
import json
import math
import os
from pathlib import Path

import nbformat
import pytest

from jupyter_compaction.grading import grade_source, isolated
from jupyter_compaction.grading.base import same_number
from jupyter_compaction.grading.ex_preflight import TOOLS
from jupyter_compaction.grading.grader import grade_folder, verify
from jupyter_compaction.grading.notebooks import release
from jupyter_compaction.grading.seeds import SEEDS_FILE, ensure, load
from jupyter_compaction.grading.submissions import MAX_MESSAGE, message, shown
from tests.grading.grading_solutions import REFERENCE

pytestmark = pytest.mark.slow  # each exercise graded starts a sandbox
SEED = 11


def notebook(path: Path, *cells: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(c) for c in cells]), path)
    return path


def book(out: Path) -> dict:
    return json.loads((out / "gradebook.json").read_text())


def learner(out: Path, name: str) -> dict:
    return next(e for e in book(out)["learners"] if e["learner"] == name)


def test_hostile_entries_score_zero_with_a_reason_and_the_class_goes_on(tmp_path):
    subs = tmp_path / "subs"
    notebook(subs / "honest" / "work.ipynb", REFERENCE["ex3"])
    (subs / "fifo").mkdir()
    os.mkfifo(subs / "fifo" / "work.ipynb")
    (subs / "link").mkdir()
    (subs / "link" / "peer.ipynb").symlink_to("../honest/work.ipynb")
    (subs / "number").mkdir()
    raw = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(REFERENCE["ex3"])])
    raw_json = json.loads(nbformat.writes(raw))
    raw_json["cells"][0]["source"] = 5
    (subs / "number" / "work.ipynb").write_text(json.dumps(raw_json))
    deep = "x = a" + "[0]" * 30_000 + "\n" + REFERENCE["ex3"]
    notebook(subs / "deep" / "work.ipynb", deep)
    odd = os.fsdecode(b"evil\xff\x1b[31m")
    notebook(subs / odd / "work.ipynb", REFERENCE["ex3"])
    out = tmp_path / "out"
    graded = grade_folder(subs, out, jobs=1, seed=SEED)
    assert learner(out, "honest")["points"] == 1
    for name, reason in (("fifo", "not a regular file"), ("link", "symbolic link"),
                         ("number", "source is not text")):
        entry = learner(out, name)
        assert entry["points"] == 0
        assert reason in entry["notebooks"][0]["problems"][0], entry
    assert learner(out, "deep")["points"] in (0, 1)  # parsed or refused, never a crash
    escaped = shown(odd)
    assert "\x1b" not in escaped and "\\xff" in escaped
    assert learner(out, escaped)["points"] == 1
    assert (out / "feedback" / f"{escaped}.txt").is_file()
    assert verify(out) is None
    assert len(graded) == 6


def test_three_copies_of_a_solved_notebook_score_once(tmp_path):
    for n in range(3):
        notebook(tmp_path / "subs" / "ann" / f"copy{n}.ipynb", REFERENCE["ex3"])
    out = tmp_path / "out"
    grade_folder(tmp_path / "subs", out, jobs=1, seed=SEED)
    entry = learner(out, "ann")
    assert (entry["points"], entry["max_points"]) == (1, 1)
    row = next(csv.DictReader((out / "gradebook.csv").open()))
    assert (row["points"], row["max_points"], row["ex3"]) == ("1", "1", "1")
    assert verify(out) is None
    assert "total: 1/1" in (out / "feedback" / "ann.txt").read_text()


def test_messages_are_escaped_and_capped(tmp_path):
    loud = ("def safe_cut_index(messages, cut):\n"
            "    raise ValueError('\\x1b[2J' + 'x' * 1_000_000)\n")
    notebook(tmp_path / "subs" / "loud" / "work.ipynb", loud)
    out = tmp_path / "out"
    grade_folder(tmp_path / "subs", out, jobs=1, seed=SEED)
    assert (out / "gradebook.json").stat().st_size < 200_000
    text = (out / "feedback" / "loud.txt").read_text()
    assert "\x1b" not in text and "\x1b" not in (out / "gradebook.json").read_text()
    assert all(len(line) < 2 * MAX_MESSAGE + 20 for line in text.splitlines())
    assert message("a\nb\x07" + "y" * 1000).startswith("a\\nb\\x07y")


@pytest.mark.parametrize("value", ["float('nan')", "float('inf')", "-float('inf')"])
def test_a_recall_that_is_not_a_finite_number_earns_nothing(value):
    source = f"def fact_recall(summary, must_keep):\n    return {value}\n"
    assert not grade_source("ex7", source, seed=SEED).complete


def test_numbers_match_as_the_exercise_texts_say():
    assert same_number(-0.0, 0.0) and same_number(1, 1.0)
    assert not same_number(math.nan, 0.5, abs_tol=1e-9)
    assert not same_number(math.inf, 1e308, rel_tol=1e-9)
    assert same_number(math.nan, math.nan) and not same_number(True, 1.0)
    assert not same_number(0.1 + 1e-6, 0.1, rel_tol=1e-9)


def test_written_back_inputs_reach_neither_the_expected_value_nor_the_next_learner():
    clears = REFERENCE["ex1"].replace(
        "    return", "    if tools:\n        tools.clear()\n    return")
    assert not grade_source("ex1", clears, seed=SEED).complete
    emptied = REFERENCE["ex5d"].replace(
        "    overhead =", "    if tools:\n        tools.clear()\n    overhead =")
    grade_source("ex5d", emptied, seed=SEED)
    assert TOOLS, "the exercise's module-level tools were emptied"
    assert grade_source("ex5d", REFERENCE["ex5d"], seed=SEED).complete


def test_a_slow_worker_is_ended_at_its_exercises_wall_cap(monkeypatch):
    monkeypatch.setattr(isolated, "WALL_SECONDS", 0.3)  # the calls' wall time together
    source = ("def safe_cut_index(messages, cut):\n"
              "    return sum(range(2_000_000)) and 1\n")
    result = grade_source("ex3", source, seed=SEED)
    assert not result.complete
    assert any("hung" in f.message or "wall" in f.message for f in result.failures), result


def test_regrading_a_class_gives_identical_gradebooks(tmp_path):
    notebook(tmp_path / "subs" / "ann" / "work.ipynb", REFERENCE["ex3"], REFERENCE["ex7"])
    notebook(tmp_path / "subs" / "bob" / "work.ipynb", REFERENCE["ex2"].replace(
        'b["content"] != placeholder', 'b["content"] != PLACEHOLDER'))
    (tmp_path / "release").mkdir()
    seeds = load(ensure(tmp_path / "release"))
    for run in ("first", "second"):
        grade_folder(tmp_path / "subs", tmp_path / run, jobs=1, seed=seeds)
    for name in ("gradebook.json", "gradebook.csv", "feedback/ann.txt", "feedback/bob.txt"):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "second" / name
                                                             ).read_bytes(), name
    assert book(tmp_path / "first")["hidden_case_seeds"] == {"per_exercise": seeds}
    assert ensure(tmp_path / "release") and load(tmp_path / "release" / SEEDS_FILE) == seeds


def test_release_fixes_the_seeds_in_the_source_folder_only(tmp_path):
    source = tmp_path / "lessons"
    notebook(source / "01.ipynb", "x = 1")
    release(source, tmp_path / "learn")
    seeds = load(source / SEEDS_FILE)
    release(source, tmp_path / "learn2")
    assert load(source / SEEDS_FILE) == seeds  # fixed once, kept
    assert not list((tmp_path / "learn").rglob(SEEDS_FILE))
    assert not list((tmp_path / "learn2").rglob(SEEDS_FILE))
