"""`Settings`: one default per knob, overrides by name, bad values refused in one line."""

from __future__ import annotations

import pytest

from jupyter_compaction.agent import Agent
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.settings import (
    DEFAULTS,
    NAMES,
    OPTIONS,
    Settings,
    add_arguments,
    help_text,
    read_given,
)
from jupyter_compaction.strategies import STRATEGIES

ALL = ", ".join(STRATEGIES)  # every registered strategy, in the registry's order


def test_the_defaults():
    assert (DEFAULTS.budget, DEFAULTS.trigger, DEFAULTS.target) == (20_000, 0.8, 0.5)
    assert (DEFAULTS.strategy, DEFAULTS.summarizer, DEFAULTS.model) == (
        "progressive", "aux", "simulated")
    assert NAMES[0] == "model" and "max_turns" in NAMES


def test_with_changes_overrides_only_what_is_given():
    changed = DEFAULTS.with_changes(budget=8_000)
    assert changed.budget == 8_000 and changed.with_changes(budget=DEFAULTS.budget) == DEFAULTS
    assert DEFAULTS.budget == 20_000  # frozen: the defaults never change


@pytest.mark.parametrize(("knobs", "words"), [
    ({"trigger": 0}, "0 < target < trigger <= 1"),
    ({"trigger": -0.1}, "0 < target < trigger <= 1"),
    ({"trigger": 1.5}, "0 < target < trigger <= 1"),
    ({"trigger": "0.8"}, "trigger must be a number"),
    ({"trigger": True}, "trigger must be a number"),
    ({"target": 0.8}, "0 < target < trigger <= 1"),
    ({"target": 0.9, "trigger": 0.8}, "got target 0.9, trigger 0.8"),
    ({"target": 0}, "0 < target < trigger <= 1"),
    ({"target": None}, "target must be a number"),
    ({"budget": 0}, "budget must be a positive whole number of tokens"),
    ({"budget": 10**10}, "at most 1_000_000_000 tokens; got 10000000000"),
    ({"budget": 10**400}, "at most 1_000_000_000 tokens; got a 401-digit number"),
    ({"result_cap": 0}, "result_cap must be a share of the budget in (0, 1], not 0"),
    ({"result_cap": 1.5}, "result_cap must be a share of the budget in (0, 1], not 1.5"),
    ({"compact_at": 0}, "compact_at must be a share of the budget in (0, 1], or None, not 0"),
    ({"max_turns": 2.5}, "max_turns must be a positive whole number of turns"),
    ({"max_output_tokens": "1024"}, "max_output_tokens must be a positive whole number"),
    ({"summary_role": "system"}, "unknown summary role 'system': summary_role must be one of "
                                 "assistant, user"),
    ({"summarizer": "bogus"}, "unknown summarizer 'bogus': summarizer must be one of aux, "
                              "same, or a Model or a callable"),
    ({"summarizer": 42}, "unknown summarizer 42"),
    ({"standing_instructions": "  "}, "standing_instructions must be text that is not blank, "
                                      "or None; got '  '"),
    ({"standing_instructions": 3}, "standing_instructions must be text that is not blank"),
    ({"restate": "yes"}, "restate must be True or False, not 'yes'"),
    ({"strategy": "bogus"}, f"unknown strategy 'bogus': strategy must be one of {ALL}, or a "
                            "strategy object"),
    ({"strategy": None}, "unknown strategy None"),
    ({"model": "gpt-4o"}, "unknown model 'gpt-4o': model must be one of simulated, or a "
                          "Claude model id"),
    ({"task_state": "yes"}, "task_state must be True or False, not 'yes'"),
    ({"notes": 1}, "notes must be True or False, not 1"),
])
def test_bad_values_are_one_line_value_errors(knobs, words):
    with pytest.raises(ValueError) as info:
        Settings(**knobs)
    assert words in str(info.value) and "\n" not in str(info.value)
    if "model" not in knobs:  # the agent is handed its model itself
        with pytest.raises(ValueError):  # the agent refuses the same values
            Agent(SimulatedModel("agents"), **knobs)


def test_trigger_of_one_and_a_small_target_are_fine():
    assert Settings(trigger=1, target=0.01).trigger == 1


def test_an_unknown_knob_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown setting 'triger'; the settings are: model"):
        Agent(SimulatedModel("agents"), triger=0.5)


class CountsOnlyText:
    def count_text(self, text):
        return len(text)


@pytest.mark.parametrize("counter", [CountsOnlyText(), "o200k_base", 42])
def test_a_counter_of_the_wrong_kind_is_a_type_error_saying_what_is_expected(counter):
    with pytest.raises(TypeError, match=r"counter must be a TokenCounter \(or have count\(\), "
                                        r"count_message\(\) and count_text\(\)\); \w+ has no "
                                        r".*count_message\(\)"):
        Agent(SimulatedModel("agents"), counter=counter)


def test_a_bad_summarizer_fails_at_once_not_at_the_first_compaction():
    from jupyter_compaction.runner import play

    with pytest.raises(ValueError) as info:
        play("logistics", summarizer="bogus")
    assert str(info.value) == ("unknown summarizer 'bogus': summarizer must be one of aux, "
                               "same, or a Model or a callable prompt -> summary")


