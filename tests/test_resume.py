"""`Agent.resume()` for each way a run ends, checked as strictly as the Messages API checks.

Two models play the logistics scenario: the real `anthropic` SDK against the strict local
Messages API (`FakeMessagesAPI`, which refuses an empty user message with a 400), and the
simulated model behind a wrapper that checks every request with the same rules
(`validate_request`) before answering. For each status:

- finished: `resume()` raises one `ValueError` line and sends nothing (also for a run
  rebuilt from the store whose stored history ends with the answer);
- failed (a 500 mid-run, or a model error) and `max_turns`: `resume()` continues from a
  history the API accepts and reaches the scenario's answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.agent import Agent, Run
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.store import SessionStore
from tests.support.fake_messages_api import (
    FakeMessagesAPI,
    Fault,
    model_responder,
    validate_request,
)

SCENARIO = "logistics"
MAX_TURNS = 40
FAIL_AT = 3  # the 0-based model request that fails, for a "failed" run
FEW_TURNS = 2  # a run stopped after this many turns ends as "max_turns"


class StrictSimulated:
    """The simulated model, refusing (as a 400 would) any request the API would refuse,
    and failing once at request `fail_at` when given."""

    name = "simulated"

    def __init__(self, fail_at: int | None = None):
        self.inner = SimulatedModel(SCENARIO)
        self.fail_at, self.requests = fail_at, 0

    def create(self, *, system: str, messages: list[dict[str, Any]],
               tools: list[dict[str, Any]], max_tokens: int, **options: Any) -> Any:
        index, self.requests = self.requests, self.requests + 1
        problem = validate_request({"model": "claude-haiku-4-5", "max_tokens": max_tokens,
                                    "system": system, "messages": messages, "tools": tools})
        if problem is not None:
            raise ValueError(f"400 invalid_request_error: {problem}")
        if index == self.fail_at:
            raise RuntimeError("overloaded")
        return self.inner.create(system=system, messages=messages, tools=tools,
                                 max_tokens=max_tokens, **options)


class Setup:
    """One agent on the scenario, over the fake API or the strict simulated model."""

    def __init__(self, via: str, tmp_path: Path, fail: bool, api: FakeMessagesAPI | None):
        self.spec = scenarios.load(SCENARIO)
        self.workspace = self.spec.prepare(tmp_path / "workspace")
        self.store = SessionStore(tmp_path / "sessions")
        self.api = api
        if via == "api":
            from jupyter_compaction.models.anthropic import AnthropicModel

            assert api is not None
            if fail:
                api.faults.append(Fault("500", at=FAIL_AT))
            self.model: Any = AnthropicModel("claude-haiku-4-5", api_key="sk-ant-test-resume",
                                             base_url=api.base_url, max_retries=0, timeout=5)
        else:
            self.model = StrictSimulated(FAIL_AT if fail else None)
        self.agent = Agent(self.model, tools=self.spec.tools(self.workspace), budget=5000,
                           workspace=self.workspace, store=self.store)

    @property
    def sent(self) -> int:
        return len(self.api.message_requests) if self.api else self.model.requests

    def refusals(self) -> list[Any]:
        """Requests the API refused for their content (injected faults are not refusals)."""
        return [r for r in self.api.refusals if r[1] == 400] if self.api else []


@pytest.fixture(params=["api", "simulated"])
def via(request: pytest.FixtureRequest) -> str:
    if request.param == "api":
        pytest.importorskip("anthropic")
    return request.param


@pytest.fixture
def api(via: str) -> Iterator[FakeMessagesAPI | None]:
    if via != "api":
        yield None
        return
    with FakeMessagesAPI(model_responder(SimulatedModel(SCENARIO))) as fake:
        yield fake


def test_resuming_a_finished_run_says_so_and_sends_nothing(via: str, api: Any,
                                                           tmp_path: Path) -> None:
    setup = Setup(via, tmp_path, fail=False, api=api)
    run = setup.agent.run(setup.spec.task, max_turns=MAX_TURNS)
    assert run.status == "finished"
    sent, transcript = setup.sent, list(run.transcript)
    with pytest.raises(ValueError, match="already finished") as info:
        setup.agent.resume(run)
    assert "\n" not in str(info.value)
    assert setup.sent == sent and run.transcript == transcript and run.status == "finished"
    rebuilt = Run(task=setup.spec.task, session_id=run.session_id)  # from the store alone
    with pytest.raises(ValueError, match="already finished"):
        setup.agent.resume(rebuilt)
    assert setup.sent == sent and rebuilt.messages == []


@pytest.mark.parametrize("status", ["failed", "max_turns"])
def test_a_failed_or_stopped_run_resumes_from_a_valid_history(via: str, api: Any,
                                                              tmp_path: Path,
                                                              status: str) -> None:
    setup = Setup(via, tmp_path, fail=status == "failed", api=api)
    run = setup.agent.run(setup.spec.task,
                          max_turns=FEW_TURNS if status == "max_turns" else MAX_TURNS)
    assert run.status == status, run.error
    before = list(run.transcript)
    run = setup.agent.resume(run, max_turns=MAX_TURNS)
    assert run.status == "finished", run.error
    assert setup.spec.is_correct(run.answer)
    assert run.transcript[:len(before)] == before
    assert setup.refusals() == []
    assert all(m["content"] for m in run.transcript), "no empty message was sent"
