"""`Agent.compact()`: compact a run's live context on demand, with a focus."""

from __future__ import annotations

import pytest

from jupyter_compaction import runner
from jupyter_compaction.events import Compacted, Failed
from jupyter_compaction.history import validate
from jupyter_compaction.models.simulated import SimulatedModel
from jupyter_compaction.store import SessionStore
from jupyter_compaction.strategies import CompactAll, TrimTurns
from jupyter_compaction.summaries import FOCUS_INSTRUCTIONS

FOCUS = "the order ORD-1042 and its waybill"
ORDER_LINE = "- look up order ORD-1042: waybill = VD-88317; promised = 2024-03-12"
WAYBILL_LINE = "- track waybill VD-88317: attempt = 2024-03-12"


def finished(scenario="logistics", **knobs):
    """A session whose run has finished with no compaction (a budget far above it)."""
    session = runner.start(scenario, budget=knobs.pop("budget", 50_000), **knobs)
    run = session.play()
    assert run.status == "finished" and not run.compactions
    return session, run


def test_compacts_under_the_trigger_with_the_agents_strategy_towards_the_target():
    session, run = finished(budget=20_000)
    transcript, before = list(run.transcript), run.messages
    peak = run.peak_context
    assert peak < 0.8 * 20_000  # under the trigger: the loop itself never compacted
    result = session.agent.compact(run)
    assert result.changed and result.kind.startswith("clear")
    assert run.messages is not before and run.messages == result.messages
    assert run.transcript == transcript
    event = run.events[-1]
    assert isinstance(event, Compacted) and event.strategy == result.kind
    assert event.tokens_before == result.tokens_before > result.tokens_after
    assert run.status == "finished" and run.compactions == [result]
    validate(run.messages)
    session.close()


def test_under_the_target_the_default_strategy_has_nothing_to_do():
    session, run = finished()
    events = len(run.events)
    result = session.agent.compact(run)
    assert not result.changed and result.note.startswith("fits under")
    assert len(run.events) == events and not run.compactions  # nothing announced
    session.close()


def test_a_strategy_by_name_or_object_and_a_bad_name():
    session, run = finished()
    result = session.agent.compact(run, "compact")
    assert result.kind == "compact" and result.summary and len(run.messages) == 1
    again = session.agent.compact(run, TrimTurns())
    assert not again.changed  # one message: nothing left to trim
    with pytest.raises(ValueError, match="unknown strategy 'shrink'"):
        session.agent.compact(run, "shrink")
    with pytest.raises(ValueError, match="focus must be text"):
        session.agent.compact(run, "compact", focus=42)
    session.close()


def test_the_store_starts_a_child_session_holding_the_compacted_context(tmp_path):
    store = SessionStore(tmp_path)
    session, run = finished(store=store)
    first = run.session_id
    session.agent.compact(run, CompactAll(), focus=FOCUS)
    assert run.session_id != first
    assert store.info(run.session_id).parent_session_id == first
    assert store.context(run.session_id) == run.messages
    assert store.transcript(run.session_id) == run.transcript
    assert store.events(run.session_id)[-1]["kind"] == "compacted"
    session.close()


def test_the_focus_words_reach_the_summary_prompt():
    session, run = finished(budget=20_000)
    result = session.agent.compact(run, "summarize", focus="  the order   ORD-1042 ")
    assert FOCUS_INSTRUCTIONS.format(focus="the order ORD-1042") in result.summary_prompt
    assert run.of(Compacted)[-1].summary_prompt == result.summary_prompt
    session.close()


def summary_with(focus: str | None) -> str:
    """The summary of a whole logistics run, under a word cap that makes it lossy."""
    session, run = finished(model=SimulatedModel("logistics", summary_words=140))
    result = session.agent.compact(run, "compact", focus=focus)
    session.close()
    return result.summary


def test_the_simulated_models_summary_follows_the_focus():
    plain, focused = summary_with(None), summary_with(FOCUS)
    assert ORDER_LINE not in plain and WAYBILL_LINE not in plain  # eroded without a focus
    assert "- look up order ORD-1042\n" in plain
    assert ORDER_LINE in focused and WAYBILL_LINE in focused  # kept: they are the focus
    assert len(focused.split()) <= 140
    other = "- check depot D-17: slot = 2024-03-18 08:00-13:00"
    assert other in plain and other not in focused  # the cap took them instead


def test_stuck_compaction_ends_the_run_and_returns_none():
    session, run = finished(budget=50_000)
    session.agent.budget = 10  # the system prompt and tools alone are over it now
    assert session.agent.compact(run) is None
    assert run.status == "failed" and "raise the budget" in run.error
    assert isinstance(run.events[-1], Failed) and run.events[-1].reason == "stuck"
    session.close()
