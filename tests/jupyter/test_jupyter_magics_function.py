"""`%%agent --strategy NAME` and `%compact --strategy NAME` with a function of the
notebook: it plays as the learner's own strategy, its exception shows its traceback (an
unwritten stub one line naming it) and keeps the run's transcript, a wrong shape is one
UsageError line. `%%agent --trigger-rule NAME` does the same for when to compact: the
learner's `needs_compaction` of lesson 1 gives the library's run."""

from __future__ import annotations

import pytest
from IPython.utils.capture import capture_output

from jupyter_compaction.strategies import FunctionStrategy
from tests.support.shell import usage_error

DEFINE = '''
from jupyter_compaction import ClearToolResults

def my_clear(messages, goal, counter):
    return ClearToolResults()(messages, goal=goal, counter=counter).messages

def stub(messages):
    raise NotImplementedError("write your solution here")

def unsolved(messages, goal, counter):
    return stub(messages)

def broken(messages, goal, counter):
    return messages[0]["content"] + 1

def wrong_shape(messages, drop):
    return messages

not_a_function = 3

def needs_compaction(counter, messages, system, tools, budget, trigger=0.8):
    return counter.count(messages, system, tools) > trigger * budget

def early(counter, messages, system, tools, budget, trigger=0.8):
    return counter.count(messages, system, tools) > 0.5 * budget

def unsolved_rule(counter, messages, system, tools, budget, trigger=0.8):
    raise NotImplementedError("write your solution here")
'''
NAMES = ("my_clear", "stub", "unsolved", "broken", "wrong_shape", "not_a_function",
         "ClearToolResults", "needs_compaction", "early", "unsolved_rule")
LINE = "--scenario agents --budget 5000 --no-task-state --quiet --strategy "


@pytest.fixture
def shell_text() -> bool:
    return True  # the result as text rows, as nbval sees it


@pytest.fixture
def shell_names() -> tuple[str, ...]:
    return NAMES


@pytest.fixture
def nb(ip):
    ip.run_cell(DEFINE)
    return ip


def agent(ip, strategy: str):
    with capture_output() as out:
        ip.run_line_magic("agent", LINE + strategy)
    return ip.user_ns["_agent_run"], out.stdout


def test_a_notebook_function_plays_as_the_library_strategy_it_calls(nb):
    library, _ = agent(nb, "clear")
    mine, shown = agent(nb, "my_clear")
    assert isinstance(nb.magics_manager.registry["CompactionMagics"].session.agent.strategy,
                      FunctionStrategy)
    assert {c.kind for c in mine.compactions} == {"my_clear"}
    assert (mine.status, mine.peak_context, mine.tokens_sent, mine.repeats) == (
        library.status, library.peak_context, library.tokens_sent, library.repeats)
    assert "status               finished" in shown and "Traceback" not in shown


def test_a_function_that_raises_shows_its_traceback_and_keeps_the_transcript(nb):
    run, shown = agent(nb, "broken")
    assert run.status == "failed" and len(run.transcript) > 2
    assert "Run failed at turn 6: your function broken() raised TypeError: " in shown
    head, traceback = shown.split("broken() stopped the run; its traceback", 1)
    assert "_agent_run.transcript" in traceback
    assert 'return messages[0]["content"] + 1' in traceback
    assert "compactor.py" not in traceback  # the function's own frames only
    assert traceback.rstrip().splitlines()[-1].startswith("TypeError")
    assert nb.user_ns["_agent_run"] is run


def test_an_unwritten_stub_is_one_line_naming_it_and_keeps_the_transcript(nb):
    run, shown = agent(nb, "unsolved")
    assert run.status == "failed" and len(run.transcript) > 2
    assert ("Run failed at turn 6: your function unsolved() raised NotImplementedError: "
            "write your solution here") in shown
    assert ("stub() is not written yet (NotImplementedError: write your solution here): "
            "write it, run its cell, then run this one again (the traceback is in "
            "_agent_run.error)") in shown
    assert "Traceback" not in shown
    assert 'raise NotImplementedError("write your solution here")' in run.error


