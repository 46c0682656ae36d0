"""The magics, driven through a real IPython shell: runs, inspection, every bad input."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest
from IPython.utils.capture import capture_output

from jupyter_compaction import load_ipython_extension as root_load
from jupyter_compaction import runner
from jupyter_compaction.events import Compacted, ToolReturned, TurnStarted
from jupyter_compaction.history import blocks
from jupyter_compaction.jupyter import (
    MAGICS_CLASS,
    context_view,
    load_ipython_extension,
    unload_ipython_extension,
)
from jupyter_compaction.jupyter import magics as magics_module
from jupyter_compaction.jupyter.magics import (
    EMPTY_TASK,
    NO_QUESTION,
    NO_RUN,
    SUMMARY_LINES,
    CompactionMagics,
)
from jupyter_compaction.jupyter.validate import BUDGET_HINT
from jupyter_compaction.strategies import STRATEGIES
from tests.support.reporting import Reporting, scaled
from tests.support.scripted import Relay, fail_at
from tests.support.shell import usage_error

MAGIC_NAMES = {"line": {"agent", "context", "summary", "compact", "compaction_budget",
                        "compaction_lab"},
               "cell": {"agent"}}


def ours(ip, kind: str) -> set[str]:
    instance = ip.magics_manager.registry.get(MAGICS_CLASS)
    return {name for name, fn in ip.magics_manager.magics[kind].items()
            if getattr(fn, "__self__", None) is instance}


# --- loading ------------------------------------------------------------------------------

def test_loading_twice_registers_once(ip):
    first = ip.magics_manager.registry[MAGICS_CLASS]
    load_ipython_extension(ip)
    root_load(ip)
    ip.run_line_magic("load_ext", "jupyter_compaction")
    ip.run_line_magic("load_ext", "jupyter_compaction")
    assert ip.magics_manager.registry[MAGICS_CLASS] is first
    assert [k for k in ip.magics_manager.registry if k == MAGICS_CLASS] == [MAGICS_CLASS]
    for kind, names in MAGIC_NAMES.items():
        assert ours(ip, kind) == names


def test_unload_then_load_again(ip):
    unload_ipython_extension(ip)
    assert MAGICS_CLASS not in ip.magics_manager.registry
    assert "agent" not in ip.magics_manager.magics["cell"]
    unload_ipython_extension(ip)  # a second unload is harmless
    load_ipython_extension(ip)
    assert ours(ip, "cell") == {"agent"}


def test_load_ext_imports_no_plotly_widgets_or_anthropic():
    code = textwrap.dedent("""
        import sys
        from IPython.core.interactiveshell import InteractiveShell
        ip = InteractiveShell.instance()
        ip.run_line_magic("load_ext", "jupyter_compaction")
        assert "agent" in ip.magics_manager.magics["cell"]
        heavy = [m for m in ("plotly", "ipywidgets", "anthropic", "anywidget") if m in sys.modules]
        print("HEAVY", heavy)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True)
    assert "HEAVY []" in out.stdout


def test_help_lists_the_options():
    doc = CompactionMagics.agent.__doc__
    for option in ("--scenario", "--budget", "--strategy", "--model", "--max-turns",
                   "--task-state", "--no-task-state", "--summary-role", "--summarizer",
                   "--notes", "--quiet", "--out", "--resume", "--ask"):
        assert option in doc
    assert "--full" in CompactionMagics.context.__doc__


# --- %%agent --------------------------------------------------------------------------------

def test_agent_plays_a_scenario_and_stores_the_run(ip):
    with capture_output() as out:
        ip.run_line_magic("agent", "--scenario agents --budget 8000")
    run = ip.user_ns["_agent_run"]
    assert run.status == "finished" and len(run.compactions) >= 2
    assert {e.budget for e in run.of(TurnStarted)} == {8000}
    text = out.stdout
    assert text.startswith("turn  context  budget")
    assert "compacted[" in text
    for label in ("turns", "peak context", "tokens sent", "compactions",
                  "repeated tool calls", "answer"):
        assert re.search(rf"^{label}\s", text, re.M), label
    assert f"compactions          {len(run.compactions)}" in text
    assert run.answer.strip()[:40] in text
    assert "(stored in _agent_run)" in text


