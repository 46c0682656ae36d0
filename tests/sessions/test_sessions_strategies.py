"""Every strategy of the registry on every real history, at budgets from 10k to 100k:
the result stays valid, never grows, and trim and progressive reach the budget."""

import pytest

from jupyter_compaction import sessions, strategies
from jupyter_compaction.replay import offline_summary
from tests.support.strategy_checks import COUNTER, apply

HISTORIES = [(f"{p.name}[{i}]", segment) for p in sessions.shipped()
             for i, segment in enumerate(sessions.load(p).segments)]
BUDGETS = (10_000, 20_000, 50_000, 100_000)


@pytest.mark.parametrize("name", list(strategies.STRATEGIES))
@pytest.mark.parametrize("label, messages", HISTORIES, ids=[h[0] for h in HISTORIES])
def test_strategy_on_real_history(name, label, messages):
    strategy = strategies.configure(strategies.get(name), summarizer=offline_summary)
    newest = max(i for i, m in enumerate(messages) if m["role"] == "assistant")
    floor = COUNTER.count([messages[0], *messages[newest:]])
    for budget in BUDGETS:
        result = apply(strategy, messages, goal=budget)
        if name in ("trim", "progressive") and floor <= budget:
            assert result.tokens_after <= budget, (label, budget)
