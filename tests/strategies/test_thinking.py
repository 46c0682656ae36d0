"""Thinking blocks through every strategy: valid results, and the newest turn of an ongoing
tool loop keeps its thinking untouched."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jupyter_compaction.history import THINKING_TYPES, blocks, ongoing_tool_loop
from tests.strategies.test_properties import SETTINGS, STRATEGIES
from tests.support.histories import thinking_histories
from tests.support.quick import quick_first
from tests.support.strategy_checks import COUNTER, apply


def thoughts(message):
    return [b for b in blocks(message) if b.get("type") in THINKING_TYPES]


@pytest.mark.parametrize("name", quick_first(STRATEGIES))
@settings(SETTINGS, max_examples=25)
@given(messages=thinking_histories(min_turns=1), budget=st.integers(50, 20_000))
def test_thinking_stays_with_its_calls(name, messages, budget):
    result = apply(STRATEGIES[name], messages, goal=budget, counter=COUNTER)
    newest = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    if ongoing_tool_loop(messages) and name != "compact":  # compact folds the whole loop
        kept = [m for m in result.messages if m["role"] == "assistant"][-1]
        assert thoughts(kept) == thoughts(messages[newest])
        assert blocks(kept)[-len(blocks(messages[newest])):] == blocks(messages[newest])
    for message in result.messages:  # a thought never survives without the calls it led to
        original = [m for m in messages if thoughts(m) and thoughts(m) == thoughts(message)]
        if thoughts(message) and original:
            ids = {b.get("id") for b in blocks(original[0]) if b.get("type") == "tool_use"}
            assert ids <= {b.get("id") for b in blocks(message) if b.get("type") == "tool_use"}