def test_cell_body_is_the_task(ip):
    task = "Read every file under agents/ and say which ones define a dispatch table."
    with capture_output() as out:
        ip.run_cell_magic("agent", "--scenario agents --budget 8000 --quiet --out run_a",
                          task + "\n")
    run = ip.user_ns["run_a"]
    assert ip.user_ns["_agent_run"] is run
    assert run.task == task and run.transcript[0]["content"] == task
    assert "turn  context" not in out.stdout  # --quiet: no rows
    assert "(stored in _agent_run and run_a)" in out.stdout
    # next to the outcome, the question the task was understood as (issue 33, item 4)
    assert "question             which files under a folder define a tool dispatch table " \
           "(folder agents)" in out.stdout


def test_knobs_reach_the_agent(ip):
    with capture_output():
        ip.run_line_magic("agent", "--scenario logistics --budget 9000 --strategy summarize "
                                   "--summary-role user --no-task-state --max-turns 4 --quiet")
    run = ip.user_ns["_agent_run"]
    assert run.status == "max_turns" and run.turn == 4
    assert run.task_state is None
    assert all(e.strategy == "summarize" for e in run.of(Compacted))


RULE = 'End every answer with "-- ops bot".'


@pytest.mark.parametrize("restate", [True, False])
def test_standing_instructions_are_typed_in_quotes_and_restated_unless_told_not_to(ip, restate):
    line = (f"--scenario agents --budget 8000 --strategy compact --quiet "
            f"--standing-instructions '{RULE}'" + ("" if restate else " --no-restate"))
    with capture_output():
        ip.run_line_magic("agent", line)
    run = ip.user_ns["_agent_run"]
    assert run.status == "finished" and run.compactions
    stated = [m["content"] for m in run.transcript if m["role"] == "system"]
    assert stated[0] == RULE and len(stated) == 1 + restate * len(run.compactions)
    assert run.answer.endswith("-- ops bot") is restate


def test_a_magic_line_unquotes_a_quoted_word_and_keeps_an_apostrophe():
    from jupyter_compaction.jupyter.validate import words

    assert words(f"--x '{RULE}' --y \"two words\" don't C:\\tmp") == [
        "--x", RULE, "--y", "two words", "don't", "C:\\tmp"]


def test_notes_and_same_model_summarizer(ip):
    with capture_output() as out:
        ip.run_line_magic("agent", "--scenario debug --budget 6000 --strategy compact --notes "
                                   "--summarizer same --quiet")
    run = ip.user_ns["_agent_run"]
    assert run.status in ("finished", "max_turns"), out.stdout
    assert run.compactions and run.summary
    called = {b["name"] for m in run.transcript if m["role"] == "assistant"
              for b in m["content"] if b.get("type") == "tool_use"}
    assert "write_note" in called


def test_context_budget_is_read_from_the_namespace(ip):
    ip.user_ns["CONTEXT_BUDGET"] = 9_000
    with capture_output():
        ip.run_line_magic("agent", "--scenario agents --quiet --max-turns 2")
    assert {e.budget for e in ip.user_ns["_agent_run"].of(TurnStarted)} == {9_000}
    with capture_output():  # --budget wins over CONTEXT_BUDGET
        ip.run_line_magic("agent", "--scenario agents --quiet --max-turns 2 --budget 7000")
    assert {e.budget for e in ip.user_ns["_agent_run"].of(TurnStarted)} == {7_000}


def test_default_budget_without_context_budget(ip):
    with capture_output():
        ip.run_line_magic("agent", "--scenario agents --quiet --max-turns 1")
    assert ip.user_ns["_agent_run"].of(TurnStarted)[0].budget == 20_000


@pytest.mark.parametrize("value", ["abc", "20_000", -5, 0, 2.5, True, None])
def test_bad_context_budget_says_what_to_write(ip, value):
    ip.user_ns["CONTEXT_BUDGET"] = value
    message = usage_error(ip.run_line_magic, "agent", "--scenario agents")
    assert message.startswith(BUDGET_HINT)
    assert "CONTEXT_BUDGET = 20_000" in message


