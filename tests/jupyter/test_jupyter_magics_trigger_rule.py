"""`%%agent --trigger-rule NAME` with a function of the notebook: it decides when the run
compacts (the learner's `needs_compaction` of lesson 1 gives the library's run), an
unwritten stub is one line naming it with the transcript kept, and a wrong shape is one
UsageError line."""

from __future__ import annotations

import pytest
from IPython.utils.capture import capture_output

from tests.support.shell import usage_error

DEFINE = '''
def needs_compaction(counter, messages, system, tools, budget, trigger=0.8):
    return counter.count(messages, system, tools) > trigger * budget

def early(counter, messages, system, tools, budget, trigger=0.8):
    return counter.count(messages, system, tools) > 0.5 * budget

def unsolved(counter, messages, system, tools, budget, trigger=0.8):
    raise NotImplementedError("write your solution here")

def wrong_shape(messages, budget):
    return True
'''
NAMES = ("needs_compaction", "early", "unsolved", "wrong_shape")
LINE = "--scenario agents --budget 6000 --strategy trim --quiet"


@pytest.fixture
def shell_text() -> bool:
    return True


@pytest.fixture
def shell_names() -> tuple[str, ...]:
    return NAMES


@pytest.fixture
def nb(ip):
    ip.run_cell(DEFINE)
    return ip


def agent(ip, extra: str = ""):
    with capture_output() as out:
        ip.run_line_magic("agent", f"{LINE} {extra}".strip())
    return ip.user_ns["_agent_run"], out.stdout


def numbers(run) -> tuple:
    return run.status, run.turn, run.peak_context, run.tokens_sent, len(run.compactions)


def test_the_loops_own_test_written_as_a_function_gives_the_librarys_run(nb):
    library, _ = agent(nb)
    mine, shown = agent(nb, "--trigger-rule needs_compaction")
    assert numbers(mine) == numbers(library) and library.compactions
    assert "Traceback" not in shown


def test_a_rule_that_fires_sooner_compacts_more_often_and_peaks_lower(nb):
    library, _ = agent(nb)
    early, _ = agent(nb, "--trigger-rule early")
    assert len(early.compactions) > len(library.compactions)
    assert early.peak_context < library.peak_context


def test_an_unwritten_stub_is_one_line_naming_it_and_keeps_the_transcript(nb):
    run, shown = agent(nb, "--trigger-rule unsolved")
    assert run.status == "failed" and run.transcript
    assert run.error_line.startswith("your function unsolved() raised NotImplementedError")
    assert ("unsolved() is not written yet (NotImplementedError: write your solution here)"
            in shown)
    assert "Traceback" not in shown


def test_a_function_of_another_shape_is_one_usage_error(nb):
    message = usage_error(nb.run_line_magic, "agent", f"{LINE} --trigger-rule wrong_shape")
    assert message.startswith("--trigger-rule wrong_shape: wrong_shape(messages, budget) does "
                              "not take a trigger rule's arguments")
