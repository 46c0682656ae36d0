"""`pricing.dollars`: each kind of token at its own price per million, cache prices filled in."""

from __future__ import annotations

import pytest

from jupyter_compaction.models.base import Usage
from jupyter_compaction.pricing import dollars, rates

HAIKU = {"input": 1.0, "output": 5.0}


def test_each_kind_of_token_has_its_own_price():
    usage = Usage(input_tokens=1_000_000)
    assert dollars([usage], HAIKU) == 1.0
    assert dollars([Usage(output_tokens=1_000_000)], HAIKU) == 5.0
    assert dollars([Usage(cache_creation_input_tokens=1_000_000)], HAIKU) == 1.25
    assert dollars([Usage(cache_read_input_tokens=1_000_000)], HAIKU) == pytest.approx(0.1)


def test_given_cache_prices_win_over_the_multipliers():
    prices = {**HAIKU, "cache_write": 2.0, "cache_read": 0.5}
    assert rates(prices) == {"input": 1.0, "output": 5.0, "cache_write": 2.0, "cache_read": 0.5}
    usage = Usage(input_tokens=10, output_tokens=20, cache_creation_input_tokens=30,
                  cache_read_input_tokens=40)
    assert dollars([usage, usage], prices) == pytest.approx(2 * (10 + 100 + 60 + 20) / 1e6)


def test_no_calls_cost_nothing_and_missing_prices_say_what_to_pass():
    assert dollars([], HAIKU) == 0.0
    with pytest.raises(ValueError, match="prices need 'output'"):
        dollars([Usage(input_tokens=1)], {"input": 1.0})
