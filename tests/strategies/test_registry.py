"""The registry of strategy names, `get()` and `configure()`."""

import pytest

from jupyter_compaction import (
    ClearToolResults,
    CompactAll,
    InvalidHistory,
    NoCompaction,
    Progressive,
    SummarizeMiddle,
    TokenCounter,
    TrimTurns,
    strategies,
    validate,
)
from jupyter_compaction.strategies import STRATEGIES, configure
from tests.support.histories import fixed_history

COUNTER = TokenCounter()
NAMES = list(STRATEGIES)


def summarizer(prompt):
    return "## Progress\nbound"


def other(prompt):
    return "## Progress\nexplicit"


def test_registry_names_match_the_strategies():
    assert {"off", "clear", "trim", "summarize", "compact", "progressive"} <= set(NAMES)
    for name, strategy in STRATEGIES.items():
        assert strategy.name == name
    assert isinstance(STRATEGIES["off"], NoCompaction)
    assert isinstance(STRATEGIES["progressive"], Progressive)


@pytest.mark.parametrize("name", NAMES)
def test_get_returns_the_registered_instance(name):
    assert strategies.get(name) is STRATEGIES[name]


@pytest.mark.parametrize("bad", ["nope", "", "Clear", None, ["clear"], 3])
def test_get_unknown_name_is_a_one_line_error_listing_the_names(bad):
    with pytest.raises(ValueError) as err:
        strategies.get(bad)
    message = str(err.value)
    assert "\n" not in message
    assert f"unknown strategy {bad!r}" in message
    assert message.endswith("choose one of: " + ", ".join(NAMES))
    assert err.value.__cause__ is None and err.value.__suppress_context__


def test_configure_fills_a_missing_summarizer_on_a_copy():
    original = STRATEGIES["summarize"]
    bound = configure(original, summarizer=summarizer)
    assert bound.summarizer is summarizer
    assert bound is not original and original.summarizer is None
    assert (bound.protect_first, bound.tail_tokens, bound.role) == (
        original.protect_first, original.tail_tokens, original.role)
    assert configure(STRATEGIES["compact"], summarizer=summarizer).summarizer is summarizer
    assert STRATEGIES["compact"].summarizer is None


def test_configure_leaves_an_explicit_summarizer_alone():
    explicit = SummarizeMiddle(other, protect_first=1)
    assert configure(explicit, summarizer=summarizer) is explicit
    assert configure(CompactAll(other), summarizer=summarizer).summarizer is other


def test_configure_returns_strategies_without_a_summarizer_as_they_are():
    for strategy in (STRATEGIES["off"], STRATEGIES["clear"], STRATEGIES["trim"],
                     ClearToolResults(keep_last=7)):
        assert configure(strategy, summarizer=summarizer) is strategy

    def custom(messages, *, goal, counter):  # not a dataclass
        raise AssertionError("not called")

    assert configure(custom, summarizer=summarizer) is custom


def test_configure_reaches_the_layers_of_progressive_and_nested_progressive():
    default = configure(STRATEGIES["progressive"], summarizer=summarizer)
    assert [type(layer) for layer in default.layers] == [
        ClearToolResults, SummarizeMiddle, TrimTurns]
    assert default.layers[1].summarizer is summarizer
    assert STRATEGIES["progressive"].layers[1].summarizer is None

    nested = Progressive(layers=(
        ClearToolResults(),
        Progressive(layers=(SummarizeMiddle(protect_first=1), CompactAll(other))),
        CompactAll(),
    ), name="nested")
    bound = configure(nested, summarizer=summarizer)
    assert bound.name == "nested"
    assert bound.layers[0] is nested.layers[0]
    assert bound.layers[1].layers[0].summarizer is summarizer
    assert bound.layers[1].layers[0].protect_first == 1
    assert bound.layers[1].layers[1].summarizer is other
    assert bound.layers[2].summarizer is summarizer
    assert nested.layers[1].layers[0].summarizer is None


@pytest.mark.parametrize("name", NAMES)
def test_every_bound_default_strategy_runs_and_keeps_the_history_valid(name):
    messages = fixed_history(12, 400)
    strategy = configure(STRATEGIES[name], summarizer=summarizer)
    out = strategy(messages, goal=3_000, counter=COUNTER)
    validate(out.messages)
    assert out.tokens_after <= out.tokens_before == COUNTER.count(messages)
    assert (name == "off") == (not out.changed)


