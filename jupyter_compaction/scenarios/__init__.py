"""The bundled scenarios: tasks an agent works on with real tools over real files.

    from jupyter_compaction import scenarios

    scenarios.names()      # ['agents', 'logistics', 'debug', 'audit', 'markdown']
    scenario = scenarios.load("logistics")
    workspace = scenario.prepare(tmp_dir)      # a fresh copy of its files
    tools = scenario.tools(workspace)          # plain functions, ready for a Toolbox

"agents" reads a codebase file by file, "logistics" works a support ticket through
JSON back-office APIs, "debug" finds a root cause in configs and long logs, and "audit"
(the capstone, meant to be unseen until the end) checks dependency licences against a policy;
"markdown", the long one, maps the imports of a vendored real package in 49 turns.
Importing this package reads no files; a scenario's files are read when its tools run.
"""

from __future__ import annotations

from jupyter_compaction.scenarios import agents, audit, debug, logistics, markdown
from jupyter_compaction.scenarios.base import Scenario, Step

__all__ = ["SCENARIOS", "Scenario", "Step", "UnknownScenario", "load", "names"]

SCENARIOS: dict[str, Scenario] = {
    module.SCENARIO.name: module.SCENARIO for module in (agents, logistics, debug, audit, markdown)
}


class UnknownScenario(KeyError):
    """No scenario has that name; the message lists the ones that exist."""

    def __str__(self) -> str:  # KeyError would show the message in quotes
        return str(self.args[0]) if self.args else ""


def names() -> list[str]:
    """Scenario names in registration order ("agents" first)."""
    return list(SCENARIOS)


def load(name: str) -> Scenario:
    """The scenario called `name`; UnknownScenario (a KeyError) if there is none."""
    try:
        return SCENARIOS[name]
    except (KeyError, TypeError):
        raise UnknownScenario(
            f"No scenario named {name!r}; known scenarios: {', '.join(SCENARIOS)}."
        ) from None
