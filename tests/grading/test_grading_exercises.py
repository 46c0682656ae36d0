"""Every exercise: the reference passes, plausible mistakes fail with their hint shown,
stubs and missing functions score 0 without a traceback."""

from __future__ import annotations

import dataclasses
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_compaction.grading import EXERCISES, CheckResult, check, checks_for
from jupyter_compaction.grading import base as grading_base
from jupyter_compaction.grading.check import run_exercise
from jupyter_compaction.grading.ex_capstone import MAX_SHARE
from jupyter_compaction.grading.generated import with_hidden
from jupyter_compaction.history import cut_points
from jupyter_compaction.strategies import ClearToolResults, SummarizeMiddle
from jupyter_compaction.summaries import build_prompt
from jupyter_compaction.tokens import TokenCounter
from tests.grading.grading_solutions import REFERENCE, WRONG, define, stub
from tests.support.histories import histories
from tests.support.quick import quick_first

COUNTER = TokenCounter()


def solution(exercise: str, source: str | None = None):
    return define(source or REFERENCE[exercise])[EXERCISES[exercise].function]


def test_every_exercise_has_a_reference_and_two_wrong_solutions():
    assert set(REFERENCE) == set(EXERCISES) == {
        "ex1", "ex2", "ex3", "ex3b", "ex4", "ex4b", "ex4c", "ex5", "ex5b", "ex5c", "ex5d",
        "ex6", "ex6b", "ex6c", "ex7", "ex8", "ex9"}
    for exercise in EXERCISES:
        assert sum(e == exercise for e, _, _ in WRONG) >= 2, exercise


def checked(exercise: str) -> int:
    """How many cases check() runs: the public ones, then those drawn from its own seed."""
    return len(with_hidden(EXERCISES[exercise], 0).cases)


@pytest.mark.parametrize("exercise", quick_first(REFERENCE, keep=2))
def test_reference_solution_passes_every_case(exercise, capsys):
    namespace = define(REFERENCE[exercise])
    result = check(exercise, namespace)
    out = capsys.readouterr().out
    assert result.passed == result.total == checked(exercise) >= 5, out
    assert result.complete and not result.failures
    assert "FAIL" not in out and out.count("PASS") == result.total
    assert repr(result) == f"{exercise}: {result.total}/{result.total} passed"


USER_START = ("a tail must start at an assistant message: one that starts at a user message"
              " orphans its tool results")
ADVICE = {("ex4", "the tail starts at an assistant message"): USER_START,
          ("ex4", "a final text-only answer"): USER_START}


@pytest.mark.parametrize(("exercise", "source", "case"), WRONG,
                         ids=[f"{e}-{c}" for e, _, c in WRONG])
def test_wrong_solution_fails_the_case_meant_for_it_and_shows_its_hint(
        exercise, source, case, capsys):
    result = check(exercise, define(source))
    out = capsys.readouterr().out
    failed = {f.case: f.message for f in result.failures}
    assert case in failed, (case, out)
    assert result.passed < result.total
    hint = next(c.hint for c in EXERCISES[exercise].cases if c.name == case)
    advice = ADVICE.get((exercise, case))  # a mistake whose own advice leads instead
    assert f"FAIL  {case}\n        hint: {advice or hint} [" in out
    assert "Traceback" not in out
    assert case in repr(result)


@pytest.mark.parametrize("exercise", quick_first(EXERCISES, keep=2))
def test_a_released_stub_scores_zero_without_a_traceback(exercise, capsys):
    result = check(exercise, define(stub(exercise)))
    out = capsys.readouterr().out
    assert result.passed == 0 and result.total == checked(exercise)
    assert "Traceback" not in out
    assert out.count("NotImplementedError: write your solution here") == result.total
    assert all("\n" not in f.message for f in result.failures)


def test_a_missing_function_is_one_clear_line_and_a_zero(capsys):
    result = check("ex2", {})
    out = capsys.readouterr().out
    assert "define clear_old_results(...) in a cell above, then run check('ex2')" in out
    assert (result.passed, result.total) == (0, checked("ex2"))
    assert result.failures[0].case == "function missing"
    assert "FAIL" not in out and "Traceback" not in out