BAD_LINES = [
    ("--scenario agents --budget -5", "--budget must be a positive whole number"),
    ("--scenario agents --budget 0", "--budget must be a positive whole number"),
    ("--scenario agents --budget abc", "--budget must be a positive whole number"),
    ("--scenario agents --budget 1.5", "--budget must be a positive whole number"),
    ("--scenario agents --budget", "expected one argument"),
    ("--scenario nope", "unknown scenario 'nope'; use --scenario with one of: agents"),
    ("--scenario agents --strategy nope", "unknown strategy 'nope': --strategy must be one of "
                                          + ", ".join(STRATEGIES)),
    ("--scenario agents --model gpt-4o", "unknown model 'gpt-4o': --model must be one of "
                                         "simulated, or a Claude model id"),
    ("--scenario agents --model claude-haiku-4-5",
     "Set ANTHROPIC_API_KEY to use claude-haiku-4-5, or use --model simulated"),
    ("--scenario agents --max-turns 0", "--max-turns must be a positive whole number"),
    ("--scenario agents --max-turns many", "--max-turns must be a positive whole number"),
    ("--scenario agents --summary-role system", "--summary-role must be one of assistant, user"),
    ("--scenario agents --summarizer cheap", "--summarizer must be one of aux, same"),
    ("--scenario agents --trigger high", "--trigger must be a number (a share of the budget"),
    ("--scenario agents --target 0.9", "0 < target < trigger <= 1; got target 0.9, trigger 0.8"),
    ("--scenario agents --out 1run", "--out needs a Python variable name"),
    ("--scenario agents --out class", "--out needs a Python variable name"),
    ("--scenario agents --bogus", "unrecognized arguments: --bogus; see %agent?"),
    ("--scenario 'agents", "cannot read the options"),
    ("--scenario agents --standing-instructions \"\"", "--standing-instructions must be "
                                                        "text that is not blank; got ''"),
    ("--scenario agents --standing-instructions Answer in one line.",
     "unrecognized arguments: in one line."),
    ("", EMPTY_TASK),
    ("--resume", "nothing to resume"),
    ("--ask", NO_QUESTION),
    ("--ask --resume", "use --resume or --ask, not both"),
]


@pytest.mark.parametrize(("line", "expected"), BAD_LINES)
def test_every_bad_input_is_one_usage_error(ip, line, expected):
    assert expected in usage_error(ip.run_line_magic, "agent", line)
    assert "_agent_run" not in ip.user_ns


# Each setting's bad value, with no task and no scenario: the option is named, never the
# missing task (issue 19).
BAD_OPTIONS = {
    "budget": ("abc", "--budget must be a positive whole number of tokens"),
    "strategy": ("bogus", "unknown strategy 'bogus': --strategy must be one of off, clear"),
    "model": ("gpt-4o", "unknown model 'gpt-4o': --model must be one of simulated"),
    "trigger": ("most", "--trigger must be a number"),
    "target": ("half", "--target must be a number"),
    "max_turns": ("0", "--max-turns must be a positive whole number of turns"),
    "summary_role": ("system", "unknown summary role 'system': --summary-role must be one of"),
    "summarizer": ("cheap", "unknown summarizer 'cheap': --summarizer must be one of aux, same"),
    "compact_at": ("soon", "--compact-at must be a number"),
    "result_cap": ("2", "--result-cap must be a share of the budget in (0, 1], not 2.0"),
    "restore": ("-1", "--restore must be a whole number (at least 0) of files"),
    "offload_at": ("2", "--offload-at must be a share of the budget in (0, 1], or None"),
    "offload_over": ("lots", "--offload-over must be a positive whole number of tokens"),
    "standing_instructions": ("'  '", "--standing-instructions must be text that is not "
                                      "blank; got '"),
    "trigger_rule": ("nope", "unknown trigger rule 'nope': --trigger-rule must be the name "
                             "of a function (counter, messages, system, tools, budget, "
                             "trigger) -> bool defined in the notebook"),
}


