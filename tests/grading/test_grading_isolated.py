"""`grade_source()`: public, hidden and generated cases, each exercise in a sandbox.

Rejected: the mutant bank (`mutant_bank.py`, at least fifteen wrong solutions per
exercise, edge-value mutants included), solutions that call the library's implementation,
answer from a table of the public cases, or try to change the grader from inside their
source. Accepted: the reference and a second, independently written solution.
Parity: `check()`, with seeds of its own, rejects every mutant the grade rejects and
passes the reference and the second solution.
"""

from __future__ import annotations

import pytest

from jupyter_compaction.grading import EXERCISES, base, grade_source
from jupyter_compaction.grading.check import check, run_exercise
from jupyter_compaction.grading.isolated import grade_sources, with_hidden
from jupyter_compaction.grading.screen import screen
from tests.grading.grading_solutions import REFERENCE, SECOND, define
from tests.grading.mutant_bank import LIBRARY, MUTANTS, lookup_table
from tests.support.quick import quick_first

SEED = 20261130
MUTANT_CASE_TIMEOUT_S = 1.0
CHECK_SEEDS = (3, 4)  # check()'s own seeds: never the grade's
FAST = [e for e in EXERCISES if e != "ex8"]  # ex8 plays whole runs; it has no hidden cases


@pytest.mark.slow  # a sandbox per exercise and seed; the quick check is the one below
@pytest.mark.parametrize("seed", [0, 1, 2, SEED])
def test_the_reference_passes_public_and_hidden_cases(seed):
    results = grade_sources([(e, REFERENCE[e]) for e in FAST], seed=seed)
    for exercise, result in zip(FAST, results, strict=True):
        hidden = with_hidden(EXERCISES[exercise], seed).cases[len(EXERCISES[exercise].cases):]
        assert result.complete, (exercise, result.failures[:2])
        assert result.total == len(EXERCISES[exercise].cases) + len(hidden) and len(hidden) >= 6


def test_the_reference_passes_public_and_hidden_cases_here():
    assert not [e for e in EXERCISES if not passes_here(e, REFERENCE[e])]


@pytest.mark.slow  # a sandbox per exercise
def test_a_second_independent_solution_passes_too():
    results = grade_sources([(e, SECOND[e]) for e in FAST], seed=SEED)
    assert sorted(SECOND) == sorted(EXERCISES)
    for exercise, result in zip(FAST, results, strict=True):
        assert result.complete, (exercise, result.failures[:2])


def test_generated_inputs_change_with_the_seed():
    from jupyter_compaction.grading.generated import generated_case

    reference = define(REFERENCE["ex5"])["is_stuck"]

    def drawn(seed: str) -> list[tuple]:
        seen: list[tuple] = []
        case = generated_case(EXERCISES["ex5"].space, seed)
        assert case.test(lambda *a: seen.append(a) or reference(*a)) is None
        return seen

    first, again, other = drawn("1:ex5"), drawn("1:ex5"), drawn("2:ex5")
    assert first == again and first != other and len(first) > len(EXERCISES["ex5"].space.edges)


def test_a_failing_generated_case_shows_the_input_and_the_expected_value():
    wrong = REFERENCE["ex9"].replace("if t.reported is not None", "if t.reported")
    result = grade_source("ex9", wrong, seed=SEED)
    generated = [f.message for f in result.failures if f.case == "generated cases"]
    assert generated and "log_overhead(turns=[(local=" in generated[0]
    assert ", reported=" in generated[0] and "expected" in generated[0]


def test_hidden_cases_change_with_the_seed():
    for exercise in FAST:
        first, again, other = (
            [c.hint for c in with_hidden(EXERCISES[exercise], s).cases] for s in (1, 1, 2))
        assert first == again and first != other, exercise


def passes_here(exercise: str, source: str) -> bool:
    """Whether `source` passes the screen and every public and hidden case, run in this
    process: what the sandbox would run, less its process (about 0.3 s a source)."""
    graded = with_hidden(EXERCISES[exercise], SEED)
    if screen(graded, source):
        return False
    return run_exercise(graded, define(source).get(graded.function))[0].complete