def test_trigger_and_target_in_tokens_and_the_goal_of_the_messages():
    settings = DEFAULTS.with_changes(budget=8_001)
    assert (settings.trigger_at, settings.target_at) == (6_400, 4_000)
    assert settings.goal(1_000) == 3_000
    assert settings.goal(1_000, to_local=lambda tokens: tokens // 2) == 1_000
    assert settings.goal(5_000) == 0  # never below 0


def test_every_setting_declares_its_option():
    for name, option in OPTIONS.items():
        assert option.help and option.help[0].islower(), name  # shown after the flag
        assert help_text(name).startswith(option.help), name
        assert option.kind in (int, float, bool, str), name
        if option.kind is str and not option.text:
            # a name from choices, or only an object (a notebook function, named in a magic)
            assert (option.choices or option.objects) and option.noun and option.metavar, name
            assert getattr(DEFAULTS, name) in (*option.choices, None), name
        option.check(name, getattr(DEFAULTS, name))  # the default passes its own check


def test_command_line_options_are_generated_from_the_settings():
    import argparse

    parser = argparse.ArgumentParser()
    add_arguments(parser, NAMES)
    args = parser.parse_args(["--budget", "8_000", "--trigger", "0.7", "--no-task-state",
                              "--strategy", "trim", "--summary-role", "user"])
    assert read_given(args, NAMES) == {"budget": 8_000, "trigger": 0.7, "task_state": False,
                                       "strategy": "trim", "summary_role": "user"}
    helps = {a.dest: a.help for a in parser._actions}
    assert helps["strategy"] == help_text("strategy")
    assert f"compaction strategy: {ALL} (default: progressive)" == helps["strategy"]
    assert "(default: 20000)" in helps["budget"] and "(default: on)" in helps["task_state"]


@pytest.mark.parametrize(("argv", "words"), [
    (["--budget", "abc"], "--budget must be a positive whole number of tokens"),
    (["--budget", "1.5"], "--budget must be a positive whole number of tokens"),
    (["--max-turns", "0"], "--max-turns must be a positive whole number of turns"),
    (["--trigger", "most"], "--trigger must be a number (a share of the budget"),
    (["--strategy", "bogus"], f"unknown strategy 'bogus': --strategy must be one of {ALL}"),
    (["--summarizer", "cheap"], "unknown summarizer 'cheap': --summarizer must be one of aux"),
    (["--summary-role", "system"], "unknown summary role 'system': --summary-role must be"),
    (["--model", "gpt-4o"], "unknown model 'gpt-4o': --model must be one of simulated"),
])
def test_a_bad_typed_value_names_its_flag(argv, words):
    import argparse

    parser = argparse.ArgumentParser()
    add_arguments(parser, NAMES)
    with pytest.raises(ValueError) as info:
        read_given(parser.parse_args(argv), NAMES)
    assert words in str(info.value) and "\n" not in str(info.value)


# --- one field is all a new setting takes ---------------------------------------------------
# A fresh interpreter loads a copy of settings.py with one more field (`probe`) in place of
# the real module, then imports the agent, the command line and both magics as they are.
ONE_FIELD = r'''
import contextlib, io, json, pathlib, sys, types
import jupyter_compaction
path = pathlib.Path(jupyter_compaction.__file__).with_name("settings.py")
anchor = "    max_turns: int = knob("
probe = ('    probe: int = knob(3, kind=int, metavar="N", unit="probes", '
         'surfaces=("agent", "demo", "replay"), help="a probe")\n')
source = path.read_text()
assert anchor in source
module = types.ModuleType("jupyter_compaction.settings")
module.__file__, module.__package__ = str(path), "jupyter_compaction"
sys.modules[module.__name__] = jupyter_compaction.settings = module
exec(compile(source.replace(anchor, probe + anchor, 1), str(path), "exec"), module.__dict__)
from jupyter_compaction.agent import Agent
from jupyter_compaction.cli import main
from jupyter_compaction.jupyter.magics import CompactionMagics
from jupyter_compaction.jupyter.replay_magic import ReplayMagics
from jupyter_compaction.models.simulated import SimulatedModel


def said(argv):
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(argv)
        except SystemExit:
            pass
    return out.getvalue()


print(json.dumps({
    "agent": Agent(SimulatedModel("agents"), probe=5).settings.probe,
    "magic": CompactionMagics.agent.parser.format_help(),
    "replay_magic": ReplayMagics.replay.parser.format_help(),
    "demo": said(["demo", "--help"]), "replay": said(["replay", "--help"]),
    "demo_bad": said(["demo", "--probe", "0"]),
}))
'''


def test_one_field_on_settings_reaches_every_surface():
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", ONE_FIELD], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["agent"] == 5
    for surface in ("magic", "replay_magic", "demo", "replay"):
        assert "--probe N" in seen[surface] and "a probe (default: 3)" in seen[surface], surface
    assert "--probe must be a positive whole number of probes; got 0" in seen["demo_bad"]

