"""The invariants every strategy keeps, on generated histories and many budgets."""

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_compaction import (
    ClearToolResults,
    Progressive,
    SummarizeMiddle,
    TokenCounter,
    TrimTurns,
    strategies,
    validate,
)
from jupyter_compaction.history import blocks, opens_with_compaction
from jupyter_compaction.models.asked import asking_summary
from jupyter_compaction.summaries import is_summary
from tests.support.histories import histories
from tests.support.quick import quick_first

COUNTER = TokenCounter()


def short_summarizer(prompt: str) -> str:
    return "## Goal\nfinish\n## Progress\nsome files read"


# Every registered strategy (a new one is covered here with no edit), plus variants
# whose knobs differ from the registered defaults.
REGISTERED = {name: strategies.configure(strategy, summarizer=short_summarizer)
              for name, strategy in strategies.STRATEGIES.items()}
VARIANTS = {
    "clear-keep2": ClearToolResults(keep_last=2),
    "clear-inputs": ClearToolResults(keep_last=1, clear_inputs=True),
    "trim3": TrimTurns(keep_first=3),
    "summarize-tight": SummarizeMiddle(short_summarizer, protect_first=1, tail_tokens=300),
    "summarize-user": SummarizeMiddle(short_summarizer, tail_tokens=300, role="user"),
    "progressive-tight": Progressive(layers=(ClearToolResults(keep_last=1),
                                             SummarizeMiddle(short_summarizer, tail_tokens=200),
                                             TrimTurns())),
}
STRATEGIES = {**REGISTERED, **VARIANTS}
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def task_is_kept(before, after):
    """The task's own blocks come first, verbatim, in the first user message (the second
    message, behind an on-demand compaction block put first)."""
    original = blocks(before[0])
    return blocks(after[opens_with_compaction(after)])[: len(original)] == original


@pytest.mark.parametrize("name", quick_first(STRATEGIES, keep=2))
@SETTINGS
@given(messages=histories(), budget=st.integers(50, 20_000))
def test_strategy_invariants(name, messages, budget):
    snapshot = copy.deepcopy(messages)
    result = STRATEGIES[name](messages, goal=budget, counter=COUNTER)
    validate(result.messages)
    assert messages == snapshot, "the input must not be mutated"
    assert task_is_kept(messages, result.messages)
    task = result.messages[opens_with_compaction(result.messages)]
    if not any(b.get("type") == "text" and is_summary(b["text"])
               for b in blocks(task)):  # a summary may join the task message
        assert task == messages[0]
    assert result.tokens_after <= result.tokens_before
    assert result.tokens_after == COUNTER.count(result.messages)
    assert result.tokens_before == COUNTER.count(messages)


@pytest.mark.parametrize("name", quick_first(["trim", "progressive", "progressive-tight"]))
@SETTINGS
@given(messages=histories(min_turns=1), budget=st.integers(50, 20_000))
def test_trimming_reaches_the_budget_when_task_and_newest_turn_fit(name, messages, budget):
    strategy = STRATEGIES[name]
    target = budget
    last_turn = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    result = strategy(messages, goal=budget, counter=COUNTER)
    kept = asking_summary(result.messages)  # a summary stating a newer question stays too
    task = {**messages[0], "content": [*blocks(messages[0]), *([kept] if kept else [])]}
    floor = COUNTER.count([task, *messages[last_turn:]])
    if floor <= target:
        assert result.tokens_after <= target
