"""A misspelt word read as the one word the reader knows a slip away from
(`scenarios/spelling.py`), and only when that makes the task understood."""

from __future__ import annotations

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.scenarios import spelling
from jupyter_compaction.scenarios.grammar import FILLER
from tests.test_readme import readme

VOCABULARY = spelling.Vocabulary([r"tables?", r"version", r"defin(?:es?|ed|ing)",
                                  r"do(?:es)?n'?t|didn't", r"(?<=\w\s)(?<!\bplease\s)build",
                                  r"built", r"late"], FILLER)


@pytest.mark.parametrize(("typed", "meant"), [
    ("tabel", "table"),  # the last two letters swapped
    ("tabels", "tables"),
    ("verison", "version"),  # two neighbours swapped
    ("vesion", "version"),  # a letter left out
    ("versiion", "version"),  # one too many
    ("defimes", "defines"),  # one changed, in an inflected form
    ("didnt", "didn't"),  # an apostrophe left out
    ("Verison", "version"),
    ("tables-version", "tables version"),  # a compound of known words
])
def test_a_slip_is_read_as_the_word_meant(typed, meant):
    assert spelling.meant(typed, VOCABULARY) == meant


@pytest.mark.parametrize("typed", [
    "later",  # the end is as typed: "later" is not "late"
    "bersion",  # so is the first letter
    "tabl",  # under five letters
    "table",  # a known word is no slip
    "build",  # known after another word, as its phrase requires
    "buildd",  # "builtd" is no inflection of "built"
    "lodash",  # no known word a slip away
    "ORD-1O42", "agents/routr.py", "v3rsion",  # ids, paths, digits: never corrected
    "graphviz-wasm", "table-wasm",  # a compound with an unknown part stays whole
])
def test_what_is_never_corrected(typed):
    assert spelling.meant(typed, VOCABULARY) is None


def test_a_word_a_slip_away_from_two_known_words_is_not_guessed():
    vocabulary = spelling.Vocabulary([r"lines", r"liner"], frozenset())
    assert spelling.meant("linrs", vocabulary) is None  # "lines" or "liners"?
    assert spelling.meant("lnier", vocabulary) == "liner"


def test_slips_keep_the_first_letter_and_the_end():
    found = spelling.slips("liner")
    assert {"lner", "lier", "linr", "lienr", "linre", "lioer", "linner", "lin'er"} - found == set()
    assert {"iner", "line", "lines", "liners", "ilner", "miner"} & found == set()


@pytest.mark.parametrize(("name", "task", "question", "read_as"), [
    ("agents", "besides agents/router.py which other files under agents/ have a tool "
               "dispatch tabel", "table-files", '"tabel" as "table"'),
    ("logistics", "why didnt the parcel for ORD-1042 get delivered", "failure",
     '''"didnt" as "didn't"'''),
    ("debug", "what verison of inventory-service is live in prod", "release",
     '"verison" as "version"'),
    ("audit", "could you count the pinned dependancies in services/web/package.json",
     "manifest-size", '"dependancies" as "dependencies"'),
])
def test_a_misspelt_task_is_understood_and_says_how_it_was_read(name, task, question, read_as):
    scenario = scenarios.load(name)
    assert scenario.understand(task)[0].name == question
    assert scenario.canonical(task).endswith(f"(read {read_as})")


@pytest.mark.parametrize(("name", "task", "named"), [
    # a slip away from a known word, but the task asks what no question declares
    ("agents", "who wrote the dispatch tabel in agents/router.py?", "wrote"),
    # two slips in one word are not one slip
    ("debug", "what vreison of inventory-service is live?", "vreison"),
])
def test_a_correction_that_leaves_the_task_refused_is_not_kept(name, task, named):
    scenario = scenarios.load(name)
    assert scenario.understand(task) is None
    assert scenario.respelled(task) == (task, ())
    assert named in scenario.not_understood(task)[0]


def test_a_task_understood_as_typed_is_never_respelled():
    scenario = scenarios.load("agents")
    task = "Which files under agents/ define a retry policy?"
    assert scenario.respelled(task) == (task, ())
    assert "read" not in scenario.canonical(task)


def test_the_readme_shows_a_misspelt_question_as_it_was_read():
    task = "Which files under agents/ define a dispatch tabel?"
    said = " ".join(readme().split())
    assert f'"{task}" is understood as "{scenarios.load("agents").canonical(task)}"' in said