def test_compact_now_with_a_function_that_raises_shows_its_traceback(nb):
    agent(nb, "trim")
    with capture_output() as out:
        nb.run_line_magic("compact", "--strategy broken")
    run = nb.user_ns["_agent_run"]
    assert out.stdout.startswith("Compaction failed, so the run ended: your function "
                                 "broken() raised TypeError")
    assert "in broken" in out.stdout and run.transcript


def test_compact_now_with_a_notebook_function(nb):
    nb.run_line_magic("agent", LINE.replace("5000", "20000") + "off")
    with capture_output() as out:
        nb.run_line_magic("compact", "--strategy my_clear")
    assert out.stdout.startswith("Compacted _agent_run at turn") and "with my_clear" in out.stdout


@pytest.mark.parametrize("name, says", [
    ("wrong_shape", "--strategy wrong_shape: wrong_shape(messages, drop) does not have a "
                    "strategy's shape: it must take (messages, goal, counter) -> messages"),
    ("not_a_function", "--strategy not_a_function: not_a_function is not a function"),
    ("missing_name", "unknown strategy 'missing_name': --strategy must be one of off, clear"),
])
def test_a_name_that_is_no_strategy_function_is_one_usage_error(nb, name, says):
    assert usage_error(nb.run_line_magic, "agent", LINE + name).startswith(says)
    agent(nb, "clear")
    assert usage_error(nb.run_line_magic, "compact", f"--strategy {name}").startswith(says)


def test_a_built_in_name_comes_before_a_notebook_variable(nb):
    nb.user_ns["trim"] = 3  # not a function, yet `trim` is the built-in strategy
    try:
        run, _ = agent(nb, "trim")
    finally:
        nb.user_ns.pop("trim")
    assert run.compactions and {c.kind for c in run.compactions} == {"trim"}


RULE_LINE = "--scenario agents --budget 6000 --strategy trim --quiet"


def rule_agent(ip, extra: str = ""):
    with capture_output() as out:
        ip.run_line_magic("agent", f"{RULE_LINE} {extra}".strip())
    return ip.user_ns["_agent_run"], out.stdout


def rule_numbers(run) -> tuple:
    return run.status, run.turn, run.peak_context, run.tokens_sent, len(run.compactions)


def test_the_loops_own_test_as_a_trigger_rule_gives_the_librarys_run(nb):
    library, _ = rule_agent(nb)
    mine, shown = rule_agent(nb, "--trigger-rule needs_compaction")
    assert rule_numbers(mine) == rule_numbers(library) and library.compactions
    assert "Traceback" not in shown


def test_a_rule_that_fires_sooner_compacts_more_often_and_peaks_lower(nb):
    library, _ = rule_agent(nb)
    early, _ = rule_agent(nb, "--trigger-rule early")
    assert len(early.compactions) > len(library.compactions)
    assert early.peak_context < library.peak_context


def test_an_unwritten_trigger_rule_is_one_line_naming_it_and_keeps_the_transcript(nb):
    run, shown = rule_agent(nb, "--trigger-rule unsolved_rule")
    assert run.status == "failed" and run.transcript
    assert run.error_line.startswith("your function unsolved_rule() raised NotImplementedError")
    assert ("unsolved_rule() is not written yet (NotImplementedError: write your solution here)"
            in shown)
    assert "Traceback" not in shown


def test_a_trigger_rule_of_another_shape_is_one_usage_error(nb):
    message = usage_error(nb.run_line_magic, "agent", f"{RULE_LINE} --trigger-rule wrong_shape")
    assert message.startswith("--trigger-rule wrong_shape: wrong_shape(messages, drop) does "
                              "not take a trigger rule's arguments")
