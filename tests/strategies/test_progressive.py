"""Progressive: cheapest layer first, stop as soon as it fits; and the stuck rule."""


import pytest

from jupyter_compaction import (
    ClearToolResults,
    Compaction,
    CompressionStuck,
    Progressive,
    SummarizeMiddle,
    TokenCounter,
    TrimTurns,
)
from jupyter_compaction.strategies import check_stuck, configure
from jupyter_compaction.strategies.base import unchanged
from jupyter_compaction.summaries import find_summary
from tests.support.histories import fixed_history
from tests.support.strategy_checks import Recorder, apply

COUNTER = TokenCounter()
SUMMARY = "## Progress\nturns summarized"


def run(strategy, messages, goal):
    return apply(strategy, messages, goal)


def layers(summarizer, protect_first=1):
    return (ClearToolResults(keep_last=1),
            SummarizeMiddle(summarizer, protect_first=protect_first, tail_tokens=1),
            TrimTurns())


def talky_history(turns=6, words=300, first_words=None):
    """Turns whose bulk is assistant *text* (clearing tool results cannot free it)."""
    messages = [{"role": "user", "content": "Task: review the design, turn by turn."}]
    for t in range(turns):
        n = first_words if (t == 0 and first_words) else words
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Thoughts on part {t}: " + " ".join(
                f"idea{t}_{i}" for i in range(n))},
            {"type": "tool_use", "id": f"toolu_{t}", "name": "read_file",
             "input": {"path": f"part{t}.md"}}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"toolu_{t}",
             "content": f"part {t}: " + "ok " * 60}]})
    return messages


def test_under_the_budget_is_unchanged_and_calls_no_layer():
    messages = fixed_history(6, 100)
    total = COUNTER.count(messages)
    summarizer = Recorder(SUMMARY)
    out = run(Progressive(layers(summarizer)), messages, goal=total)
    assert not out.changed
    assert out.layers == []
    assert out.note == f"fits under {total} tokens"
    assert summarizer.prompts == []
    # one token over the budget and the layers run
    out = run(Progressive(layers(summarizer)), messages, goal=total - 1)
    assert out.layers


def test_clear_alone_enough_runs_only_clear():
    messages = fixed_history(8, 300)
    cleared = ClearToolResults(keep_last=1)(messages, goal=0, counter=COUNTER)
    summarizer = Recorder(SUMMARY)
    out = run(Progressive(layers(summarizer)), messages, goal=cleared.tokens_after)
    assert [layer.kind for layer in out.layers] == ["clear"]
    assert out.kind == "clear"
    assert out.messages == cleared.messages
    assert out.cleared == cleared.cleared
    assert summarizer.prompts == []
    assert out.summary is None and out.summary_prompt is None


def test_summary_only_when_clearing_is_not_enough():
    messages = talky_history()
    strategies = layers(Recorder(SUMMARY))
    cleared = strategies[0](messages, goal=0, counter=COUNTER)
    summarized = strategies[1](cleared.messages, goal=10**6, counter=COUNTER)
    assert summarized.tokens_after < cleared.tokens_after < COUNTER.count(messages)
    summarizer = Recorder(SUMMARY)
    out = run(Progressive(layers(summarizer)), messages,
              goal=summarized.tokens_after)
    assert [layer.kind for layer in out.layers] == ["clear", "summarize"]
    assert out.kind == "clear+summarize"
    assert len(summarizer.prompts) == 1
    assert out.summary == SUMMARY and out.summary_prompt == summarizer.prompts[0]
    assert out.dropped == summarized.dropped
    assert out.cleared == cleared.cleared
    assert find_summary(out.messages) == SUMMARY


def test_trim_runs_last_when_the_summary_is_not_enough():
    # the summary is longer than the room the budget leaves it; only trim, which drops a
    # summary last, brings the history under the budget
    messages = talky_history()
    summarizer = Recorder("## Progress\n" + " ".join(f"note{i}" for i in range(400)))
    floor = COUNTER.count([messages[0], *messages[-2:]])
    out = run(Progressive(layers(summarizer)), messages, goal=floor + 200)
    assert [layer.kind for layer in out.layers] == ["clear", "summarize", "trim"]
    assert out.kind == "clear+summarize+trim"
    assert len(summarizer.prompts) == 1 and out.layers[1].changed
    assert out.tokens_after <= floor + 200
    assert out.tokens_after == out.layers[-1].tokens_after
    assert out.dropped == sum(layer.dropped for layer in out.layers)
    assert find_summary(out.messages) is None


def test_a_huge_first_turn_is_not_protected_as_head():
    # a head over HEAD_SHARE of the budget is cut back to the task, so summarizing it is
    # enough and trim never runs
    messages = talky_history(first_words=2000)
    summarizer = Recorder(SUMMARY)
    floor = COUNTER.count([messages[0], *messages[-2:]])
    out = run(Progressive(layers(summarizer, protect_first=3)), messages,
              goal=floor + 200)
    assert [layer.kind for layer in out.layers] == ["clear", "summarize"]
    assert out.tokens_after <= floor + 200
    assert "idea0_1999" not in str(out.messages)


def test_kind_names_only_the_layers_that_changed_something():
    messages = [{"role": "user", "content": "Task: chat."}]
    for t in range(6):
        messages += [{"role": "assistant", "content": f"answer {t} " + "words " * 300},
                     {"role": "user", "content": f"question {t}"}]
    out = run(Progressive(layers(Recorder(SUMMARY))), messages, goal=600)
    assert out.layers[0].kind == "clear" and not out.layers[0].changed
    assert out.layers[0].note == "no old tool results to clear"
    assert out.kind.split("+")[0] == "summarize"
    assert "no old tool results to clear" in out.note


