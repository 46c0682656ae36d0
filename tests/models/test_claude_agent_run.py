"""A whole agent run through the real anthropic SDK against the local Messages API."""

import pytest

from jupyter_compaction import scenarios
from jupyter_compaction.models.anthropic import AnthropicModel
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.runner import play
from tests.support.fake_messages_api import FakeMessagesAPI, model_responder

KEY = "sk-ant-test-AGENTRUN-7f3a"


@pytest.mark.parametrize(("strategy", "task_state", "finishes"), [
    ("progressive", True, True),
    ("summarize", True, True),
    ("trim", False, False),  # a sliding window: it keeps re-reading until stopped as stuck
])
def test_thirty_turns_with_compaction_and_no_400(strategy, task_state, finishes):
    with FakeMessagesAPI(model_responder(SimulatedModel("agents"))) as api:
        model = AnthropicModel("claude-haiku-4-5", api_key=KEY, base_url=api.base_url,
                               max_retries=0)
        run = play("agents", model=model, budget=5000, strategy=strategy,
                   task_state=task_state, max_turns=30)
    statuses = [r["status"] for r in api.requests]
    assert statuses and all(s == 200 for s in statuses), statuses
    assert len(run.compactions) >= 3
    if finishes:
        assert run.status == "finished"
        assert scenarios.load("agents").is_correct(run.answer)
    else:
        assert scenarios.load("agents").outcome(run) == "stuck" and run.turn < 30
    assert any(u.cache_read_input_tokens for u in run.usage), "the stable prefix is cached"
    assert KEY not in repr(run.events) and KEY not in repr(run.transcript)