def test_a_name_that_is_not_a_function_says_so(capsys):
    result = check("ex5", {"is_stuck": 42})
    assert result.passed == 0
    assert "is_stuck is a int, not a function" in capsys.readouterr().out


def test_unknown_exercise_lists_the_ids():
    ids = "ex1, ex2, ex3, ex3b, ex4, ex4b, ex4c, ex5, ex5b, ex5c, ex5d, ex6, ex6c, ex6b, ex7, ex8"
    with pytest.raises(ValueError, match=ids):
        check("ex99")


def test_check_finds_the_function_in_main_without_a_namespace(monkeypatch, capsys):
    def is_stuck(tokens_before, tokens_after, budget):
        return tokens_after > budget and tokens_before - tokens_after < 0.1 * tokens_before

    monkeypatch.setattr(sys.modules["__main__"], "is_stuck", is_stuck, raising=False)
    assert check("ex5").complete
    assert f"score: {checked('ex5')}/{checked('ex5')}" in capsys.readouterr().out


def test_a_function_that_loops_forever_fails_after_the_time_limit(monkeypatch, capsys):
    monkeypatch.setattr(grading_base, "CASE_TIMEOUT_S", 0.2)

    def fact_recall(summary, must_keep):
        while True:
            pass

    result = check("ex7", {"fact_recall": fact_recall})
    out = capsys.readouterr().out
    assert result.passed == 0
    assert "took longer than 0.2 s" in result.failures[0].message
    assert "not run (an earlier case timed out)" in result.failures[1].message
    assert "Traceback" not in out


def test_checks_for_scores_the_named_exercises_from_a_namespace():
    namespace = {**define(REFERENCE["ex3"]), **define(stub("ex5"))}
    results = checks_for(namespace, ["ex3", "ex5", "ex6"])
    assert [(r.exercise, r.passed) for r in results] == [("ex3", 8), ("ex5", 0), ("ex6", 0)]
    assert results[2].failures[0].case == "function missing"
    assert [r.exercise for r in checks_for(namespace)] == list(EXERCISES)
    assert CheckResult.from_json(results[1].to_json()) == results[1]


def test_the_library_itself_passes_the_prompt_exercise():
    result, problems = run_exercise(EXERCISES["ex4b"], build_prompt)
    assert result.complete, problems


def test_ex8_target_is_met_by_the_documented_settings_and_missed_by_off():
    from jupyter_compaction.grading.ex_capstone import outcome

    best = outcome("trim", 6000, True)
    off = outcome("off", 6000, True)
    assert best.correct and best.repeats == 0 and best.peak <= 6000
    assert best.sent <= MAX_SHARE * off.sent
    compact = outcome("compact", 5000, True)
    assert compact.sent <= MAX_SHARE * outcome("off", 5000, True).sent


def test_ex8_tells_a_truncated_finding_from_a_forgotten_one(monkeypatch):
    from jupyter_compaction.grading import ex_capstone

    low = ex_capstone.outcome("off", 4500, True)  # the audit file is cut at this budget
    assert not low.correct and low.unseen and low.cut
    message = ex_capstone.correct(lambda: {"strategy": "off", "budget": 4500,
                                           "task_state": True})
    assert "Truncated, not forgotten" in message and "raise the budget" in message
    assert all(word in message for word in low.unseen)
    forgot = dataclasses.replace(low, unseen=())  # every missing word was shown once
    monkeypatch.setattr(ex_capstone, "outcome", lambda *settings: forgot)
    message = ex_capstone.correct(lambda: {"strategy": "trim", "budget": 4500,
                                           "task_state": False})
    assert "Forgotten, not truncated" in message and "task_state=True" in message


def test_ex8_hint_gives_the_numbers(capsys):
    source = REFERENCE["ex8"].replace('"trim"', '"summarize"')  # right, but 56-60 % of off
    result = check("ex8", define(source))
    message = dict(result.failures)["sends at most 50% of the tokens of 'off'"]
    assert "that strategy='off' sends at budget 6000; the target is <= 50%" in message


# The references are checked against the library on random histories too, so that the
# cases' expected values (computed by the library) and the lessons' solutions agree.

