"""`Settings`: one default per knob, overrides by name, bad values refused in one line."""

from __future__ import annotations

import pytest

from jupyter_compaction.agent import Agent
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.settings import DEFAULTS, NAMES, Settings


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
    ({"budget": 0}, "budget must be a positive number of tokens"),
    ({"budget": 10**10}, "budget must be at most 1_000_000_000 tokens"),
    ({"max_turns": 2.5}, "max_turns must be a positive number of turns"),
    ({"summary_role": "system"}, "summary_role must be 'assistant' or 'user'"),
])
def test_bad_values_are_one_line_value_errors(knobs, words):
    with pytest.raises(ValueError) as info:
        Settings(**knobs)
    assert words in str(info.value) and "\n" not in str(info.value)
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