@pytest.mark.parametrize("name", sorted(BAD_OPTIONS))
def test_a_bad_option_is_named_even_without_a_task(ip, name):
    flag = "--" + name.replace("_", "-")
    value, expected = BAD_OPTIONS[name]
    for line in (f"{flag} {value}", f"{flag} {value} --scenario agents"):
        message = usage_error(ip.run_line_magic, "agent", line)
        assert message.startswith(expected), message
        assert EMPTY_TASK not in message
    assert usage_error(ip.run_cell_magic, "agent", f"{flag} {value}", "  \n").startswith(expected)


def test_every_setting_option_of_the_magic_is_tested_or_a_flag():
    from jupyter_compaction.settings import OPTIONS

    typed = {n for n in magics_module.AGENT_SETTINGS if OPTIONS[n].kind is not bool}
    assert typed == set(BAD_OPTIONS)


def test_the_magic_options_come_from_the_settings():
    from jupyter_compaction.settings import help_text

    parser = CompactionMagics.agent.parser
    helps = {a.dest: a.help for a in parser._actions}
    for name in magics_module.AGENT_SETTINGS:
        assert helps[name].startswith(help_text(name).split(" (default")[0]), name
    assert "(default: CONTEXT_BUDGET, else 20000)" in helps["budget"]
    compact = {a.dest: a.help for a in CompactionMagics.compact.parser._actions}
    assert compact["strategy"] == help_text("strategy", "the run's")


def test_compact_names_a_bad_strategy(ip):
    with capture_output():
        ip.run_line_magic("agent", "--scenario agents --quiet --max-turns 2")
    message = usage_error(ip.run_line_magic, "compact", "--strategy bogus")
    assert message.startswith("unknown strategy 'bogus': --strategy must be one of off")


def test_empty_cell_body_without_scenario(ip):
    assert usage_error(ip.run_cell_magic, "agent", "--budget 8000", "  \n\n") == EMPTY_TASK


def test_usage_errors_show_without_traceback(ip):
    for source in ("%agent --scenario agents --budget -5", "%%agent --scenario agents\n",
                   "%context missing_run"):
        with capture_output() as out:
            ip.run_cell(source)
        assert "Traceback" not in out.stdout + out.stderr
        assert out.stderr.startswith("UsageError: ")
        assert out.stderr.strip().count("\n") == 0


def test_resume_needs_a_failed_run_of_this_session(ip):
    with capture_output():
        ip.run_line_magic("agent", "--scenario agents --quiet --max-turns 2")
    assert "ended with status 'max_turns'" in usage_error(ip.run_line_magic, "agent", "--resume")
    ip.user_ns["_agent_run"] = object()
    assert "not started by %%agent" in usage_error(ip.run_line_magic, "agent", "--resume")


# --- a follow-up question, --ask -------------------------------------------------------------

def test_ask_follows_up_in_the_last_runs_conversation(ip):
    from jupyter_compaction import scenarios

    first, second = ("List the Python files of this package.",
                     "And which of the files import the .util module?")
    with capture_output():
        ip.run_cell_magic("agent", "--scenario markdown --quiet", first + "\n")
    before = ip.user_ns["_agent_run"]
    with capture_output() as out:
        ip.run_cell_magic("agent", "--ask --quiet --out second", second + "\n")
    run = ip.user_ns["_agent_run"]
    assert run is before and ip.user_ns["second"] is run  # the same conversation, on
    assert (run.task, run.status, run.outcome) == (second, "finished", "correct")
    assert run.answer == scenarios.load("markdown").expected(task=second)
    assert run.transcript[0]["content"] == first
    assert re.search(r"^question +which files import a given module of the package \(module "
                     r"\.util\)", out.stdout, re.M)


def test_ask_needs_an_answered_run_of_this_session(ip):
    assert "nothing to follow up on: there is no _agent_run" in usage_error(
        ip.run_cell_magic, "agent", "--ask", "Which files import .util?")
    with capture_output():
        ip.run_line_magic("agent", "--scenario agents --quiet --max-turns 2")
    message = usage_error(ip.run_cell_magic, "agent", "--ask", "Which files import .util?")
    assert "ended with status 'max_turns', not an answer" in message
    assert "\n" not in message
    ip.user_ns["_agent_run"] = object()
    assert "not started by %%agent" in usage_error(ip.run_cell_magic, "agent", "--ask", "Why?")


