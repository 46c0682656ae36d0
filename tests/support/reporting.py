"""A model double whose reported input tokens differ from the local count.

`Reporting(scenario, report)` plays the simulated model (a reader, as ever) and rewrites
the usage of each reply: the simulated model reports exactly the local count of the
request, and `report(local)` turns that into the count a real API might report, e.g.
`scaled(1.3)` (another tokenizer that counts 30 % more) or `spike_once(...)` (one request
reported far above its local count).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from jupyter_compaction.models.base import Reply, Usage
from jupyter_compaction.models.simulated import SimulatedModel

Report = Callable[[int], int]


class Reporting:
    """The simulated model, reporting `report(local count)` input tokens per request."""

    name = "reporting"

    def __init__(self, scenario: str, report: Report, **options: Any):
        self.inner, self.report = SimulatedModel(scenario, **options), report

    def create(self, *, system: str, messages: list[dict[str, Any]],
               tools: list[dict[str, Any]], max_tokens: int, cache: bool | None = None
               ) -> Reply:
        reply = self.inner.create(system=system, messages=messages, tools=tools,
                                  max_tokens=max_tokens, cache=False)
        usage = Usage(self.report(reply.usage.total_input), reply.usage.output_tokens)
        return dataclasses.replace(reply, usage=usage)


def scaled(factor: float) -> Report:
    """Every request reported as `factor` times its local count."""
    return lambda local: round(local * factor)


def spike_once(at_least: int, reported: int) -> Report:
    """The first request of `at_least` local tokens reported as `reported`, the rest exactly."""
    done: list[int] = []

    def report(local: int) -> int:
        if local >= at_least and not done:
            done.append(local)
            return reported
        return local

    return report
