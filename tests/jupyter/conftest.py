"""Shared fixtures for the Jupyter layer: a real IPython shell and a hostile run."""

from __future__ import annotations

from typing import Any

import pytest

from jupyter_compaction.agent import Agent, Run
from jupyter_compaction.models.base import Reply, Usage
from tests.support.shell import HOSTILE, ip  # noqa: F401 (ip: the fixture)


@pytest.fixture
def shell_text() -> bool:
    """The Jupyter layer's tests see rich output."""
    return False


@pytest.fixture
def shell_names() -> tuple[str, ...]:
    return ("run_a", "not_a_run")


class HostileModel:
    """Calls the hostile tool a few times with a hostile input, then answers with HTML."""

    name = "hostile"

    def __init__(self, calls: int = 6):
        self.calls, self.n = calls, 0

    def create(self, *, system: str, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
               max_tokens: int, cache: bool = False) -> Reply:
        if not tools:  # a summary request
            return Reply([{"type": "text", "text": f"## Goal\n{HOSTILE}"}], usage=Usage(10, 5))
        self.n += 1
        if self.n > self.calls:
            return Reply([{"type": "text", "text": f"Done: {HOSTILE}"}], usage=Usage(10, 5))
        return Reply([{"type": "text", "text": f"Reading {HOSTILE}"},
                      {"type": "tool_use", "id": f"toolu_{self.n}", "name": "evil",
                       "input": {"path": HOSTILE}}],
                     stop_reason="tool_use", usage=Usage(10, 5))


def evil(path: str) -> str:
    """Return a file full of hostile markup."""
    return (HOSTILE + "\n") * 40


@pytest.fixture
def hostile_run() -> Run:
    """A finished run whose tool outputs, summary, inputs and answer are hostile HTML."""
    agent = Agent(HostileModel(), tools=[evil], budget=3_000, strategy="compact",
                  task_state=False)
    run = agent.run(f"Check {HOSTILE}", max_turns=20)
    assert run.status == "finished" and run.compactions and run.summary
    return run