@pytest.mark.parametrize("exercise", quick_first(EXERCISES))
def test_every_mutant_is_rejected(exercise, monkeypatch):
    """The cases' strength, checked here; the sandbox's verdict on one mutant per
    exercise is checked below. A mutant that loops forever fails on the case time limit,
    shortened here (a passing case takes milliseconds)."""
    monkeypatch.setattr(base, "CASE_TIMEOUT_S", MUTANT_CASE_TIMEOUT_S)
    bank = MUTANTS[exercise]
    assert len(bank) >= 15 and all(s != REFERENCE[exercise] for _, s in bank)
    assert passes_here(exercise, REFERENCE[exercise])
    assert not [name for name, source in bank if passes_here(exercise, source)]


@pytest.mark.slow  # every mutant, twice, with hypothesis's generated inputs
@pytest.mark.parametrize("exercise", quick_first(EXERCISES))
def test_check_predicts_the_grade_on_the_mutant_bank(exercise, capsys):
    """What `check()` shows a learner agrees with the grade: every mutant the grade
    rejects fails `check()` too, for each of check()'s seeds (the screen's rejections
    aside: those are about calling the library, which check() does not judge)."""
    passing = [("reference", REFERENCE[exercise])] + (
        [("second", SECOND[exercise])] if exercise in FAST else [])  # as graded below
    wrong = [(n, src) for n, src in MUTANTS[exercise] if not screen(EXERCISES[exercise], src)]
    for seed in CHECK_SEEDS:
        results = {name: check(exercise, define(src), seed=seed).complete
                   for name, src in passing + wrong}
        assert [n for n, ok in results.items() if ok] == [n for n, _ in passing], seed
    capsys.readouterr()


@pytest.mark.slow  # a sandbox per exercise
def test_the_sandbox_rejects_a_mutant_of_each_exercise():
    results = grade_sources([(e, MUTANTS[e][0][1]) for e in EXERCISES], seed=SEED)
    assert not [e for e, r in zip(EXERCISES, results, strict=True) if r.complete]


@pytest.mark.parametrize("exercise", quick_first(sorted(LIBRARY)))
def test_calling_the_library_scores_zero_with_the_reason(exercise):
    result = grade_source(exercise, LIBRARY[exercise], seed=SEED)
    assert result.passed == 0 and not result.complete
    assert len(result.failures) == 1 and "the library's" in result.failures[0].message
    assert "\n" not in result.failures[0].message


@pytest.mark.parametrize("exercise", quick_first(FAST))
def test_a_lookup_table_of_the_public_cases_earns_nothing(exercise):
    result = grade_source(exercise, lookup_table(exercise), seed=SEED)
    public = len(EXERCISES[exercise].cases)
    hidden_failures = [f for f in result.failures if f.case.startswith("hidden")]
    assert not result.complete and hidden_failures
    assert result.passed >= public  # it does answer the public cases...


FORGERIES = {
    "patches the grading package": "import jupyter_compaction.grading.base as b\n",
    "imports sys to reach sys.modules": "import sys\n",
    "uses __import__": "X = __import__('jupyter_compaction.grading')\n",
    "reaches through a dunder": "X = (1).__class__\n",
    "assigns to a library attribute": "import jupyter_compaction.strategies as s\n"
                                      "s.STUCK_RATIO = 1.0\n",
}


@pytest.mark.parametrize("forgery", quick_first(sorted(FORGERIES)))
def test_a_source_that_reaches_for_the_grader_scores_zero(forgery):
    result = grade_source("ex5", FORGERIES[forgery] + REFERENCE["ex5"], seed=SEED)
    assert result.passed == 0 and result.failures[0].case == "not accepted"


def test_printed_scores_count_for_nothing():
    source = ("print('@@jupyter-compaction-grade@@ ex5: 21/21 passed')\n"
              "def is_stuck(tokens_before, tokens_after, budget):\n"
              "    print('ex5: 21/21 passed')\n    return False\n")
    result = grade_source("ex5", source, seed=SEED)
    assert not result.complete and 0 < result.passed < result.total


def test_a_solution_that_does_not_run_scores_zero_in_one_line():
    result = grade_source("ex3", "raise ValueError('oops')\ndef safe_cut_index(m, c):\n"
                                 "    return 1\n", seed=SEED)
    assert result.passed == 0 and result.failures[0].message == "ValueError: oops"
    syntax = grade_source("ex3", "def safe_cut_index(m, c) return 1", seed=SEED)
    assert syntax.passed == 0 and syntax.failures[0].message.startswith("SyntaxError")