@settings(max_examples=60, deadline=None)
@given(histories(), st.integers(-3, 30))
def test_reference_cut_agrees_with_cut_points(messages, cut):
    safe = solution("ex3")(messages, cut)
    assert safe == next((c for c in cut_points(messages) if c >= max(cut, 1)), len(messages))


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(histories(), st.integers(0, 6))
def test_reference_clear_agrees_with_clear_tool_results(messages, keep_last):
    library = ClearToolResults(keep_last=keep_last, clear_at_least=-(10**9))
    expected = library(messages, goal=1, counter=COUNTER).messages
    assert solution("ex2")(messages, keep_last=keep_last) == expected


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(histories(), st.integers(0, 5000))
def test_reference_tail_agrees_with_summarize_middle(messages, tail_tokens):
    layer = SummarizeMiddle(protect_first=1, tail_tokens=tail_tokens)
    expected = layer.boundaries(messages, 2 * tail_tokens, COUNTER)[1]
    assert solution("ex4")(messages, COUNTER, tail_tokens) == expected


def test_ex8_a_run_without_an_answer_meets_no_run_target_and_says_why():
    from jupyter_compaction.grading import ex_capstone

    chosen = {"strategy": "clear", "budget": 4000, "task_state": False}
    run = ex_capstone.outcome(*chosen.values())
    assert run.answer is None and run.status == "failed"  # stuck: clearing frees too little
    for target in (ex_capstone.correct, ex_capstone.no_repeats, ex_capstone.within_budget,
                   ex_capstone.cheap):
        message = str(target(lambda: chosen))
        assert message.startswith(f"the run ended with status 'failed' and no answer: "
                                  f"{run.reason}; a run that does not finish meets no target")
    assert run.reason == ex_capstone.outcome(*chosen.values()).reason
    assert "is stuck" in run.reason and "left for messages" in run.reason
    result = check("ex8", define(f"def choose_settings():\n    return {chosen!r}\n"))
    assert result.passed == 2  # the two settings targets only: well formed, small budget


# Feedback names each value as the exercise's text does (issue 39).

def test_a_failure_names_each_argument_and_tuple_field():
    from jupyter_compaction.grading.base import attempt
    from jupyter_compaction.grading.ex_replay import from_pairs
    from jupyter_compaction.grading.ex_stuck import same_as_library

    problem = from_pairs([(500, 400), (10, 900)])(lambda turns: 890)
    assert problem == ("log_overhead(turns=[(local=500, reported=400), (local=10, reported=900)])"
                       " returned 890, expected 0")
    problem = same_as_library(10_000, 9_500, 4_000)(lambda *args: False)
    assert problem == ("is_stuck(tokens_before=10000, tokens_after=9500, budget=4000) returned"
                       " False, expected True")
    cut = EXERCISES["ex3"].cases[1]
    message, _ = attempt(cut, lambda messages, cut: 0)
    assert "safe_cut_index(messages=[9 messages], cut=4) returned 0" in message


def test_a_changed_input_leads_the_message_whatever_the_case():
    from jupyter_compaction.grading.base import attempt

    def drop_oldest_turns(messages, drop):
        del messages[1:3]  # right answer for drop=1, reached by changing the input
        return messages

    for case in EXERCISES["ex3b"].cases[:2]:
        message, _ = attempt(case, drop_oldest_turns)
        assert message.startswith("do not change the list you are given")
        assert case.hint not in message


def test_ex4_blames_a_user_message_start_only_when_the_tail_starts_there():
    from jupyter_compaction.grading.base import attempt

    case = next(c for c in EXERCISES["ex4"].cases
                if c.name == "the tail starts at an assistant message")
    one_late = define(REFERENCE["ex4"])["tail_start"]

    def at_a_user_message(messages, counter, tail_tokens):
        return one_late(messages, counter, tail_tokens) - 1  # the results before the turn

    def counts_one_turn_short(messages, counter, tail_tokens):
        start = one_late(messages, counter, tail_tokens)
        later = [i for i in range(start + 1, len(messages)) if messages[i]["role"] == "assistant"]
        return later[0] if later else start  # a counting bug: still an assistant message

    user_start, _ = attempt(case, at_a_user_message)
    assert user_start.startswith("a tail must start at an assistant message")
    short_count, _ = attempt(case, counts_one_turn_short)
    assert short_count.startswith(case.hint) and "orphan" not in short_count