# --- a failing model, and --resume ----------------------------------------------------------

def test_model_failure_is_one_line_then_resume_finishes(ip, monkeypatch):
    from jupyter_compaction import runner

    real_make = runner.make_model
    reset = ConnectionError("upstream reset\nsecond line of details")
    monkeypatch.setattr(runner, "make_model",  # call 3 fails
                        lambda name, scenario: Relay(real_make(name, scenario), fail_at(3, reset)))
    with capture_output() as out:
        ip.run_line_magic("agent", "--scenario agents --budget 8000")
    run = ip.user_ns["_agent_run"]
    assert run.status == "failed" and run.error == "ConnectionError: upstream reset"
    assert "Run failed at turn 3: ConnectionError: upstream reset." in out.stdout
    assert "_agent_run.transcript" in out.stdout
    assert "Traceback" not in out.stdout + out.stderr and "second line" not in out.stdout
    assert len(run.transcript) == 5  # task, and two turns of call + results

    with capture_output() as out:
        ip.run_line_magic("agent", "--resume")
    assert ip.user_ns["_agent_run"] is run
    assert run.status == "finished" and len(run.compactions) >= 2
    assert out.stdout.startswith("Resuming _agent_run at turn 3 after: ConnectionError")
    assert "status               finished" in out.stdout


@pytest.mark.slow  # the real SDK over a local fake server, retries included
def test_a_strategy_bug_shows_one_line_and_points_to_run_error():
    from jupyter_compaction.jupyter.result_view import failure_line

    class Broken:
        name = "broken"

        def __call__(self, messages, *, goal, counter):
            return 1 / 0

    run = runner.play("agents", budget=6_000, strategy=Broken())
    line = failure_line(run, "_agent_run")
    assert "\n" not in line and "ZeroDivisionError: division by zero" in line
    assert "see run.error for the traceback" in line and "Traceback" in run.error


def test_claude_model_failure_over_the_real_sdk(ip, monkeypatch):
    pytest.importorskip("anthropic")
    from jupyter_compaction.models.simulated import SimulatedModel
    from tests.support.fake_messages_api import FakeMessagesAPI, Fault, model_responder

    key = "sk-ant-test-0123456789abcdef"
    with FakeMessagesAPI(model_responder(SimulatedModel("agents"))) as api:
        api.faults.append(Fault("400", at=2))
        monkeypatch.setenv("ANTHROPIC_API_KEY", key)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.base_url)
        with capture_output() as out:
            ip.run_line_magic("agent", "--scenario agents --model claude-haiku-4-5 "
                                       "--budget 8000")
        run = ip.user_ns["_agent_run"]
        assert run.status == "failed" and "400" in run.error
        assert "Run failed at turn 3: ModelError: Claude API error 400" in out.stdout
        with capture_output() as resumed:
            ip.run_line_magic("agent", "--resume --quiet")
        assert run.status == "finished"
    for text in (out.stdout, out.stderr, resumed.stdout, resumed.stderr):
        assert key not in text and "Traceback" not in text


# --- %context, %summary, %compaction_budget, %compaction_lab --------------------------------

def played_context(ip, agent_line: str):
    """Play `%agent agent_line`, then show `%context`: the run and the lines shown."""
    with capture_output():
        ip.run_line_magic("agent", agent_line)
    with capture_output() as out:
        ip.run_line_magic("context", "")
    return ip.user_ns["_agent_run"], out.stdout.splitlines()


def test_context_table_and_full_text(ip):
    run, lines = played_context(ip, "--scenario agents --budget 8000 --strategy clear --quiet")
    assert lines[0].startswith(f"_agent_run: {len(run.messages)} live messages")
    last = run.of(TurnStarted)[-1].tokens  # the simulated model reports the local count
    assert lines[1] == f"last request: local {last}, reported {last}, ratio 1.00"
    assert re.match(r"#\s+role\s+blocks\s+tokens\s+marker", lines[2])
    assert re.match(r"0\s+user\s+text\s+\d+\s+task", lines[3])
    assert any("cleared" in line for line in lines)
    with capture_output() as full:
        ip.run_line_magic("context", "--full _agent_run")
    assert "--- [0] user" in full.stdout
    assert re.search(r"… \d+ more characters", full.stdout)


