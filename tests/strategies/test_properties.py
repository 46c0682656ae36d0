"""The invariants every strategy keeps, on generated histories and many budgets."""

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jupyter_compaction import (
    ClearToolResults,
    CompactAll,
    NoCompaction,
    Progressive,
    SummarizeMiddle,
    TokenCounter,
    TrimTurns,
    validate,
)
from jupyter_compaction.history import blocks
from tests.support.histories import histories

COUNTER = TokenCounter()


def short_summarizer(prompt: str) -> str:
    return "## Goal\nfinish\n## Progress\nsome files read"


STRATEGIES = {
    "off": NoCompaction(),
    "clear": ClearToolResults(keep_last=2),
    "clear-inputs": ClearToolResults(keep_last=1, clear_inputs=True),
    "trim": TrimTurns(),
    "trim3": TrimTurns(keep_first=3),
    "summarize": SummarizeMiddle(short_summarizer, protect_first=1, tail_tokens=300),
    "summarize-user": SummarizeMiddle(short_summarizer, tail_tokens=300, role="user"),
    "compact": CompactAll(short_summarizer),
    "progressive": Progressive(layers=(ClearToolResults(keep_last=1),
                                       SummarizeMiddle(short_summarizer, tail_tokens=200),
                                       TrimTurns())),
}
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def task_is_kept(before, after):
    """The task's own blocks come first, verbatim, in the first message."""
    original = blocks(before[0])
    return blocks(after[0])[: len(original)] == original


@pytest.mark.parametrize("name", STRATEGIES)
@SETTINGS
@given(messages=histories(), budget=st.integers(50, 20_000))
def test_strategy_invariants(name, messages, budget):
    snapshot = copy.deepcopy(messages)
    result = STRATEGIES[name](messages, budget=budget, counter=COUNTER)
    validate(result.messages)
    assert messages == snapshot, "the input must not be mutated"
    assert task_is_kept(messages, result.messages)
    if name not in ("summarize-user", "compact"):
        assert result.messages[0] == messages[0]
    assert result.tokens_after <= result.tokens_before
    assert result.tokens_after == COUNTER.count(result.messages)
    assert result.tokens_before == COUNTER.count(messages)


@pytest.mark.parametrize("name", ["trim", "progressive"])
@SETTINGS
@given(messages=histories(min_turns=1), budget=st.integers(50, 20_000))
def test_trimming_reaches_the_budget_when_task_and_newest_turn_fit(name, messages, budget):
    strategy = STRATEGIES[name]
    target = budget if name == "trim" else int(strategy.trigger * budget)
    last_turn = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    floor = COUNTER.count([messages[0], *messages[last_turn:]])
    result = strategy(messages, budget=budget, counter=COUNTER)
    if floor <= target:
        assert result.tokens_after <= target