@pytest.mark.parametrize("name", NAMES)
def test_every_strategy_rejects_an_invalid_history_before_doing_anything(name):
    orphan = [{"role": "user", "content": "task"},
              {"role": "assistant", "content": [
                  {"type": "tool_use", "id": "t1", "name": "read_file", "input": {}}]},
              {"role": "user", "content": "no result"}]
    with pytest.raises(InvalidHistory, match="not answered"):
        STRATEGIES[name](orphan, goal=10, counter=COUNTER)


def test_off_is_unchanged_with_a_note():
    messages = fixed_history(3)
    out = STRATEGIES["off"](messages, goal=1, counter=COUNTER)
    assert out.note == "compaction is off"
    assert out.messages == messages and out.messages is not messages


class PlainSummarizing:
    """A strategy written as a plain class (not a dataclass) with every optional knob."""

    name = "plain"

    def __init__(self, summarizer=None, role="assistant", layers=()):
        self.summarizer, self.role, self.layers = summarizer, role, layers

    def __call__(self, messages, *, goal, counter):
        return SummarizeMiddle(self.summarizer, role=self.role)(
            messages, goal=goal, counter=counter)


def test_configure_works_for_a_plain_class_with_every_knob():
    plain = PlainSummarizing(layers=(SummarizeMiddle(), PlainSummarizing()))
    done = configure(plain, summarizer=summarizer, role="user")
    assert done is not plain and plain.summarizer is None and plain.role == "assistant"
    assert (done.summarizer, done.role) == (summarizer, "user")
    assert done.layers[0].summarizer is summarizer and done.layers[0].role == "user"
    assert done.layers[1].summarizer is summarizer and done.layers[1].role == "user"
    out = done(fixed_history(12, 400), goal=3_000, counter=COUNTER)
    validate(out.messages)
    assert out.summary == summarizer("")


def test_a_plain_class_runs_in_an_agent_with_every_knob():
    from jupyter_compaction import runner
    from jupyter_compaction.settings import NAMES as SETTINGS

    knobs = {"model": "simulated", "strategy": PlainSummarizing(), "budget": 4_000,
             "trigger": 0.7, "target": 0.4, "task_state": False, "notes": True,
             "summary_role": "user", "summarizer": summarizer, "max_turns": 8,
             "max_output_tokens": 512, "memory": True, "usage_line": True,
             "compact_at": 0.9, "restore": 2, "result_cap": 0.3, "offload_at": 0.2,
             "offload_over": 300, "dedup_reads": True,
             "standing_instructions": 'End every answer with "-- bot".', "restate": True,
             "trigger_rule": lambda counter, messages, system, tools, budget, trigger:
                 counter.count(messages, system, tools) > trigger * budget}
    assert set(knobs) == set(SETTINGS)
    with runner.start("agents", **knobs) as session:
        assert session.agent.strategy.role == "user"
        run = session.play()
    assert run.error is None and run.compactions
    assert all(c.summary == summarizer("") for c in run.compactions)


def test_configure_sets_the_role_in_every_layer():
    done = configure(STRATEGIES["progressive"], role="user")
    assert done.layers[1].role == "user"
    assert STRATEGIES["progressive"].layers[1].role == "assistant"
    assert configure(STRATEGIES["trim"], role="user") is STRATEGIES["trim"]


# --- goal, its deprecated spelling, and the counter check ---------------------------------

def configured(name):
    return configure(STRATEGIES[name], summarizer=summarizer)


@pytest.mark.parametrize("name", NAMES)
def test_a_strategy_without_a_goal_says_so(name):
    with pytest.raises(TypeError, match="'goal'"):
        configured(name)(fixed_history(2, 10), counter=COUNTER)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("counter", ["o200k_base", 42, None, object()])
def test_every_strategy_checks_its_counter_in_one_line(name, counter):
    with pytest.raises(TypeError) as info:
        configured(name)(fixed_history(4, 50), goal=100, counter=counter)
    message = str(info.value)
    assert message.startswith("counter must be a TokenCounter") and "\n" not in message


def test_off_is_known_by_its_type_not_its_name():
    from jupyter_compaction import runner

    class Renamed(NoCompaction):
        pass

    with runner.start("agents", strategy=Renamed(name="baseline"), budget=3_000,
                      max_turns=6) as session:
        run = session.play()
    assert not run.compactions and run.peak_context > 3_000