def test_context_and_summary_need_a_run(ip):
    assert "no run named _agent_run" in usage_error(ip.run_line_magic, "context", "")
    ip.user_ns["not_a_run"] = 42
    assert "not an agent run" in usage_error(ip.run_line_magic, "summary", "not_a_run")
    assert "run name needs a Python variable name" in usage_error(
        ip.run_line_magic, "context", "1x")


def test_summary_side_by_side_with_dropped_facts(ip):
    with capture_output():
        ip.run_line_magic("agent", "--scenario logistics --budget 9000 --strategy summarize "
                                   "--quiet")
    run = ip.user_ns["_agent_run"]
    event = [e for e in run.of(Compacted) if e.summary][-1]
    with capture_output() as out:
        ip.run_line_magic("summary", "")
    text = out.stdout
    assert f"summary at turn {event.turn} [summarize]" in text
    assert re.search(r"--- summary prompt \(\d+ tokens\) ---", text)
    assert re.search(r"--- summary \(\d+ tokens\) ---", text)
    assert event.summary.splitlines()[0] in text
    assert f"dropped by this compaction: {len(event.dropped_facts)} facts" in text
    assert "must-keep facts of logistics: recall" in text


def test_summary_when_there_is_none(ip):
    with capture_output():
        ip.run_line_magic("agent", "--scenario agents --budget 8000 --strategy clear --quiet")
    with capture_output() as out:
        ip.run_line_magic("summary", "")
    assert out.stdout.startswith("_agent_run has no summary yet (its compactions: clear)")


def test_context_shows_a_reported_count_beside_the_local_one():
    run = runner.play("agents", budget=8_000, max_turns=4,
                      model=Reporting("agents", scaled(1.3)))
    text = context_view.view(run, "run_a").text.splitlines()[1]
    last = run.of(TurnStarted)[-1].tokens
    assert text == f"last request: local {last}, reported {round(last * 1.3)}, ratio 1.30"
    assert "<div>last request: local" in context_view.view(run, "run_a").html


def test_context_shows_each_result_cut_to_the_cap(ip):
    run, lines = played_context(ip, "--scenario logistics --budget 5000 --strategy clear --quiet")
    cut = [e for e in run.of(ToolReturned) if e.truncated]
    assert cut, "the lesson-2 run at 5,000 tokens must cut some results"
    assert lines[2] == (f"{len(cut)} tool results cut to the result cap (25% of the budget "
                        f"of 5000: 1250 tokens, 5000 characters):")
    # The characters cut, against the same calls' whole results in a run with a large budget.
    big = runner.play("logistics", budget=60_000, strategy="clear")
    calls = {b["id"]: context_view.call_text(b) for m in big.transcript for b in blocks(m)
             if b["type"] == "tool_use"}
    whole = {calls[b["tool_use_id"]]: len(b["content"]) for m in big.transcript
             for b in blocks(m) if b["type"] == "tool_result"}
    shown = {b["id"]: context_view.call_text(b) for m in run.transcript for b in blocks(m)
             if b["type"] == "tool_use"}
    for event, line in zip(cut, lines[3:], strict=False):
        call = shown[event.id]
        chars = whole[call] - 5000
        assert line == (f"  turn {event.turn} {call}: {chars} characters cut "
                        f"(about {chars // 4} tokens)")
    assert lines[3 + len(cut)].startswith("#")
    assert "tool results cut" not in context_view.view(
        runner.play("agents", budget=8_000, strategy="clear")).text


# --- %compact --------------------------------------------------------------------------------

def finished_run(ip):
    """A logistics run played by %agent under a budget it never comes near."""
    with capture_output():
        ip.run_line_magic("agent", "--scenario logistics --budget 50000 --quiet")
    return ip.user_ns["_agent_run"]