def test_nothing_changed_is_named_after_the_strategy():
    messages = [{"role": "user", "content": "a very long task " * 500}]
    summarizer = Recorder(SUMMARY)
    out = run(Progressive(layers(summarizer)), messages, goal=100)
    assert [layer.kind for layer in out.layers] == ["clear", "summarize", "trim"]
    assert out.kind == "progressive"
    assert not out.changed
    assert summarizer.prompts == []
    assert out.note == ("no old tool results to clear; the middle is empty; "
                        "over the goal of 100 tokens with nothing to drop: "
                        "the task (keep_first=1) stays")


def test_each_layer_gets_the_goal_and_the_previous_layers_output():
    calls = []

    class Spy:
        def __init__(self, name, drop):
            self.name, self.drop = name, drop

        def __call__(self, messages, *, goal, counter):
            calls.append((self.name, len(messages), goal))
            if not self.drop:
                return unchanged(self.name, messages, counter.count(messages), "spy")
            out = [messages[0], *messages[3:]]
            return Compaction(self.name, out, counter.count(messages), counter.count(out),
                              dropped=2)

    messages = fixed_history(6, 100)
    out = run(Progressive((Spy("a", True), Spy("b", False), Spy("c", True))),
              messages, goal=50)
    # still over 50 after all three: "c" alone on a's input, then on the history, fits no
    # better, so the three steps stand
    assert calls == [("a", 13, 50), ("b", 11, 50), ("c", 11, 50), ("c", 11, 50),
                     ("c", 13, 50)]
    assert out.kind == "a+c"
    assert len(out.messages) == 9


def test_a_summary_that_keeps_the_newest_turn_over_the_goal_gives_way_to_trimming():
    # the summary goes into the newest turn's assistant message (the middle ends right
    # before it), where trimming cannot drop it; trimming the cleared history fits instead
    messages = talky_history(turns=3, words=40)
    summarizer = Recorder("## Progress\n" + " ".join(f"note{i}" for i in range(30)))
    floor = COUNTER.count([messages[0], *messages[-2:]])
    out = run(Progressive(layers(summarizer)), messages, goal=floor + 5)
    assert out.tokens_after <= floor + 5
    assert [layer.kind for layer in out.layers][-1] == "trim"
    assert find_summary(out.messages) is None and out.kind.endswith("trim")


# --- stuck detection -----------------------------------------------------------------


def compaction(before, after):
    return Compaction("clear", [], before, after)


@pytest.mark.parametrize(("before", "after", "budget"), [
    (1000, 901, 900),   # over budget, freed 9.9 %
    (1000, 1000, 10),   # freed nothing
])
def test_check_stuck_raises_when_over_budget_and_shrink_below_ten_percent(before, after, budget):
    with pytest.raises(CompressionStuck) as err:
        check_stuck(compaction(before, after), budget)
    message = str(err.value)
    assert "\n" not in message
    assert f"compaction 'clear' is stuck: {before} -> {after} tokens" in message
    assert f"budget of {budget}" in message
    assert (err.value.kind, err.value.before, err.value.after, err.value.budget) == (
        "clear", before, after, budget)


@pytest.mark.parametrize(("before", "after", "budget"), [
    (1000, 900, 800),   # freed exactly 10 %: not stuck
    (1000, 990, 990),   # freed little but fits
    (1000, 200, 100),   # over budget but freed a lot: the next turn may do more
])
def test_check_stuck_passes_the_compaction_through_otherwise(before, after, budget):
    result = compaction(before, after)
    assert check_stuck(result, budget) is result


def test_a_weak_progressive_pipeline_is_stuck():
    messages = talky_history()
    out = Progressive((ClearToolResults(keep_last=1),))(messages, goal=500, counter=COUNTER)
    assert out.tokens_after > 500
    with pytest.raises(CompressionStuck):
        check_stuck(out, 500)


def test_a_focus_is_passed_on_to_the_summarizing_layer():
    messages = talky_history()
    plain, focused = Recorder(SUMMARY), Recorder(SUMMARY)
    budget = COUNTER.count(messages) // 3
    run(Progressive(layers(plain)), messages, goal=budget)
    out = run(Progressive(layers(focused), focus="the ideas of part 2"), messages,
              goal=budget)
    assert out.summary == SUMMARY and focused.prompts
    assert all("focus on: the ideas of part 2." in p for p in focused.prompts)
    assert not any("focus on" in p for p in plain.prompts)


def test_configure_sets_the_focus_of_a_strategy_and_its_layers():
    configured = configure(Progressive(layers(Recorder(SUMMARY))), focus="part 4")
    assert configured.focus == "part 4"
    assert [getattr(layer, "focus", None) for layer in configured.layers] == [
        None, "part 4", None]
    assert configure(TrimTurns(), focus="part 4") == TrimTurns()  # nothing to focus


def test_each_step_of_the_pipeline_is_in_the_compacted_event_and_the_event_log():
    """A compaction that needed more than clearing records each step that ran, chained
    (each step starts where the one before ended), and the event log shows them."""
    from jupyter_compaction import runner
    from jupyter_compaction.events import Compacted
    from jupyter_compaction.jupyter.event_log import describe

    with runner.start("markdown", budget=8_000, strategy="progressive") as session:
        events = session.play().of(Compacted)
    piped = [e for e in events if len(e.steps) > 1]
    assert piped and all(e.steps[0][0] == "clear" for e in events)
    for event in piped:
        assert event.steps[0][1] == event.tokens_before
        assert event.steps[-1][2] == event.tokens_after
        assert all(a[2] == b[1] for a, b in zip(event.steps, event.steps[1:], strict=False))
        kind, before, after = event.steps[1]
        assert f"steps: clear {event.steps[0][1]} -> {event.steps[0][2]}, {kind} {before} " \
               f"-> {after}" in describe(event)
