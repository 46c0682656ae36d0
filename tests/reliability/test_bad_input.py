"""Bad input to the magics and the lab's widgets, through a real `InteractiveShell`.

Every out-of-range or wrong-typed value is either refused with exactly
`IPython.core.error.UsageError` (which IPython prints as one line, no traceback) or
clamped with a message saying so; it never raises anything else, never leaves a run
behind, and never shows a traceback.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

pytest.importorskip("IPython")

from IPython.core.error import UsageError  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402
from IPython.utils.capture import capture_output  # noqa: E402

from jupyter_compaction.agent import Agent  # noqa: E402
from jupyter_compaction.models.simulated import SimulatedModel  # noqa: E402
from jupyter_compaction.settings import MAX_BUDGET  # noqa: E402
from tests.support import shell  # noqa: E402

TASK = "Find the tool dispatch tables under agents/."
HUGE = "1" + "0" * 400
ip, shell_text = shell.ip, shell.shell_text  # the shared fixtures


@pytest.fixture
def shell_names() -> tuple[str, ...]:
    return ("bad_run",)


def run_cell(ip: InteractiveShell, source: str) -> tuple[BaseException | None, str, str]:
    with capture_output() as out:
        result = ip.run_cell(source)
    return result.error_before_exec or result.error_in_exec, out.stdout, out.stderr


def refused(ip: InteractiveShell, source: str) -> str:
    """Run `source`; it must fail with exactly UsageError, shown as one line."""
    error, stdout, stderr = run_cell(ip, source)
    assert type(error) is UsageError, (source, type(error), error)
    message = str(error)
    assert message and "\n" not in message and len(message) < 300
    assert stderr.strip() == f"UsageError: {message}"
    assert "Traceback" not in stdout + stderr
    assert "_agent_run" not in ip.user_ns
    return message


BAD_AGENT_OPTIONS = {
    "--budget -1": "--budget must be a positive whole number",
    "--budget 0": "--budget must be a positive whole number",
    "--budget abc": "--budget must be a positive whole number",
    "--budget 1.5": "--budget must be a positive whole number",
    "--budget 1e9": "--budget must be a positive whole number",
    "--budget ''": "--budget must be a positive whole number",
    "--budget 0x100": "--budget must be a positive whole number",
    "--budget -0": "--budget must be a positive whole number",
    f"--budget {HUGE}": "at most 1_000_000_000 tokens",
    f"--budget {MAX_BUDGET + 1}": "at most 1_000_000_000 tokens",
    "--budget": "expected one argument",
    "--strategy nope": "unknown strategy 'nope'",
    "--strategy ''": "unknown strategy",
    "--strategy PROGRESSIVE": "unknown strategy",
    "--model gpt-4o": "unknown model 'gpt-4o'",
    "--model claude-haiku-4-5": "Set ANTHROPIC_API_KEY",
    "--model ''": "unknown model",
    "--scenario nope": "unknown scenario 'nope'",
    "--scenario '<script>alert(1)</script>'": "unknown scenario",
    "--scenario ../../etc/passwd": "unknown scenario",
    "--max-turns 0": "--max-turns must be a positive whole number",
    "--max-turns -3": "--max-turns must be a positive whole number",
    "--max-turns abc": "--max-turns must be a positive whole number",
    "--max-turns 2.5": "--max-turns must be a positive whole number",
    "--summary-role system": "--summary-role must be one of",
    "--summarizer cheap": "--summarizer must be one of",
    "--out 1run": "--out needs a Python variable name",
    "--out import": "--out needs a Python variable name",
    "--bogus 3": "unrecognized arguments",
    "--budget '8000": "cannot read the options",
}


@pytest.mark.parametrize("options", list(BAD_AGENT_OPTIONS))
def test_bad_agent_options_are_one_usage_error(ip: InteractiveShell, options: str) -> None:
    message = refused(ip, f"%%agent --scenario agents {options}\n{TASK}")
    assert BAD_AGENT_OPTIONS[options] in message, message


BAD_CONTEXT_BUDGETS = ['"abc"', "-1", "0", "2.5", "True", "None", "[8000]", "'8000'",
                       "10**400", f"{MAX_BUDGET + 1}", "float('nan')", "float('inf')"]


@pytest.mark.parametrize("value", BAD_CONTEXT_BUDGETS)
def test_a_bad_context_budget_is_one_usage_error(ip: InteractiveShell, value: str) -> None:
    error, _, _ = run_cell(ip, f"CONTEXT_BUDGET = {value}")
    assert error is None
    message = refused(ip, f"%%agent --scenario agents --max-turns 2\n{TASK}")
    assert "CONTEXT_BUDGET" in message or "at most" in message, message


def test_a_huge_but_valid_budget_runs(ip: InteractiveShell) -> None:
    error, stdout, _ = run_cell(ip, f"%%agent --scenario agents --budget {MAX_BUDGET} "
                                    f"--max-turns 3 --quiet\n{TASK}")
    assert error is None and ip.user_ns["_agent_run"].status == "max_turns"
    assert "Traceback" not in stdout


def test_a_budget_too_small_for_the_tools_ends_the_run_not_the_cell(ip: InteractiveShell):
    error, stdout, stderr = run_cell(ip, f"%%agent --scenario agents --budget 1\n{TASK}")
    assert error is None and "Traceback" not in stdout + stderr
    run = ip.user_ns["_agent_run"]
    assert run.status == "failed" and "raise the budget" in run.error
    assert "Run failed at turn 1" in stdout


BAD_BUDGET_MAGIC = ["-1", "0", "abc", "1.5", "1 2", "''", "--tokens 5", "1e3", "-0"]

@pytest.mark.parametrize("value", [*BAD_BUDGET_MAGIC,
                                   pytest.param(HUGE, id="huge")])
def test_bad_compaction_budget_is_one_usage_error(ip: InteractiveShell, value: str) -> None:
    error, _, _ = run_cell(ip, f"%compaction_budget {value}")
    if isinstance(error, OverflowError):
        raise error
    assert type(error) is UsageError, error
    assert "\n" not in str(error)
    assert "CONTEXT_BUDGET" not in ip.user_ns


def test_a_budget_over_the_maximum_is_refused_by_the_next_run(ip: InteractiveShell) -> None:
    assert "at most" in refused(ip, f"%compaction_budget {MAX_BUDGET + 1}")
    assert "CONTEXT_BUDGET" not in ip.user_ns
    ip.user_ns["CONTEXT_BUDGET"] = MAX_BUDGET + 1
    assert "at most" in refused(ip, f"%%agent --scenario agents\n{TASK}")


def test_showing_a_huge_context_budget(ip: InteractiveShell) -> None:
    run_cell(ip, "CONTEXT_BUDGET = 10**400")
    error, _, _ = run_cell(ip, "%compaction_budget")
    if isinstance(error, OverflowError):
        raise error
    assert type(error) is UsageError


def test_bad_run_names_for_context_and_summary(ip: InteractiveShell) -> None:
    ip.user_ns["bad_run"] = {"messages": []}
    for source in ("%context 123", "%context nope", "%context bad_run", "%context --full x y",
                   "%summary CONTEXT_BUDGET", "%summary import", "%summary bad_run",
                   "%context --bogus", "%compaction_lab --x"):
        refused(ip, source)


def test_the_agent_itself_refuses_bad_budgets_with_one_line() -> None:
    for budget in (0, -1, 2.5, "8000", True, None, 10**400, MAX_BUDGET + 1):
        with pytest.raises(ValueError) as info:
            Agent(SimulatedModel("agents"), budget=budget)
        assert "\n" not in str(info.value) and len(str(info.value)) < 120


# -- the lab's widgets ------------------------------------------------------------------------

SLIDER_VALUES: list[Any] = [-5, 0, -10**400, 10**400, MAX_BUDGET, 999, 200_001, "-5",
                            " 20_000 ", "abc", "", None, 2.5, math.nan, math.inf, True, [1],
                            {"v": 1}, b"8000", "8000.0", "1e4"]


@pytest.fixture
def lab():
    pytest.importorskip("ipywidgets")
    from jupyter_compaction.jupyter.lab import Lab

    return Lab(budget=8_000)


@pytest.mark.parametrize("value", SLIDER_VALUES, ids=repr)
def test_the_budget_slider_clamps_or_refuses_with_a_message(lab: Any, value: Any) -> None:
    from jupyter_compaction.jupyter.lab import MIN_BUDGET as BOTTOM

    TOP = lab.budget.max  # noqa: N806 (the slider's end fits the scenario)

    lab.message.value = ""
    lab.budget.value = value  # never raises
    got = lab.budget.value
    assert type(got) is int and BOTTOM <= got <= TOP
    assert lab.settings().budget == got
    message = lab.message.value
    integral = isinstance(value, int) and not isinstance(value, bool)
    numeric_text = isinstance(value, str) and value.strip().lstrip("+-").replace(
        "_", "").isdigit()
    if integral or numeric_text:
        number = int(value.strip() if isinstance(value, str) else value)
        assert got == min(max(number, BOTTOM), TOP)
        if not BOTTOM <= number <= TOP:
            assert "clamped to" in message, message
    else:
        assert got == 8_000 and "not changed" in message, message
    assert "Traceback" not in message and "<script" not in message


def test_a_hostile_slider_value_is_shown_escaped(lab: Any) -> None:
    lab.budget.value = "<img src=x onerror=alert(1)>"
    assert "&lt;img src=x onerror=alert(1)&gt;" in lab.message.value
    assert "<img" not in lab.message.value


def test_the_lab_survives_a_run_after_bad_values(lab: Any) -> None:
    for value in (-1, "abc", 10**400, None):
        lab.budget.value = value
    lab.budget.value = 6_000
    run = lab.run()
    assert run.status in ("finished", "max_turns")
    assert lab.budget.value == 6_000
    assert {e.budget for e in run.events if e.kind == "turn_started"} == {6_000}


def test_lab_compare_with_unknown_strategies_says_so(lab: Any) -> None:
    with pytest.raises(ValueError):
        lab.compare("nope", "<script>")
    assert "unknown strategy" in lab.message.value
    lab.compare_button.click()  # the button path: the message, never a raise
    assert "compared" in lab.message.value or "Error" in lab.message.value
