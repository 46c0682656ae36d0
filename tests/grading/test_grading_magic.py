"""`%check` on a real IPython shell, and check() finding the learner's function there."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from jupyter_compaction.grading import EXERCISES, check
from jupyter_compaction.grading.generated import with_hidden
from tests.grading.grading_solutions import REFERENCE, stub
from tests.support import shell

ip, shell_text = shell.ip, shell.shell_text  # the shared fixtures; the extension registers %check


@pytest.fixture
def shell_names() -> tuple[str, ...]:
    """The learner's functions these tests define in a cell."""
    return ("safe_cut_index", "is_stuck")


def test_check_magic_scores_a_function_defined_in_a_cell(ip, capsys):
    ip.run_cell(REFERENCE["ex3"])
    result = ip.run_line_magic("check", "ex3")
    out = capsys.readouterr().out
    total = len(with_hidden(EXERCISES["ex3"], 0).cases)  # public, then practice cases
    assert result.passed == result.total == total > len(EXERCISES["ex3"].cases)
    assert "PASS  cut <= 0" in out and f"score: {total}/{total}" in out


def test_check_magic_on_a_stub_is_a_zero_not_a_traceback(ip, capsys):
    ip.run_cell(stub("ex3"))
    result = ip.run_line_magic("check", "ex3")
    out = capsys.readouterr().out
    assert result.passed == 0
    assert "NotImplementedError: write your solution here" in out
    assert "Traceback" not in out


@pytest.mark.parametrize("line", ["ex99", "", "ex3 ex5"])
def test_check_magic_rejects_unknown_ids_with_a_usage_error(ip, line):
    with pytest.raises(UsageError) as info:
        ip.run_line_magic("check", line)
    assert type(info.value) is UsageError
    assert "one of: ex1, ex2, ex3" in str(info.value) and "\n" not in str(info.value)


def test_check_called_from_a_cell_finds_the_user_namespace(ip, capsys):
    ip.run_cell(REFERENCE["ex5"])
    ip.run_cell("from jupyter_compaction.grading import check\n_r = check('ex5')")
    assert ip.user_ns["_r"].complete
    ip.user_ns.pop("_r")


def test_check_outside_a_cell_falls_back_to_the_ipython_namespace(ip, capsys):
    ip.run_cell(REFERENCE["ex5"])
    assert check("ex5").complete  # not defined here: found in the shell's user namespace


def test_check_magic_scores_a_quiz_recorded_in_a_cell(ip, capsys):
    ip.run_cell("QUIZ2 = {'q2.1': 'most of them'}")
    result = ip.run_line_magic("check", "quiz2")
    ip.user_ns.pop("QUIZ2")
    assert (result.exercise, result.passed) == ("quiz2", 0)
    assert "q2.1 takes a number as the lesson printed it" in capsys.readouterr().out
    with pytest.raises(UsageError, match=r"^unknown quiz 'quiz99'; the quizzes are: quiz1, "):
        ip.run_line_magic("check", "quiz99")