def test_compact_needs_a_run_and_a_known_strategy(ip):
    assert usage_error(ip.run_line_magic, "compact", "") == NO_RUN
    run = finished_run(ip)
    assert "unknown strategy 'shrink'" in usage_error(ip.run_line_magic, "compact",
                                                      "--strategy shrink")
    assert "see %compact? for the options" in usage_error(ip.run_line_magic, "compact",
                                                          "--nope")
    assert not run.compactions


def test_compact_with_a_focus_says_what_it_did(ip):
    run = finished_run(ip)
    transcript = list(run.transcript)
    with capture_output() as out:
        ip.run_line_magic("compact", "--strategy compact the order ORD-1042")
    event = run.of(Compacted)[-1]
    lines = out.stdout.splitlines()
    assert lines[0].startswith(
        f"Compacted _agent_run at turn {run.turn} with compact: messages "
        f"{event.tokens_before} -> {event.tokens_after} tokens")
    assert lines[1] == "focus: the order ORD-1042"
    assert "focus on: the order ORD-1042." in event.summary_prompt
    assert lines[2].startswith("summary (") and lines[3] == "  ## Goal"
    assert len(lines) == 3 + SUMMARY_LINES
    assert len(run.messages) == 1 and run.transcript == transcript


def test_compact_with_nothing_to_do_says_why(ip):
    finished_run(ip)
    with capture_output() as out:
        ip.run_line_magic("compact", "")
    assert out.stdout.startswith("Nothing to compact with progressive: fits under")
    with capture_output() as out:
        ip.run_line_magic("compact", "--strategy trim the invoices")
    assert out.stdout.startswith("Nothing to compact with trim: fits under")


def test_compaction_budget_sets_and_shows(ip):
    with capture_output() as out:
        ip.run_line_magic("compaction_budget", "")
    assert out.stdout.startswith("CONTEXT_BUDGET = 20000 tokens (the default)")
    with capture_output() as out:
        ip.run_line_magic("compaction_budget", "12_000")
    assert ip.user_ns["CONTEXT_BUDGET"] == 12_000
    assert out.stdout.strip() == ("CONTEXT_BUDGET = 12000 tokens; compaction triggers at "
                                  "9600 tokens (80%) and aims for 6000 (50%)")
    for bad in ("-5", "0", "abc", "1e4"):
        assert "positive whole number" in usage_error(ip.run_line_magic, "compaction_budget",
                                                      bad)
    assert ip.user_ns["CONTEXT_BUDGET"] == 12_000


def test_compaction_lab_in_text_mode(ip):
    with capture_output() as out:
        ip.run_line_magic("compaction_lab", "")
    assert out.stdout.startswith("The lab is an ipywidgets app")
    assert "_lab" not in ip.user_ns
    assert "takes no options" in usage_error(ip.run_line_magic, "compaction_lab", "--x")


# --- a rich frontend -------------------------------------------------------------------------

@pytest.fixture
def rich(monkeypatch):
    monkeypatch.setattr(magics_module, "widgets_enabled", lambda shell=None: True)


def test_rich_frontend_shows_chart_and_html(ip, rich):
    with capture_output() as out:
        ip.run_line_magic("agent", "--scenario agents --budget 8000")
    kinds = [set(o.data) for o in out.outputs]
    assert "application/vnd.jupyter.widget-view+json" in kinds[0]  # the live chart + log
    assert "text/html" in kinds[-1]  # the result
    assert "turn  context" not in out.stdout
    with capture_output() as ctx:
        ip.run_line_magic("context", "")
    assert "<table" in ctx.outputs[0].data["text/html"]
    assert ctx.outputs[0].data["text/plain"].startswith("_agent_run: ")
    with capture_output() as lab:
        ip.run_line_magic("compaction_lab", "")
    assert "application/vnd.jupyter.widget-view+json" in lab.outputs[0].data
    assert type(ip.user_ns["_lab"]).__name__ == "Lab"


