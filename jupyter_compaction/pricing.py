"""Dollars from token usage: what a list of calls costs at the prices you give.

Prices are dollars per million tokens, the way providers list them, in a mapping with
`input` and `output` and, optionally, `cache_write` and `cache_read`. A cache price that
is not given follows Anthropic's published multipliers of the input price: writing a
prefix to the prompt cache costs `CACHE_WRITE_FACTOR` (1.25x), reading it back
`CACHE_READ_FACTOR` (0.1x). A call's `Usage` splits its input into plain input, cache
writes and cache reads, and each part is priced at its own rate; output has its own
price. This is how lesson 5 compares a cached same-model summary with a cheap model's.

Left out: price tables for named models (prices change: pass your own), batch
discounts and long-context surcharges. A call that compacted on the server reports
`usage.iterations`, one entry per sampling step; its price is their sum.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from .models.base import Usage

PER_TOKENS = 1_000_000  # prices are per million tokens
CACHE_WRITE_FACTOR = 1.25  # a cache write costs this many times the input price ...
CACHE_READ_FACTOR = 0.1  # ... and a cache read this share of it
REQUIRED = ("input", "output")


def rates(prices: Mapping[str, float]) -> dict[str, float]:
    """The four prices per million tokens, the cache ones filled in from the input price."""
    missing = [name for name in REQUIRED if name not in prices]
    if missing:
        raise ValueError(f"prices need {' and '.join(repr(m) for m in missing)} (dollars per "
                         "million tokens), e.g. {'input': 3.0, 'output': 15.0}")
    return {"input": prices["input"], "output": prices["output"],
            "cache_write": prices.get("cache_write", prices["input"] * CACHE_WRITE_FACTOR),
            "cache_read": prices.get("cache_read", prices["input"] * CACHE_READ_FACTOR)}


def dollars(usages: Iterable[Usage], prices: Mapping[str, float]) -> float:
    """What the calls with these usages cost, in dollars. A call with `iterations` (server
    compaction's summary step, then the reply) is priced step by step, as it is billed."""
    rate = rates(prices)
    steps = [step for u in usages for step in (u.iterations or [u.to_dict()])]
    return sum(step.get("input_tokens", 0) * rate["input"]
               + step.get("cache_creation_input_tokens", 0) * rate["cache_write"]
               + step.get("cache_read_input_tokens", 0) * rate["cache_read"]
               + step.get("output_tokens", 0) * rate["output"] for step in steps) / PER_TOKENS