def test_the_live_view_draws_at_most_once_a_second_and_everything_at_the_end(monkeypatch):
    """A simulated run's events arrive within a millisecond: drawing each one sent the
    figure and the log to the page every time (most of a lesson's time in the browser)."""
    from types import SimpleNamespace

    from jupyter_compaction.jupyter import live as live_module

    clock = SimpleNamespace(now=100.0)
    monkeypatch.setattr(live_module, "time", SimpleNamespace(monotonic=lambda: clock.now))
    events = runner.play("agents", budget=8000).events
    with capture_output():
        view = live_module.LiveView(rich=True)
    chart, drawn = view.chart, view.chart.updates  # the empty figure
    for event in events[:-1]:
        view(event)
    assert chart.updates == drawn + 1 and chart.turns == [1]  # only the first event
    clock.now += live_module.DRAW_EVERY_S
    view(events[-1])  # a second later: everything so far
    assert chart.updates == drawn + 2 and view._log_widget.value == view.log.html()
    turns = [e.turn for e in events if isinstance(e, TurnStarted)]
    assert chart.turns == turns and len(turns) > 5
    view.flush()  # nothing waiting: nothing sent
    assert chart.updates == drawn + 2


def test_the_magic_draws_the_events_left_when_the_run_returns(ip, rich, monkeypatch):
    from jupyter_compaction.jupyter import live as live_module

    views = []
    monkeypatch.setattr(magics_module, "LiveView",
                        lambda **kw: views.append(live_module.LiveView(**kw)) or views[-1])
    monkeypatch.setattr(live_module, "DRAW_EVERY_S", 3600.0)  # never while it plays
    with capture_output():
        ip.run_line_magic("agent", "--scenario agents --budget 8000")
    run = ip.user_ns["_agent_run"]
    turns = [e.turn for e in run.events if isinstance(e, TurnStarted)]
    assert views[0].chart.turns == turns and views[0]._log_widget.value == views[0].log.html()


# --- deterministic text ----------------------------------------------------------------------

RANDOM_LOOKING = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-|0x[0-9a-f]{6,}|/tmp/|compaction-agents-|model_id", re.I)


def test_text_output_is_the_same_every_run(ip):
    outputs = []
    for _ in range(2):
        with capture_output() as out:
            ip.run_line_magic("agent", "--scenario agents --budget 8000 --strategy progressive")
            ip.run_line_magic("context", "--full")
            ip.run_line_magic("summary", "")
        outputs.append(out.stdout)
    assert outputs[0] == outputs[1]
    assert not RANDOM_LOOKING.search(outputs[0])


def test_load_ext_registers_check_and_unload_removes_it():
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "jupyter_compaction")
    assert "check" in shell.magics_manager.magics["line"]
    shell.run_line_magic("unload_ext", "jupyter_compaction")
    assert "check" not in shell.magics_manager.magics["line"]
    shell.run_line_magic("load_ext", "jupyter_compaction")


def test_trigger_and_target_are_knobs_of_the_magic(ip):
    ip.run_line_magic("agent", "--scenario agents --budget 6000 --trigger 0.9 --target 0.3 "
                               "--quiet")
    starts = [e for e in ip.user_ns["_agent_run"].events if isinstance(e, TurnStarted)]
    assert {(e.trigger_at, e.target_at) for e in starts} == {(5400, 1800)}
    for bad in ("--target 0.9", "--trigger 1.5", "--target nan", "--target x"):
        message = usage_error(ip.run_line_magic, "agent", f"--scenario agents {bad}")
        assert "target" in message or "trigger" in message


def test_agent_runs_on_an_edited_workdir_and_grades_against_it(ip, tmp_path):
    folder = runner.copy_workspace("logistics", tmp_path / "desk")
    customer = folder / "customers/CUS-20931.json"
    customer.write_text(customer.read_text().replace('"tier": "gold"', '"tier": "silver"'))
    with capture_output() as out:
        ip.run_cell_magic("agent", f"--scenario logistics --workdir {folder} --quiet",
                          "What loyalty tier is customer CUS-20931 in?\n")
    run = ip.user_ns["_agent_run"]
    assert run.answer == "Customer CUS-20931 is in loyalty tier silver." and "correct" in out.stdout


def test_agent_workdir_that_is_a_file_is_one_usage_line(ip, tmp_path):
    (tmp_path / "f").write_text("x")
    assert "not an empty folder" in usage_error(ip.run_line_magic, "agent",
                                                f"--scenario agents --workdir {tmp_path / 'f'}")
